import type { TestClockWithStatus } from '@kessai/db';

/**
 * A test clock (Kessai's extension, docs/subscriptions.md "Test clocks"). `status` is computed:
 * `advancing` while a payment on the clock is due at its time or has its charge in flight.
 */
export function presentTestClock(clock: TestClockWithStatus) {
  return {
    id: clock.id,
    object: 'test_clock',
    name: clock.name,
    frozen_time: clock.frozenTime.toISOString(),
    status: clock.status,
    created_on: clock.createdOn.toISOString(),
    updated_on: clock.updatedOn.toISOString(),
  };
}
