import type { AdvanceOutcome, TestClocksRepository, TestClockWithStatus } from '@kessai/db';
import { MAX_TEST_CLOCK_ADVANCE_MS, NotFoundError, PermissionError } from '@kessai/domain';
import { TestClocksService } from './test-clocks.service';

// The test clock rules of TestClocksService on an in-memory repository: test mode only, a later
// time at most MAX_TEST_CLOCK_ADVANCE_MS ahead. The engine that charges on the clock's time is
// subscription-service's (test/test-clocks.e2e-spec.ts).

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const CLOCK = '00000000-0000-4000-8000-0000000000c1';
const frozenTime = new Date('2030-01-01T00:00:00Z');
const later = (ms: number) => ({ frozen_time: new Date(frozenTime.getTime() + ms) });

class FakeClocks {
  clock = { id: CLOCK, merchantId: MERCHANT, frozenTime, status: 'ready' } as TestClockWithStatus;
  outcome: AdvanceOutcome['outcome'] = 'advanced';
  advancedTo: Date[] = [];

  readonly repository: Partial<TestClocksRepository> = {
    find: (merchantId: string, id: string) =>
      Promise.resolve(merchantId === MERCHANT && id === CLOCK ? this.clock : null),
    advance: (_merchantId: string, _id: string, to: Date) => {
      this.advancedTo.push(to);
      return Promise.resolve({ outcome: this.outcome, frozenTime } as AdvanceOutcome);
    },
  };
}

describe('TestClocksService', () => {
  let fakes: FakeClocks;
  let clocks: TestClocksService;
  const owner = { merchantId: MERCHANT, mode: 'test' as const };

  beforeEach(() => {
    fakes = new FakeClocks();
    clocks = new TestClocksService(fakes.repository as TestClocksRepository);
  });

  it('is for test mode only: a live credential is refused with MODE_NOT_SUPPORTED', () => {
    expect(clocks.ownerOf({ merchantId: MERCHANT, mode: 'test' })).toEqual(owner);
    expect(() => clocks.ownerOf({ merchantId: MERCHANT, mode: 'live' })).toThrow(PermissionError);
  });

  it('answers a malformed or unknown clock as not found', async () => {
    await expect(clocks.find(owner, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(clocks.find(owner, '00000000-0000-4000-8000-0000000000c2')).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('moves a clock at most MAX_TEST_CLOCK_ADVANCE_MS ahead of its own time', async () => {
    await clocks.advance(owner, fakes.clock, later(MAX_TEST_CLOCK_ADVANCE_MS));
    await expect(
      clocks.advance(owner, fakes.clock, later(MAX_TEST_CLOCK_ADVANCE_MS + 1)),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'frozen_time', reason: 'NOT_WITHIN_BOUNDS' }],
    });
    expect(fakes.advancedTo).toHaveLength(1);
  });

  it('refuses a time that is not later, as the statement decided', async () => {
    fakes.outcome = 'not_later';
    await expect(clocks.advance(owner, fakes.clock, later(0))).rejects.toMatchObject({
      errors: [{ field: 'frozen_time', reason: 'MUST_BE_FUTURE_TIME' }],
    });
  });
});
