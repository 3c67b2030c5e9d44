import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TestClocksRepository } from '@kessai/db';
import {
  isUuid,
  MAX_TEST_CLOCK_ADVANCE_MS,
  NotFoundError,
  PermissionError,
  ValidationError,
} from '@kessai/domain';
import { parsePageRequest, presentPage } from '../http/pagination';
import { presentTestClock } from '@kessai/presenters';
import type { Principal } from '../auth/principal';
import type { Correlation } from '@kessai/observability';
import { parseInput } from '../http/validation';
import { advanceTestClockSchema, createTestClockSchema } from './test-clock.schemas';

/**
 * Test clocks (Kessai's extension; docs/subscriptions.md "Test clocks"): a test-mode merchant's
 * frozen "now" that subscriptions created on it live on. Test-mode credentials only; a merchant's
 * clocks are seen by all its tokens (store tokens included).
 */
@Injectable()
export class TestClocksService {
  constructor(private readonly clocks: TestClocksRepository) {}

  async create(principal: Principal, body: unknown) {
    testModeOnly(principal);
    const request = parseInput(createTestClockSchema, body);
    const clock = await this.clocks.create({
      id: randomUUID(),
      merchantId: principal.merchantId,
      name: request.name ?? null,
      frozenTime: request.frozen_time,
    });
    return presentTestClock(clock);
  }

  async get(principal: Principal, id: string) {
    testModeOnly(principal);
    return presentTestClock(await this.find(principal, id));
  }

  async list(principal: Principal, query: Record<string, unknown>) {
    testModeOnly(principal);
    const page = parsePageRequest(query);
    const rows = await this.clocks.list(principal.merchantId, page);
    const totalHits = page.cursor !== null ? null : await this.clocks.count(principal.merchantId);
    return presentPage(rows, page, presentTestClock, totalHits);
  }

  /** Moves the clock to a later time (at most MAX_TEST_CLOCK_ADVANCE_MS ahead). */
  async advance(principal: Principal, id: string, body: unknown) {
    testModeOnly(principal);
    const clock = await this.find(principal, id);
    const request = parseInput(advanceTestClockSchema, body);
    const to = request.frozen_time;
    if (to.getTime() - clock.frozenTime.getTime() > MAX_TEST_CLOCK_ADVANCE_MS) {
      throw ValidationError.field('frozen_time', 'NOT_WITHIN_BOUNDS');
    }
    const result = await this.clocks.advance(principal.merchantId, id, to);
    switch (result.outcome) {
      case 'advanced':
        return presentTestClock(await this.find(principal, id));
      case 'not_found':
        throw new NotFoundError('test_clock');
      case 'not_later':
        throw ValidationError.field('frozen_time', 'MUST_BE_FUTURE_TIME');
    }
  }

  /** Deletes the clock and cancels its subscriptions that are not final. */
  async delete(principal: Principal, id: string, context: Correlation): Promise<void> {
    testModeOnly(principal);
    if (!isUuid(id)) throw new NotFoundError('test_clock');
    const deleted = await this.clocks.delete(principal.merchantId, id, context.correlationId);
    if (!deleted) throw new NotFoundError('test_clock');
  }

  private async find(principal: Principal, id: string) {
    const clock = isUuid(id) ? await this.clocks.find(principal.merchantId, id) : null;
    if (!clock) throw new NotFoundError('test_clock');
    return clock;
  }
}

/** Live mode never sees a test clock. */
function testModeOnly(principal: Principal): void {
  if (principal.mode !== 'test') {
    throw new PermissionError('INVALID_PERMISSIONS', [{ field: null, reason: 'MODE_NOT_SUPPORTED' }]);
  }
}
