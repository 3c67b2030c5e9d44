import { Injectable } from '@nestjs/common';
import type { ConsoleAuditEvent } from '../generated/prisma/client';
import { PrismaService, type SqlDb } from '../prisma.service';
import { INSERT_CONSOLE_AUDIT_EVENT } from './console-audit.sql';

export type { ConsoleAuditEvent };

/** Who made a console write, and from where: the part of an audit row the console's session knows. */
export interface AuditActor {
  merchantId: string;
  userId: string;
  sessionId: string;
  ip: string;
  userAgent: string | null;
}

/** A console write to record: its actor, what it did and to what. */
export interface AuditEntry extends AuditActor {
  action: string;
  targetType: string;
  /** filled in by the write when it creates its target (a refund's id) */
  targetId: string;
  mode: 'test' | 'live' | 'live_test';
  detail: Record<string, unknown>;
}

/** A use case's options for a console write: its audit row, inserted in the write's own transaction. */
export interface AuditedWrite {
  audit?: AuditEntry;
}

/** The merchant console's audit log (docs/console.md): one row per write, in the write's transaction. */
@Injectable()
export class ConsoleAuditRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Inserts `entry` on `db`: the transaction of the write it records. */
  async record(entry: AuditEntry, db: SqlDb): Promise<void> {
    await this.prisma.run(INSERT_CONSOLE_AUDIT_EVENT, entry, { db });
  }

  /** The merchant's newest audit rows. */
  list(merchantId: string, limit: number): Promise<ConsoleAuditEvent[]> {
    return this.prisma.consoleAuditEvent.findMany({
      where: { merchantId },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }
}
