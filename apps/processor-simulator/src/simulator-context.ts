import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type ApplePayTestKeys } from './apple-pay';
import { type CallbackDelivery } from './callback-delivery';
import { type SimulatorState } from './simulator-state';

/** The simulator's tunable behaviour, defaults filled in (see ProcessorSimulatorOptions). */
export interface SimulatorSettings {
  /** added before every /v1 answer, to make timing realistic */
  latencyMs: number;
  /** a random extra delay of up to this many ms */
  latencyJitterMs: number;
  /** how long the timeout card's first answer is held back; set it above the client's timeout */
  timeoutHoldMs: number;
  /** how many attempts the 5xx card answers 503 before it is processed */
  unavailableAttempts: number;
  /** how long an operator payment may stay unpaid before it expires */
  operatorPaymentTtlMs: number;
  callbackMaxAttempts: number;
  /** delay before the 2nd callback attempt, doubled for each later one */
  callbackRetryBaseDelayMs: number;
  callbackTimeoutMs: number;
}

/** What every group of routes shares: the memory, the settings, outgoing notices and timers. */
export interface SimulatorContext {
  readonly state: SimulatorState;
  readonly settings: SimulatorSettings;
  readonly callbacks: CallbackDelivery;
  readonly timers: SimulatorTimers;
  /** the Apple Pay test merchant's and test wallet's keys */
  readonly applePay: ApplePayTestKeys;
  /** known once the server listens */
  publicBaseUrl(): string;
}

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handle: (
    request: IncomingMessage,
    response: ServerResponse,
    params: string[],
    url: URL,
  ) => Promise<void> | void;
}

/** Timers that must not outlive the simulator: held answers and operator payment expiries. */
export class SimulatorTimers {
  readonly #held = new Set<NodeJS.Timeout>();
  readonly #expiries = new Map<string, NodeJS.Timeout>();

  hold(delayMs: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.#held.delete(timer);
      then();
    }, delayMs);
    this.#held.add(timer);
  }

  expireLater(paymentId: string, delayMs: number, expire: () => void): void {
    const timer = setTimeout(() => {
      this.#expiries.delete(paymentId);
      expire();
    }, delayMs);
    timer.unref();
    this.#expiries.set(paymentId, timer);
  }

  cancelExpiry(paymentId: string): void {
    clearTimeout(this.#expiries.get(paymentId));
    this.#expiries.delete(paymentId);
  }

  clearExpiries(): void {
    for (const timer of this.#expiries.values()) clearTimeout(timer);
    this.#expiries.clear();
  }

  clearAll(): void {
    this.clearExpiries();
    for (const timer of this.#held) clearTimeout(timer);
    this.#held.clear();
  }
}
