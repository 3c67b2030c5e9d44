// The chaos suite's load: what merchants do, bounded in count, paced so that it spans the faults.
// Each flow remembers what the API accepted, for the reconciliation.
import { setTimeout as sleep } from 'node:timers/promises';
import { GaveUpError, UnresolvedKeyError, type ChaosClient } from './client';

const DECLINED_CARD = '4111111111111111';

/** How an accepted charge must end: one status, or either of two when a crash hid the answer. */
export type ChargeExpectation =
  'successful' | 'failed' | 'authorized' | 'canceled' | 'authorized or successful' | 'authorized or canceled';

/** What the API accepted, by kind: each must end final, once, with its webhook. */
export interface Accepted {
  /** POST /charges answered 201: charge id → what its flow expects of it */
  charges: Map<string, ChargeExpectation>;
  /** POST …/refunds answered 201: refund id → its charge */
  refunds: Map<string, string>;
  /** POST …/capture answered 200: charge ids */
  captures: Set<string>;
  /** POST …/cancels answered 201: cancel id → its charge */
  cancels: Map<string, string>;
  /** POST /subscriptions answered 201 */
  subscriptions: Set<string>;
  /** the test clock's advances the API took, and where it stands */
  clockAdvances: number;
}

export interface FlowStats {
  done: number;
  /** retried past the client's patience (the API unavailable that long) */
  gaveUp: number;
  /** cut off by a crash inside the gateway: the key stays in progress, the outcome unknown */
  unresolved: number;
  /** anything else: an answer the flow did not expect */
  failed: string[];
}

export interface LoadReport {
  accepted: Accepted;
  flows: Record<string, FlowStats>;
}

/**
 * Bounds of the load: at most so many flows of each kind (the loops run until the faults are done
 * or their count is reached), and the pause between two flows of one loop, which spreads them over
 * the faults (about two minutes).
 */
export const LOAD = {
  cardCharges: 240,
  authorizations: 80,
  refundedCharges: 30,
  refundsPerCharge: 3,
  subscriptions: 8,
  clockAdvances: 24,
  pauseMs: 1_000,
};

export class ChaosLoad {
  readonly accepted: Accepted = {
    charges: new Map(),
    refunds: new Map(),
    captures: new Set(),
    cancels: new Map(),
    subscriptions: new Set(),
    clockAdvances: 0,
  };
  readonly flows: LoadReport['flows'] = {};
  #running: Promise<void>[] = [];
  #stop = false;
  clockId = '';
  clockTime = new Date('2026-01-31T03:00:00Z');

  constructor(
    readonly api: ChaosClient,
    readonly storeId: string,
  ) {}

  /** Starts every loop; `stop` ends them (each finishes the flow it is in). */
  start(): void {
    const loops: Array<[string, number, (i: number) => Promise<void>]> = [
      ['card charge', LOAD.cardCharges / 2, (i) => this.cardCharge(i)],
      ['card charge', LOAD.cardCharges / 2, (i) => this.cardCharge(i + 1)],
      ['auth + capture or cancel', LOAD.authorizations, (i) => this.authorization(i)],
      ['concurrent partial refunds', LOAD.refundedCharges, () => this.refunds()],
      ['subscriptions on a test clock', 1, () => this.subscriptions()],
    ];
    this.#running = loops.map(([name, count, flow]) => this.loop(name, count, flow));
  }

  /** Ends the loops (no new flow starts); resolves once every flow in progress ended. */
  async stop(): Promise<LoadReport> {
    this.#stop = true;
    await Promise.all(this.#running);
    return { accepted: this.accepted, flows: this.flows };
  }

  /** Flows ended so far, however they ended. */
  progress(): number {
    return Object.values(this.flows).reduce(
      (sum, flow) => sum + flow.done + flow.gaveUp + flow.unresolved + flow.failed.length,
      0,
    );
  }

  private async loop(name: string, count: number, flow: (i: number) => Promise<void>) {
    const stats = (this.flows[name] ??= { done: 0, gaveUp: 0, unresolved: 0, failed: [] });
    for (let i = 0; i < count && !this.#stop; i++) {
      try {
        await flow(i);
        stats.done++;
      } catch (error) {
        if (error instanceof GaveUpError) stats.gaveUp++;
        else if (error instanceof UnresolvedKeyError) stats.unresolved++;
        else stats.failed.push(error instanceof Error ? error.message : String(error));
      }
      await sleep(LOAD.pauseMs * (0.5 + Math.random()));
    }
  }

  private async charge(tokenId: string, amount: number, extra: Record<string, unknown> = {}) {
    const { body } = await this.api.call(
      'POST',
      '/charges',
      { transaction_token_id: tokenId, amount, currency: 'JPY', ...extra },
      { expect: [201] },
    );
    return String(body.id);
  }

  /** GET the charge (long polling) until its status is one of `statuses`. */
  private async chargeUntil(chargeId: string, statuses: string[]) {
    for (;;) {
      const { body } = await this.api.call('GET', `/stores/${this.storeId}/charges/${chargeId}?polling=true`);
      if (statuses.includes(body.status)) return String(body.status);
      if (!['pending', 'awaiting'].includes(body.status)) {
        throw new Error(`charge ${chargeId} is ${body.status}, expected ${statuses.join(' or ')}`);
      }
      if (this.api.stopped) throw new GaveUpError(`charge ${chargeId} still ${body.status}`);
    }
  }

  /** A card charge, captured at once; one in ten declined. */
  private async cardCharge(i: number) {
    const declined = i % 10 === 0;
    const chargeId = await this.charge(
      await this.api.cardToken('one_time', declined ? DECLINED_CARD : undefined),
      1000 + i,
    );
    this.accepted.charges.set(chargeId, declined ? 'failed' : 'successful');
  }

  /** An authorization, then its capture (even i) or its cancel (odd i). */
  private async authorization(i: number) {
    const chargeId = await this.charge(await this.api.cardToken('one_time'), 2000 + i, { capture: false });
    this.accepted.charges.set(chargeId, 'authorized');
    await this.chargeUntil(chargeId, ['authorized']);
    // a capture or cancel whose answer a crash cut off may have happened or not
    const next = i % 2 === 0 ? 'successful' : 'canceled';
    this.accepted.charges.set(chargeId, `authorized or ${next}`);
    if (i % 2 === 0) {
      await this.api.call('POST', `/stores/${this.storeId}/charges/${chargeId}/capture`, {
        amount: 2000 + i,
        currency: 'JPY',
      });
      this.accepted.captures.add(chargeId);
      this.accepted.charges.set(chargeId, 'successful');
    } else {
      const { body } = await this.api.call(
        'POST',
        `/stores/${this.storeId}/charges/${chargeId}/cancels`,
        {},
        { expect: [201] },
      );
      this.accepted.cancels.set(String(body.id), chargeId);
      this.accepted.charges.set(chargeId, 'canceled');
    }
  }

  /** A charge of 3,000 JPY, then three partial refunds of 1,000 at once (each under its own key). */
  private async refunds() {
    const chargeId = await this.charge(await this.api.cardToken('one_time'), 3000);
    this.accepted.charges.set(chargeId, 'successful');
    await this.chargeUntil(chargeId, ['successful']);
    await Promise.all(
      Array.from({ length: LOAD.refundsPerCharge }, async () => {
        const { body } = await this.api.call(
          'POST',
          `/stores/${this.storeId}/charges/${chargeId}/refunds`,
          { amount: 3000 / LOAD.refundsPerCharge, currency: 'JPY', reason: 'customer_request' },
          { expect: [201] },
        );
        this.accepted.refunds.set(String(body.id), chargeId);
      }),
    );
  }

  /**
   * A test clock with monthly subscriptions on it, then the clock advanced a month at a time, each
   * advance awaited until the engine settled what fell due (the clock ready again).
   */
  private async subscriptions() {
    const { body: clock } = await this.api.call(
      'POST',
      '/test_clocks',
      { frozen_time: this.clockTime.toISOString() },
      { expect: [201] },
    );
    this.clockId = String(clock.id);
    await Promise.all(
      Array.from({ length: LOAD.subscriptions }, async (_, i) => {
        const { body } = await this.api.call(
          'POST',
          '/subscriptions',
          {
            transaction_token_id: await this.api.cardToken('subscription'),
            amount: 500 + i,
            currency: 'JPY',
            period: 'monthly',
            test_clock_id: this.clockId,
          },
          { expect: [201] },
        );
        this.accepted.subscriptions.add(String(body.id));
      }),
    );
    await this.clockReady();
    for (let month = 1; month <= LOAD.clockAdvances && !this.#stop; month++) {
      const next = new Date(this.clockTime);
      next.setUTCMonth(next.getUTCMonth() + 1);
      await this.advanceClock(next);
      this.clockTime = next;
      this.accepted.clockAdvances = month;
      await this.clockReady();
      await sleep(LOAD.pauseMs * 3);
    }
  }

  /**
   * POST …/advance; when a crash left its key in progress, the clock says whether it moved, and a
   * new key asks again if it did not.
   */
  private async advanceClock(to: Date) {
    for (;;) {
      try {
        await this.api.call('POST', `/test_clocks/${this.clockId}/advance`, {
          frozen_time: to.toISOString(),
        });
        return;
      } catch (error) {
        if (!(error instanceof UnresolvedKeyError)) throw error;
        const { body } = await this.api.call('GET', `/test_clocks/${this.clockId}`);
        if (new Date(String(body.frozen_time)).getTime() >= to.getTime()) return;
      }
    }
  }

  private async clockReady() {
    for (;;) {
      const { body } = await this.api.call('GET', `/test_clocks/${this.clockId}`);
      if (body.status === 'ready') return;
      if (this.api.stopped) throw new GaveUpError(`test clock ${this.clockId} still ${body.status}`);
      await sleep(200);
    }
  }
}
