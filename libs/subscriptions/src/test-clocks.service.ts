import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TestClocksRepository, type AuditedWrite, type TestClockWithStatus } from '@kessai/db';
import {
  isUuid,
  MAX_TEST_CLOCK_ADVANCE_MS,
  NotFoundError,
  PermissionError,
  ValidationError,
  type PageRequest,
} from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import type { PaymentsActor } from '@kessai/payments';
import type { TestClockAdvanceInput, TestClockInput } from './subscription-inputs';

/** Who acts on test clocks: a merchant, in test mode (live mode never sees one). */
export interface TestClockOwner {
  merchantId: string;
  mode: 'test';
}

/**
 * Test clocks (Kessai's extension; docs/subscriptions.md "Test clocks"), for the gateway and any
 * other front end: a test-mode merchant's frozen "now" that subscriptions created on it live on. A
 * merchant's clocks are seen by all its test credentials (store tokens included). Every method but
 * ownerOf takes the owner ownerOf resolved; answers are rows.
 */
@Injectable()
export class TestClocksService {
  constructor(private readonly clocks: TestClocksRepository) {}

  /** The actor as a clock owner; live mode is refused (403 INVALID_PERMISSIONS, MODE_NOT_SUPPORTED). */
  ownerOf(actor: Pick<PaymentsActor, 'merchantId' | 'mode'>): TestClockOwner {
    if (actor.mode !== 'test') {
      throw new PermissionError('INVALID_PERMISSIONS', [{ field: null, reason: 'MODE_NOT_SUPPORTED' }]);
    }
    return { merchantId: actor.merchantId, mode: 'test' };
  }

  /** A new clock; a console write's `audit` row (its targetId filled in here) shares its transaction. */
  create(
    owner: TestClockOwner,
    request: TestClockInput,
    options: AuditedWrite = {},
  ): Promise<TestClockWithStatus> {
    const id = randomUUID();
    return this.clocks.create(
      { id, merchantId: owner.merchantId, name: request.name ?? null, frozenTime: request.frozen_time },
      options.audit && { ...options.audit, targetId: id },
    );
  }

  /** A clock of the owner; a malformed id is the same 404 as an unknown one. */
  async find(owner: TestClockOwner, id: string): Promise<TestClockWithStatus> {
    const clock = isUuid(id) ? await this.clocks.find(owner.merchantId, id) : null;
    if (!clock) throw new NotFoundError('test_clock');
    return clock;
  }

  /** A page of the owner's clocks, with the total count on a first page. */
  async list(
    owner: TestClockOwner,
    page: PageRequest,
  ): Promise<{ rows: TestClockWithStatus[]; totalHits: number | null }> {
    const rows = await this.clocks.list(owner.merchantId, page);
    if (page.cursor !== null) return { rows, totalHits: null };
    return { rows, totalHits: await this.clocks.count(owner.merchantId) };
  }

  /**
   * Moves the clock, as find() read it, to a later time (at most MAX_TEST_CLOCK_ADVANCE_MS ahead of
   * its own); the engine then charges what falls due on it. A console write's `audit` row is
   * inserted in the move's transaction, only when the clock moved.
   */
  async advance(
    owner: TestClockOwner,
    clock: TestClockWithStatus,
    request: TestClockAdvanceInput,
    options: AuditedWrite = {},
  ): Promise<TestClockWithStatus> {
    const to = request.frozen_time;
    if (to.getTime() - clock.frozenTime.getTime() > MAX_TEST_CLOCK_ADVANCE_MS) {
      throw ValidationError.field('frozen_time', 'NOT_WITHIN_BOUNDS');
    }
    const result = await this.clocks.advance(owner.merchantId, clock.id, to, options.audit);
    switch (result.outcome) {
      case 'advanced':
        return this.find(owner, clock.id);
      case 'not_found':
        throw new NotFoundError('test_clock');
      case 'not_later':
        throw ValidationError.field('frozen_time', 'MUST_BE_FUTURE_TIME');
    }
  }

  /**
   * Deletes the clock and cancels its subscriptions that are not final; a console write's `audit`
   * row (its detail then says how many were canceled) shares the deletion's transaction.
   */
  async delete(
    owner: TestClockOwner,
    id: string,
    correlation: Correlation,
    options: AuditedWrite = {},
  ): Promise<{ canceled: number }> {
    if (!isUuid(id)) throw new NotFoundError('test_clock');
    const deleted = await this.clocks.delete(owner.merchantId, id, correlation.correlationId, options.audit);
    if (!deleted) throw new NotFoundError('test_clock');
    return deleted;
  }
}
