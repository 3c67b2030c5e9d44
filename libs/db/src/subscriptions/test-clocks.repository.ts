import { Injectable } from '@nestjs/common';
import type { PageRequest } from '@kessai/domain';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import type { Prisma, TestClock } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import {
  ADVANCE_TEST_CLOCK,
  CREATE_TEST_CLOCK,
  DELETE_TEST_CLOCK,
  FIND_TEST_CLOCK_ADVANCING,
  LOCK_TEST_CLOCK_FOR_DELETION,
} from './test-clocks.sql';

export type { TestClock };

export type TestClockStatus = 'ready' | 'advancing';
export type TestClockWithStatus = TestClock & { status: TestClockStatus };

export type AdvanceOutcome =
  | { outcome: 'advanced' }
  | { outcome: 'not_found' }
  /** the requested time is not later than the clock's */
  | { outcome: 'not_later'; frozenTime: Date };

/**
 * A merchant's test clocks (docs/subscriptions.md, "Test clocks"). A deleted clock is not found.
 * `status` is computed from the scheduled payments on the clock (FIND_TEST_CLOCK_ADVANCING).
 */
@Injectable()
export class TestClocksRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /** A new clock; a console write (`audit`) inserts its audit row in the same transaction. */
  async create(
    input: { id: string; merchantId: string; name: string | null; frozenTime: Date },
    audit?: AuditEntry,
  ) {
    if (audit)
      await this.prisma.inTransaction(async (client) => {
        await this.prisma.run(CREATE_TEST_CLOCK, input, { db: client });
        await this.audit.record(audit, client);
      });
    else await this.prisma.run(CREATE_TEST_CLOCK, input);
    const clock = await this.find(input.merchantId, input.id);
    if (!clock) throw new Error(`test clock ${input.id} vanished after its creation`);
    return clock;
  }

  /** The clock of the merchant, not deleted, without its status (for the subscriptions it carries). */
  findActive(merchantId: string, id: string): Promise<TestClock | null> {
    return this.prisma.testClock.findFirst({ where: { id, merchantId, deletedOn: null } });
  }

  async find(merchantId: string, id: string): Promise<TestClockWithStatus | null> {
    const clock = await this.findActive(merchantId, id);
    return clock && (await this.withStatus([clock]))[0];
  }

  async list(merchantId: string, page: PageRequest): Promise<TestClockWithStatus[]> {
    const rows = await listPage(page, { merchantId, deletedOn: null } satisfies Prisma.TestClockWhereInput, {
      findCursor: (where) =>
        this.prisma.testClock.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.testClock.findMany(args),
    });
    return this.withStatus(rows);
  }

  count(merchantId: string): Promise<number> {
    return this.prisma.testClock.count({ where: { merchantId, deletedOn: null } });
  }

  /** Moves the clock to `to`; a console write (`audit`) has its row in the move's transaction, when it moved. */
  async advance(merchantId: string, id: string, to: Date, audit?: AuditEntry): Promise<AdvanceOutcome> {
    const params = { id, merchantId, to };
    const row = (
      audit
        ? await this.prisma.inTransaction(async (client) => {
            const rows = await this.prisma.run(ADVANCE_TEST_CLOCK, params, { db: client });
            if (rows[0]?.moved) await this.audit.record(audit, client);
            return rows;
          })
        : await this.prisma.run(ADVANCE_TEST_CLOCK, params)
    )[0];
    if (!row) return { outcome: 'not_found' };
    return row.moved ? { outcome: 'advanced' } : { outcome: 'not_later', frozenTime: row.frozen_time };
  }

  /**
   * Marks the clock deleted and cancels its subscriptions that are not final, with their events:
   * the clock and its subscriptions locked first (LOCK_TEST_CLOCK_FOR_DELETION), then
   * DELETE_TEST_CLOCK, in one transaction, with a console write's `audit` row when it deleted the
   * clock; null when there is no such clock.
   */
  async delete(
    merchantId: string,
    id: string,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<{ canceled: number } | null> {
    return this.prisma.inTransaction(async (db) => {
      const [clock] = await this.prisma.run(LOCK_TEST_CLOCK_FOR_DELETION, { id, merchantId }, { db });
      if (!clock) return null;
      const [row] = await this.prisma.run(DELETE_TEST_CLOCK, { id, merchantId, correlationId }, { db });
      if (!row) return null;
      if (audit)
        await this.audit.record({ ...audit, detail: { ...audit.detail, canceled: row.canceled } }, db);
      return { canceled: row.canceled };
    });
  }

  private async withStatus(clocks: TestClock[]): Promise<TestClockWithStatus[]> {
    if (clocks.length === 0) return [];
    const rows = await this.prisma.run(FIND_TEST_CLOCK_ADVANCING, { ids: clocks.map((clock) => clock.id) });
    const advancing = new Set(rows.filter((row) => row.advancing).map((row) => row.id));
    return clocks.map((clock) => ({ ...clock, status: advancing.has(clock.id) ? 'advancing' : 'ready' }));
  }
}
