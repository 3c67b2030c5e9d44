import { ScrapeCache } from './scrape-cache';

describe('ScrapeCache', () => {
  it('reads once per ttl however often it is asked, and afresh after', async () => {
    let now = 1_000;
    let reads = 0;
    const cache = new ScrapeCache(
      () => Promise.resolve(++reads),
      { ttlMs: 5_000, timeoutMs: 1_000 },
      () => now,
    );
    expect(await cache.get()).toBe(1);
    now += 4_999;
    expect(await cache.get()).toBe(1);
    now += 1;
    expect(await cache.get()).toBe(2);
    expect(reads).toBe(2);
  });

  it('shares one read between concurrent scrapes', async () => {
    let reads = 0;
    let finish!: (value: number) => void;
    const cache = new ScrapeCache(
      () => {
        reads++;
        return new Promise<number>((resolve) => (finish = resolve));
      },
      { ttlMs: 5_000, timeoutMs: 1_000 },
    );
    const both = Promise.all([cache.get(), cache.get()]);
    finish(7);
    expect(await both).toEqual([7, 7]);
    expect(reads).toBe(1);
  });

  it('gives up on a read past the timeout, keeps no failure, and reads again next time', async () => {
    let hang = true;
    const cache = new ScrapeCache(() => (hang ? new Promise<number>(() => {}) : Promise.resolve(3)), {
      ttlMs: 5_000,
      timeoutMs: 20,
    });
    await expect(cache.get()).rejects.toThrow('timed out after 20 ms');
    hang = false;
    expect(await cache.get()).toBe(3);
  });
});
