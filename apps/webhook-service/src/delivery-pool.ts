/** What `DeliveryPool.run` answers: the task's value, or `ran: false` when it waited too long to start. */
export type PoolOutcome<T> = { ran: true; value: T } | { ran: false };

interface Queued {
  start: () => void;
  giveUp: () => void;
  timer: NodeJS.Timeout;
}

export interface DeliveryPoolOptions {
  /** tasks running at once for one endpoint */
  perEndpoint: number;
  /** tasks running at once, all endpoints together */
  global: number;
  /** how long a task waits to start before it is given up (`ran: false`) */
  waitMs: number;
}

/**
 * The tries in flight in one webhook-service process (docs/webhooks.md, "Isolation"): at most
 * `perEndpoint` per webhook and `global` in all. A try over either bound waits in its endpoint's
 * queue, first in first out; endpoints take the free global slots in turn, so a busy endpoint does
 * not starve a quiet one; a try that has not started within `waitMs` is given up (its job puts it
 * back as a delayed job). A slow or dead endpoint thus holds at most `perEndpoint` slots, each for
 * at most the timeout of a try, and the tries waiting for it hold none.
 */
export class DeliveryPool {
  /** the endpoints with waiting tries, in the order they are served */
  readonly #queues = new Map<string, Queued[]>();
  readonly #running = new Map<string, number>();
  #total = 0;

  constructor(private readonly options: DeliveryPoolOptions) {}

  run<T>(endpoint: string, task: () => Promise<T>): Promise<PoolOutcome<T>> {
    return new Promise<PoolOutcome<T>>((resolve, reject) => {
      const queued: Queued = {
        start: () => {
          clearTimeout(queued.timer);
          this.#take(endpoint);
          // the slot is free again before the task's caller hears of its end
          task().then(
            (value) => {
              this.#release(endpoint);
              resolve({ ran: true, value });
            },
            (error: unknown) => {
              this.#release(endpoint);
              reject(error instanceof Error ? error : new Error(String(error)));
            },
          );
        },
        giveUp: () => resolve({ ran: false }),
        timer: setTimeout(() => this.#giveUp(endpoint, queued), this.options.waitMs),
      };
      const queue = this.#queues.get(endpoint);
      if (queue) queue.push(queued);
      else this.#queues.set(endpoint, [queued]);
      this.#pump();
    });
  }

  /** Tries running for `endpoint` now. */
  running(endpoint: string): number {
    return this.#running.get(endpoint) ?? 0;
  }

  /** Tries waiting for any endpoint now. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.#queues.values()) count += queue.length;
    return count;
  }

  #take(endpoint: string) {
    this.#total++;
    this.#running.set(endpoint, this.running(endpoint) + 1);
  }

  #release(endpoint: string) {
    this.#total--;
    const left = this.running(endpoint) - 1;
    if (left <= 0) this.#running.delete(endpoint);
    else this.#running.set(endpoint, left);
    this.#pump();
  }

  #giveUp(endpoint: string, queued: Queued) {
    const queue = this.#queues.get(endpoint);
    const at = queue?.indexOf(queued) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.#queues.delete(endpoint);
    queued.giveUp();
  }

  /** Starts waiting tries while global slots are free: one per endpoint in turn, each within its bound. */
  #pump() {
    while (this.#total < this.options.global) {
      let started = false;
      for (const [endpoint, queue] of this.#queues) {
        if (this.#total >= this.options.global) return;
        if (this.running(endpoint) >= this.options.perEndpoint) continue;
        const next = queue.shift();
        // served: to the back of the turn (a Map keeps insertion order)
        this.#queues.delete(endpoint);
        if (queue.length > 0) this.#queues.set(endpoint, queue);
        if (next) {
          next.start();
          started = true;
        }
      }
      if (!started) return;
    }
  }
}
