import { Injectable } from '@nestjs/common';
import type { IdempotencyRecord } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';
import { CLAIM_IDEMPOTENCY_KEY, DELETE_EXPIRED_IDEMPOTENCY_RECORDS } from './idempotency-records.sql';

export interface IdempotencyClaim {
  credentialId: string;
  key: string;
  method: string;
  path: string;
  requestHash: string;
  expiresOn: Date;
}

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type ClaimResult = { claimed: true; id: string } | { claimed: false; existing: IdempotencyRecord };

@Injectable()
export class IdempotencyRecordsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims (credential, key) in one statement (CLAIM_IDEMPOTENCY_KEY): the unique index decides between concurrent
   * claimers, and an expired record is taken over in the same statement. Whoever does not get the
   * claim gets the record that holds it.
   */
  async claim(claim: IdempotencyClaim): Promise<ClaimResult> {
    // the holder may release its claim between our insert and our read; then we simply try again
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows = await this.prisma.run(CLAIM_IDEMPOTENCY_KEY, claim);
      if (rows.length > 0) return { claimed: true, id: rows[0].id };
      const existing = await this.prisma.idempotencyRecord.findUnique({
        where: { credentialId_key: { credentialId: claim.credentialId, key: claim.key } },
      });
      if (existing) return { claimed: false, existing };
    }
    throw new Error('idempotency key kept changing hands while being claimed');
  }

  /** Stores the response of a claim still in flight; it is replayed until the record expires. */
  async complete(id: string, response: StoredResponse): Promise<void> {
    await this.prisma.idempotencyRecord.updateMany({
      where: { id, state: 'in_flight' },
      data: {
        state: 'completed',
        responseStatus: response.status,
        responseBody: response.body,
        responseHeaders: response.headers,
      },
    });
  }

  /** Gives a claim up (the request did not complete), so the key may be used again. */
  async release(id: string): Promise<void> {
    await this.prisma.idempotencyRecord.deleteMany({ where: { id, state: 'in_flight' } });
  }

  /** Deletes up to `limit` expired records; safe to run from every replica at once. */
  async deleteExpired(limit: number): Promise<number> {
    const rows = await this.prisma.run(DELETE_EXPIRED_IDEMPOTENCY_RECORDS, { limit });
    return rows[0]?.deleted ?? 0;
  }
}
