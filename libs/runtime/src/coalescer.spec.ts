import { Coalescer } from './coalescer';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Lets pending callbacks, promise reactions and immediates run. */
async function settle() {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('Coalescer', () => {
  it('hands items submitted in one turn to one flush and answers each with its own result', async () => {
    const flushes: number[][] = [];
    const coalescer = new Coalescer<number, number>(
      (items) => {
        flushes.push(items);
        return Promise.resolve(items.map((item) => item * 10));
      },
      { maxItems: 100, maxInFlight: 1 },
    );
    const results = await Promise.all([1, 2, 3].map((n) => coalescer.submit(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(flushes).toEqual([[1, 2, 3]]);
  });

  it('gathers what arrives during a running flush into the next one, at most maxItems each', async () => {
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const flushes: string[][] = [];
    const coalescer = new Coalescer<string, string>(
      async (items) => {
        const gate = gates[flushes.length];
        flushes.push(items);
        await gate.promise;
        return items.map((item) => item.toUpperCase());
      },
      { maxItems: 2, maxInFlight: 1 },
    );
    const first = coalescer.submit('a');
    await settle();
    expect(flushes).toEqual([['a']]);
    const later = ['b', 'c', 'd'].map((item) => coalescer.submit(item));
    await settle();
    expect(flushes).toHaveLength(1); // one flush at a time
    gates[0].resolve();
    expect(await first).toBe('A');
    await settle();
    expect(flushes[1]).toEqual(['b', 'c']);
    gates[1].resolve();
    gates[2].resolve();
    expect(await Promise.all(later)).toEqual(['B', 'C', 'D']);
    expect(flushes).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('rejects every item of a failed flush and goes on with the next', async () => {
    let fail = true;
    const coalescer = new Coalescer<number, number>(
      (items) => {
        if (fail) {
          fail = false;
          return Promise.reject(new Error('database gone'));
        }
        return Promise.resolve(items);
      },
      { maxItems: 10, maxInFlight: 1 },
    );
    const failed = [coalescer.submit(1), coalescer.submit(2)];
    await expect(failed[0]).rejects.toThrow('database gone');
    await expect(failed[1]).rejects.toThrow('database gone');
    expect(await coalescer.submit(3)).toBe(3);
  });
});
