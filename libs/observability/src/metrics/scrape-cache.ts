export interface ScrapeCacheOptions {
  /** how long a reading is served again before the next scrape reads afresh */
  ttlMs: number;
  /** a reading that takes longer fails (the scrape answers without it rather than hang) */
  timeoutMs: number;
}

/**
 * A value read for a scrape from a dependency (queue counts from Redis, the outbox backlog from
 * Postgres): read at most once per `ttlMs` however many scrapers ask, concurrent scrapes sharing
 * one read, and never waited on past `timeoutMs`. A failed read is not kept: the next scrape tries
 * again.
 */
export class ScrapeCache<T> {
  #value: { at: number; value: T } | undefined;
  #reading: Promise<T> | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly options: ScrapeCacheOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    const cached = this.#value;
    if (cached && this.now() - cached.at < this.options.ttlMs) return Promise.resolve(cached.value);
    this.#reading ??= this.#readWithin().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #readWithin(): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`metrics reading timed out after ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      timer.unref();
    });
    try {
      const value = await Promise.race([this.read(), timeout]);
      this.#value = { at: this.now(), value };
      return value;
    } finally {
      clearTimeout(timer);
    }
  }
}
