import {
  PROCESSOR_SIGNATURE_HEADER,
  type ProcessorCallbackWire,
  signProcessorCallback,
} from '@kessai/processor';
import { type SimulatorCallbackStats } from './simulator-state';

export interface CallbackDeliveryOptions {
  secret: string;
  maxAttempts: number;
  /** delay before the 2nd attempt; doubled for each later one */
  retryBaseDelayMs: number;
  timeoutMs: number;
}

/**
 * Posts signed notices to the URL a payment named, retrying a failed attempt (non-2xx or no
 * answer) with doubling delays, as operators do. Every attempt of one notice carries the same `id`
 * so the receiver can process it once.
 */
export class CallbackDelivery {
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<AbortController>();
  #closed = false;

  constructor(
    private readonly options: CallbackDeliveryOptions,
    private readonly record: (stats: SimulatorCallbackStats) => void,
  ) {}

  deliver(url: string, notice: ProcessorCallbackWire): void {
    const stats: SimulatorCallbackStats = {
      notificationId: notice.id,
      event: notice.event,
      reference: notice.reference,
      status: notice.status,
      url,
      attempts: 0,
      delivered: false,
      lastStatus: null,
    };
    this.record(stats);
    this.#schedule(0, () => this.#attempt(url, JSON.stringify(notice), stats));
  }

  async #attempt(url: string, body: string, stats: SimulatorCallbackStats): Promise<void> {
    if (this.#closed) return;
    stats.attempts += 1;
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), this.options.timeoutMs);
    this.#inFlight.add(controller);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [PROCESSOR_SIGNATURE_HEADER]: signProcessorCallback(body, this.options.secret),
        },
        body,
        signal: controller.signal,
      });
      stats.lastStatus = response.status;
      await response.arrayBuffer();
      stats.delivered = response.ok;
    } catch {
      stats.lastStatus = null;
    } finally {
      clearTimeout(timeout);
      this.#inFlight.delete(controller);
    }
    if (!stats.delivered && stats.attempts < this.options.maxAttempts) {
      const delay = this.options.retryBaseDelayMs * 2 ** (stats.attempts - 1);
      this.#schedule(delay, () => this.#attempt(url, body, stats));
    }
  }

  #schedule(delayMs: number, run: () => Promise<void>): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void run();
    }, delayMs);
    this.#timers.add(timer);
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const controller of this.#inFlight) controller.abort();
  }
}
