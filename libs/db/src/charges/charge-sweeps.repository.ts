import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma.service';
import {
  FIND_DUE_CAPTURES,
  FIND_EXPIRED_AWAITING,
  FIND_STALE_CAPTURES,
  FIND_STALE_PENDING,
} from './charge-sweeps.sql';

/**
 * What charge-service's sweep (ChargeSweeper) looks for: the charges nobody is moving, found by time,
 * which it hands to the charges queue again (or, for a due capture_at, to CapturesRepository's
 * request). Reads only; the statements are charge-sweeps.sql.ts.
 */
@Injectable()
export class ChargeSweepsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Authorized charges whose capture_at has come and that have no capture yet. */
  findDueCaptures(limit: number): Promise<{ id: string; amount: bigint; currency: string }[]> {
    return this.prisma.run(FIND_DUE_CAPTURES, { limit });
  }

  /** Awaiting charges nobody completed in time. */
  async findExpiredAwaiting(limit: number): Promise<{ id: string; expiresOn: Date }[]> {
    const rows = await this.prisma.run(FIND_EXPIRED_AWAITING, { limit });
    return rows.map((row) => ({ id: row.id, expiresOn: row.expires_on }));
  }

  /** Pending charges untouched for `seconds`: their job was lost or keeps failing. */
  async findStalePending(seconds: number, limit: number): Promise<string[]> {
    const rows = await this.prisma.run(FIND_STALE_PENDING, { seconds, limit });
    return rows.map((row) => row.id);
  }

  /** Charges whose capture has been pending for `seconds`. */
  async findStaleCaptures(seconds: number, limit: number): Promise<string[]> {
    const rows = await this.prisma.run(FIND_STALE_CAPTURES, { seconds, limit });
    return rows.map((row) => row.charge_id);
  }
}
