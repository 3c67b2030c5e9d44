import { nextAttemptDelayMs, type RetrySchedule } from './retry-schedule';

const DEFAULTS: RetrySchedule = {
  WEBHOOK_MAX_ATTEMPTS: 12,
  WEBHOOK_RETRY_BASE_MS: 30_000,
  WEBHOOK_RETRY_FACTOR: 4,
  WEBHOOK_RETRY_MAX_DELAY_MS: 12 * 3_600_000,
  WEBHOOK_RETRY_JITTER: 0.25,
};

describe('webhook retry schedule', () => {
  const middle = () => 0.5; // no jitter

  it('defaults: the first retry within a minute, 12 tries spanning about three days', () => {
    const delays = Array.from({ length: 11 }, (_, i) => nextAttemptDelayMs(DEFAULTS, i + 1, middle) ?? 0);
    expect(delays.map((ms) => ms / 60_000)).toEqual([0.5, 2, 8, 32, 128, 512, 720, 720, 720, 720, 720]);
    const hours = delays.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(70);
    expect(hours).toBeLessThan(72);
    expect(nextAttemptDelayMs(DEFAULTS, 12, middle)).toBeNull();
  });

  it('jitter spreads each delay by at most ± the configured share', () => {
    expect(nextAttemptDelayMs(DEFAULTS, 1, () => 0)).toBe(22_500);
    expect(nextAttemptDelayMs(DEFAULTS, 1, () => 0.999_999)).toBeLessThanOrEqual(37_500);
    for (let i = 0; i < 100; i++) {
      const delay = nextAttemptDelayMs(DEFAULTS, 1) ?? 0;
      expect(delay).toBeGreaterThanOrEqual(22_500);
      expect(delay).toBeLessThanOrEqual(37_500);
    }
  });
});
