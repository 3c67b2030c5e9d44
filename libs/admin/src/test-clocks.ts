import { randomUUID } from 'node:crypto';
import type { MerchantsRepository, TestClocksRepository, TestClockWithStatus } from '@kessai/db';
import { MAX_TEST_CLOCK_ADVANCE_MS } from '@kessai/domain';
import { presentTestClock } from '@kessai/presenters';
import { AdminError } from './admin.service';

/**
 * Test clocks from the admin CLI (docs/subscriptions.md, "Test clocks"): the operator's way to the
 * same clocks as POST /test_clocks, with the same rules (a later time, at most five years ahead).
 */
export interface TestClockRepositories {
  merchants: MerchantsRepository;
  testClocks: TestClocksRepository;
}

/** The clock as the API presents it (libs/presenters), with its merchant for the operator. */
export function describeTestClock(clock: TestClockWithStatus) {
  return { ...presentTestClock(clock), merchant_id: clock.merchantId };
}

function instant(text: string, flag: string): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at.getTime()))
    throw new AdminError(`--${flag} must be an ISO 8601 instant, e.g. 2025-01-31T03:00:00Z`);
  return at;
}

export async function createTestClock(
  repositories: TestClockRepositories,
  input: { merchantId: string; time: string; name?: string },
) {
  if (!(await repositories.merchants.findById(input.merchantId)))
    throw new AdminError(`no merchant ${input.merchantId}`);
  const clock = await repositories.testClocks.create({
    id: randomUUID(),
    merchantId: input.merchantId,
    name: input.name ?? null,
    frozenTime: instant(input.time, 'time'),
  });
  return describeTestClock(clock);
}

export async function showTestClock(repositories: TestClockRepositories, merchantId: string, id: string) {
  const clock = await repositories.testClocks.find(merchantId, id);
  if (!clock) throw new AdminError(`no test clock ${id} of merchant ${merchantId}`);
  return describeTestClock(clock);
}

/** Moves the clock later; the engine then charges what falls due on it (`status` advancing → ready). */
export async function advanceTestClock(
  repositories: TestClockRepositories,
  input: { merchantId: string; id: string; time: string },
) {
  const clock = await repositories.testClocks.find(input.merchantId, input.id);
  if (!clock) throw new AdminError(`no test clock ${input.id} of merchant ${input.merchantId}`);
  const to = instant(input.time, 'time');
  if (to.getTime() - clock.frozenTime.getTime() > MAX_TEST_CLOCK_ADVANCE_MS)
    throw new AdminError('--time may be at most five years after the clock’s time');
  const result = await repositories.testClocks.advance(input.merchantId, input.id, to);
  if (result.outcome === 'not_later')
    throw new AdminError(`--time must be later than the clock's ${result.frozenTime.toISOString()}`);
  return showTestClock(repositories, input.merchantId, input.id);
}
