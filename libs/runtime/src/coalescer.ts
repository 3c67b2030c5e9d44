export interface CoalescerOptions {
  /** items handed to one flush at most */
  maxItems: number;
  /** flushes running at once at most; further items wait and join the next flush */
  maxInFlight: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns many concurrent calls into few: items submitted in the same turn of the event loop, or
 * while `maxInFlight` flushes are running, go to one `flush` call together. `flush` answers with one
 * result per item, in order; when it throws, every item of that flush is rejected with the error.
 * Under light load an item waits one event-loop turn; under heavy load, about one flush.
 */
export class Coalescer<I, O> {
  readonly #waiting: Waiting<I, O>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly options: CoalescerOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.options.maxInFlight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#run();
    });
  }

  #run(): void {
    while (this.#waiting.length > 0 && this.#inFlight < this.options.maxInFlight) {
      const batch = this.#waiting.splice(0, this.options.maxItems);
      this.#inFlight++;
      this.flush(batch.map((waiting) => waiting.item))
        .then(
          (results) => batch.forEach((waiting, i) => waiting.resolve(results[i])),
          (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
        )
        .finally(() => {
          this.#inFlight--;
          if (this.#waiting.length > 0) this.#schedule();
        });
    }
  }
}
