/**
 * The refunds phase of bench/charges.bench.ts: full refunds of the measured window's successful
 * charges through POST /stores/{id}/charges/{id}/refunds, closed loop for a window of its own, then
 * every accepted refund awaited until final (refund-cancel-service, the processor simulator). Its
 * figures mirror the charges': accepted/s from the client, refunds reaching a final status per
 * second and accept → final latency (`refunds.created_on` → its `refund_finished` event) from the
 * database, end to end = the window's refunds ÷ (window start → last one final).
 */
import type { Client } from 'pg';
import { scalar, waitUntil } from './db-helpers';
import { runRequestLoad, type LoadResult } from './load';

export interface RefundableCharge {
  chargeId: string;
  storeId: string;
  amount: number;
  currency: string;
}

/** The successful charges created in [from, to), oldest first: what the phase refunds. */
export async function refundableCharges(db: Client, from: Date, to: Date): Promise<RefundableCharge[]> {
  const { rows } = await db.query<{ id: string; store_id: string; amount: string; currency: string }>(
    `SELECT id::text, store_id::text, charged_amount AS amount, charged_currency AS currency FROM charges
      WHERE created_on >= $1 AND created_on < $2 AND status = 'successful'
        AND refund_reserved_amount = 0
      ORDER BY created_on`,
    [from, to],
  );
  return rows.map((row) => ({
    chargeId: row.id,
    storeId: row.store_id,
    amount: Number(row.amount),
    currency: row.currency.trim(),
  }));
}

export interface RefundRun {
  load: LoadResult;
  startedAt: Date;
  endedAt: Date;
  /** every charge was refunded before the window ended */
  exhausted: boolean;
}

/**
 * Closed loop over `charges` (one full refund each) from `concurrency` connections for `durationMs`,
 * with each store's own credential (`authOf`); a 429 puts the charge back for a later request.
 */
export async function driveRefunds(options: {
  gateways: string[];
  charges: RefundableCharge[];
  authOf: (storeId: string) => string;
  concurrency: number;
  durationMs: number;
}): Promise<RefundRun> {
  let queue = [...options.charges].reverse();
  /** refused by the rate limiter: asked again once the others have had their turn */
  let later: RefundableCharge[] = [];
  const byId = new Map(options.charges.map((charge) => [charge.chargeId, charge]));
  let exhausted = false;
  const startedAt = new Date();
  const load = await runRequestLoad({
    concurrency: options.concurrency,
    durationMs: options.durationMs,
    next: (worker) => {
      if (queue.length === 0) [queue, later] = [later.reverse(), []];
      const charge = queue.pop();
      if (!charge) {
        exhausted = true;
        return null;
      }
      return {
        url: `${options.gateways[worker % options.gateways.length]}/stores/${charge.storeId}/charges/${charge.chargeId}/refunds`,
        method: 'POST',
        headers: { authorization: options.authOf(charge.storeId), 'x-bench-charge': charge.chargeId },
        json: { amount: charge.amount, currency: charge.currency, reason: 'customer_request' },
      };
    },
    answered: (request, answer) => {
      if (answer.status === 429) {
        const charge = byId.get(request.headers?.['x-bench-charge'] ?? '');
        if (charge) later.push(charge);
      }
    },
  });
  return { load, startedAt, endedAt: new Date(), exhausted };
}

/** Every refund created since `since` final (not pending). */
export async function drainRefunds(db: Client, since: Date, timeoutMs: number): Promise<void> {
  await waitUntil(
    'refunds to become final',
    async () =>
      (await scalar(db, `SELECT count(*) AS n FROM refunds WHERE created_on >= $1 AND status = 'pending'`, [
        since,
      ])) === 0,
    timeoutMs,
  );
}

/** When each refund became final: its refund_finished event. */
// one grouped pass over the events, as bench:charges' FINAL_TIMES (a subquery per refund can be
// planned as a scan of the ledger's partial index of finished events per row)
const FINAL_TIMES = `
  SELECT r.id, r.status, r.created_on, f.finished_on AS final_on
  FROM refunds r
  LEFT JOIN (SELECT e.aggregate_id, min(e.created_on) AS finished_on FROM outbox_events e
              WHERE e.event_type = 'refund_finished' GROUP BY e.aggregate_id) f ON f.aggregate_id = r.id`;

export async function refundStats(db: Client, from: Date, to: Date) {
  const windowSeconds = (to.getTime() - from.getTime()) / 1000;
  const finals = await scalar(
    db,
    `SELECT count(*) AS n FROM (${FINAL_TIMES}) f WHERE f.final_on >= $1 AND f.final_on < $2`,
    [from, to],
  );
  const { rows: latency } = await db.query<{ p50: number; p99: number; last: Date | null }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
            max(final_on) AS last
     FROM (SELECT f.final_on, extract(epoch FROM (f.final_on - f.created_on)) * 1000 AS ms
           FROM (${FINAL_TIMES}) f
           WHERE f.created_on >= $1 AND f.created_on < $2 AND f.final_on IS NOT NULL) x`,
    [from, to],
  );
  const { rows: statuses } = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM refunds WHERE created_on >= $1 AND created_on < $2 GROUP BY 1 ORDER BY 1`,
    [from, to],
  );
  const created = statuses.reduce((sum, row) => sum + Number(row.n), 0);
  const last = latency[0]?.last ? new Date(latency[0].last) : to;
  // a charge's refunded amount must equal what its successful refunds took back, no more
  const overRefunded = await scalar(
    db,
    `SELECT count(*) AS n FROM charges c
      WHERE c.refunded_amount <> COALESCE((SELECT sum(r.amount) FROM refunds r
                                           WHERE r.charge_id = c.id AND r.status = 'successful'), 0)
         OR c.refund_reserved_amount > c.charged_amount`,
  );
  return {
    finalsInWindow: finals,
    finalizedPerSecond: finals / windowSeconds,
    created,
    acceptToFinalP50: Number(latency[0]?.p50),
    acceptToFinalP99: Number(latency[0]?.p99),
    endToEndPerSecond: created / ((last.getTime() - from.getTime()) / 1000),
    drainSeconds: (last.getTime() - to.getTime()) / 1000,
    statuses: Object.fromEntries(statuses.map((row) => [row.status, Number(row.n)])),
    overRefunded,
  };
}
