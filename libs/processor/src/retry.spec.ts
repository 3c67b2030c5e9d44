import {
  ProcessorRequestRejectedError,
  TransientProcessorError,
  classifyProcessorError,
} from './processor-errors';
import { backoffDelayMs, withProcessorRetries } from './retry';

const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };
const transient = () => new TransientProcessorError('authorize', 'server_error', 503);

describe('classifyProcessorError', () => {
  it('retries transient failures only', () => {
    expect(classifyProcessorError(new TransientProcessorError('authorize', 'timeout'))).toBe('retryable');
    expect(classifyProcessorError(new TransientProcessorError('capture', 'network'))).toBe('retryable');
    expect(
      classifyProcessorError(new ProcessorRequestRejectedError('refund', 400, 'invalid_request', 'x')),
    ).toBe('final');
    expect(classifyProcessorError(new TypeError('bug'))).toBe('final');
    expect(classifyProcessorError('weird')).toBe('final');
  });
});

describe('backoffDelayMs', () => {
  it('grows exponentially to the cap, with full jitter', () => {
    const top = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, policy, undefined, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelayMs(3, policy, undefined, () => 0)).toBe(0);
  });

  it("waits at least the processor's Retry-After, capped", () => {
    const slowDown = new TransientProcessorError('authorize', 'rate_limited', 429, 700);
    expect(backoffDelayMs(1, policy, slowDown, () => 0)).toBe(700);
    const tooLong = new TransientProcessorError('authorize', 'rate_limited', 429, 60_000);
    expect(backoffDelayMs(1, policy, tooLong, () => 0)).toBe(1_000);
  });
});

describe('withProcessorRetries', () => {
  const sleeps: number[] = [];
  const hooks = { sleep: (ms: number) => (sleeps.push(ms), Promise.resolve()), random: () => 0.5 };
  beforeEach(() => (sleeps.length = 0));

  it('retries transient failures with backoff until the call succeeds', async () => {
    let calls = 0;
    const result = await withProcessorRetries(
      () => (++calls < 3 ? Promise.reject(transient()) : Promise.resolve('approved')),
      policy,
      hooks,
    );
    expect(result).toBe('approved');
    expect(calls).toBe(3);
    expect(sleeps).toEqual([50, 100]);
  });

  it('stops at once on a final error', async () => {
    let calls = 0;
    const refused = new ProcessorRequestRejectedError('capture', 400, 'invalid_request', 'bad');
    await expect(withProcessorRetries(() => (calls++, Promise.reject(refused)), policy, hooks)).rejects.toBe(
      refused,
    );
    expect(calls).toBe(1);
  });

  it('gives up after the attempts with the last transient failure', async () => {
    let calls = 0;
    await expect(
      withProcessorRetries(() => (calls++, Promise.reject(transient())), policy, hooks),
    ).rejects.toBeInstanceOf(TransientProcessorError);
    expect(calls).toBe(4);
    expect(sleeps).toHaveLength(3);
  });
});
