// After the faults: once the load stopped and the queues drained, what the database, the processor
// simulator's records and the webhook receiver say must agree with what the API accepted. Lost,
// doubled and stuck are counted, each with its examples.
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import {
  CHARGES_QUEUE,
  REFUNDS_CANCELS_QUEUE,
  SUBSCRIPTIONS_QUEUE,
  WEBHOOK_DELIVERIES_QUEUE,
} from '@kessai/contracts';
import type { Accepted } from './load';
import type { WebhookReceiver } from '@kessai/testing';

/** What the simulator's GET /_sim/stats answers (docs/processor-simulator.md), as far as read here. */
export interface SimulatorStats {
  operations: Array<{ operation: string; idempotencyKey: string; requests: number; executions: number }>;
}

/** How often the processor carried out `operation` under `key`. */
function executions(stats: SimulatorStats, operation: string, key: string): number {
  return stats.operations.find((o) => o.operation === operation && o.idempotencyKey === key)?.executions ?? 0;
}

export interface Finding {
  kind: 'lost' | 'doubled' | 'stuck' | 'wrong' | 'availability';
  what: string;
}

/** The counts that must be zero while work remains: the queues have drained once they are. */
const UNFINISHED = `
  SELECT
    (SELECT count(*)::int FROM charges WHERE status IN ('pending', 'awaiting')
        OR pending_operation IS NOT NULL) AS charges,
    (SELECT count(*)::int FROM refunds WHERE status = 'pending') AS refunds,
    (SELECT count(*)::int FROM cancels WHERE status = 'pending') AS cancels,
    (SELECT count(*)::int FROM captures WHERE status = 'pending') AS captures,
    (SELECT count(*)::int FROM scheduled_payments WHERE status = 'processing') AS payments,
    (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS deliveries,
    (SELECT count(*)::int FROM outbox_events WHERE published_on IS NULL) AS outbox,
    (SELECT count(*)::int FROM charges c WHERE c.status = 'successful' AND NOT EXISTS (
       SELECT 1 FROM ledger_transactions t
        WHERE t.kind = 'sale' AND t.source_type = 'charge' AND t.source_id = c.id))
    + (SELECT count(*)::int FROM refunds r WHERE r.status = 'successful' AND NOT EXISTS (
       SELECT 1 FROM ledger_transactions t
        WHERE t.kind = 'refund' AND t.source_type = 'refund' AND t.source_id = r.id)) AS unposted`;

export type Unfinished = Record<
  'charges' | 'refunds' | 'cancels' | 'captures' | 'payments' | 'deliveries' | 'outbox' | 'unposted',
  number
>;

const QUEUES = [CHARGES_QUEUE, REFUNDS_CANCELS_QUEUE, SUBSCRIPTIONS_QUEUE, WEBHOOK_DELIVERIES_QUEUE];

/**
 * Waits until every queue is empty (nothing waiting, active — a dead worker's job included, until
 * it is taken over — or delayed), nothing is unfinished in the database and every delivered webhook
 * reached the receiver, or the deadline passes; what is still unfinished then (zeros when drained)
 * and how long it took.
 */
export async function drain(
  databaseUrl: string,
  redis: { url: string; prefix: string },
  receivedCount: () => number,
  deadlineMs: number,
): Promise<{ unfinished: Unfinished & { jobs: number }; failed: string[]; ms: number }> {
  const started = Date.now();
  const db = new Client({ connectionString: databaseUrl });
  const queues = QUEUES.map(
    (queue) => new Queue(queue.name, { connection: { url: redis.url }, prefix: redis.prefix }),
  );
  await db.connect();
  try {
    for (;;) {
      const counts = await Promise.all(
        queues.map((queue) => queue.getJobCounts('wait', 'active', 'delayed', 'prioritized')),
      );
      const jobs = counts.reduce((sum, count) => sum + Object.values(count).reduce((a, b) => a + b, 0), 0);
      const { rows } = await db.query<Unfinished>(UNFINISHED);
      const unfinished = { ...rows[0], jobs };
      const { rows: delivered } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'",
      );
      const done = Object.values(unfinished).every((n) => n === 0) && receivedCount() >= delivered[0].n;
      if (done || Date.now() - started > deadlineMs) {
        const failed = (await Promise.all(queues.map((queue) => queue.getJobs(['failed'], 0, 20))))
          .flat()
          .map(
            (job) =>
              `${job.queueName} ${job.name} ${job.id}: ${job.failedReason} (attempts ${job.attemptsMade})`,
          );
        return { unfinished, failed, ms: Date.now() - started };
      }
      await sleep(250);
    }
  } finally {
    await db.end();
    await Promise.all(queues.map((queue) => queue.close()));
  }
}

interface ChargeRow {
  id: string;
  status: string;
  subscription_id: string | null;
  scheduled_payment_id: string | null;
  charged_amount: string | null;
  refunded_amount: string;
  error_code: number | null;
  error_message: string | null;
  created_on: Date;
  updated_on: Date;
}

export interface Reconciliation {
  findings: Finding[];
  counts: Record<string, number>;
}

/**
 * What the API accepted (`accepted`, the probes' charges included by the database's own list) against
 * the rows, the simulator and the receiver.
 */
export async function reconcile(
  databaseUrl: string,
  accepted: Accepted,
  stats: SimulatorStats,
  receiver: WebhookReceiver,
  /** Date.now() when the run began: the findings say when things happened from it */
  runStartedAt: number,
  /** POST /charges whose outcome the client never learnt (their keys left in progress by a crash) */
  unresolvedChargeKeys: number,
): Promise<Reconciliation> {
  const findings: Finding[] = [];
  const add = (kind: Finding['kind'], what: string) => findings.push({ kind, what });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const charges = new Map(
      (
        await db.query<ChargeRow>(
          `SELECT id::text, status::text, subscription_id::text, scheduled_payment_id::text,
                  charged_amount::text, refunded_amount::text, error_code, error_message,
                  created_on, updated_on FROM charges`,
        )
      ).rows.map((row) => [row.id, row]),
    );

    // charges: every one the API accepted exists and ended as its flow asked
    for (const [id, expected] of accepted.charges) {
      const row = charges.get(id);
      if (!row) add('lost', `charge ${id} accepted (201) but no row`);
      else if (['pending', 'awaiting'].includes(row.status)) add('stuck', `charge ${id} still ${row.status}`);
      else if (!expected.split(' or ').includes(row.status))
        add(
          'wrong',
          `charge ${id} is ${row.status}, its flow expected ${expected} (${row.error_code ?? ''} ${row.error_message ?? ''})`,
        );
    }
    // a charge nobody was told of: only a POST /charges cut off by a crash may have made one
    const unacknowledged = [...charges.values()].filter(
      (row) => !row.subscription_id && !accepted.charges.has(row.id),
    );
    if (unacknowledged.length > unresolvedChargeKeys)
      add(
        'doubled',
        `${unacknowledged.length} charges nobody was answered for (${unresolvedChargeKeys} POST /charges keys unresolved): ${unacknowledged
          .slice(0, 5)
          .map((row) => row.id)
          .join(', ')}`,
      );
    // the processor authorized each charge once, under the charge's own id, and nothing else
    for (const op of stats.operations) {
      if (op.executions > 1)
        add('doubled', `${op.operation} ${op.idempotencyKey} executed ${op.executions} times`);
      if (op.operation === 'authorize' && !charges.has(op.idempotencyKey))
        add('doubled', `an authorization under ${op.idempotencyKey}, which is no charge`);
    }
    const when = (date: Date | null) =>
      date ? `+${((date.getTime() - runStartedAt) / 1000).toFixed(1)}s` : 'never';
    for (const row of charges.values()) {
      if (['pending', 'awaiting'].includes(row.status) && !accepted.charges.has(row.id))
        add(
          'stuck',
          `charge ${row.id} (subscription ${row.subscription_id ?? 'none'}) still ${row.status}, created ${when(row.created_on)}, updated ${when(row.updated_on)}`,
        );
      const authorized = executions(stats, 'authorize', row.id);
      if (['successful', 'authorized', 'canceled'].includes(row.status) && authorized !== 1)
        add(
          authorized === 0 ? 'lost' : 'doubled',
          `charge ${row.id} ${row.status} with ${authorized} authorizations`,
        );
    }
    // subscriptions: one successful charge per paid payment, none on a payment still unpaid
    const { rows: perPayment } = await db.query<{
      id: string;
      status: string;
      successful: number;
      charges: number;
    }>(
      `SELECT p.id::text, p.status::text,
              count(c.id) FILTER (WHERE c.status = 'successful')::int AS successful, count(c.id)::int AS charges
         FROM scheduled_payments p LEFT JOIN charges c ON c.scheduled_payment_id = p.id GROUP BY p.id`,
    );
    for (const payment of perPayment) {
      if (payment.successful > 1)
        add('doubled', `scheduled payment ${payment.id}: ${payment.successful} successful charges`);
      if (payment.status === 'paid' && payment.successful !== 1)
        add('lost', `scheduled payment ${payment.id} paid with ${payment.successful} successful charges`);
      if (payment.status === 'processing') add('stuck', `scheduled payment ${payment.id} still processing`);
    }
    const { rows: clockSubscriptions } = await db.query<{
      id: string;
      status: string;
      paid: number;
      due: number;
    }>(
      `SELECT s.id::text, s.status::text,
              (SELECT count(*)::int FROM scheduled_payments p WHERE p.subscription_id = s.id AND p.status = 'paid') AS paid,
              (SELECT count(*)::int FROM scheduled_payments p, test_clocks k
                WHERE p.subscription_id = s.id AND k.id = s.test_clock_id AND p.due_at <= k.frozen_time) AS due
         FROM subscriptions s WHERE s.test_clock_id IS NOT NULL`,
    );
    for (const subscription of clockSubscriptions) {
      if (!accepted.subscriptions.has(subscription.id))
        add('doubled', `subscription ${subscription.id} nobody created`);
      if (subscription.status !== 'current' || subscription.paid !== subscription.due)
        add(
          'lost',
          `subscription ${subscription.id} ${subscription.status}: ${subscription.paid} paid of ${subscription.due} due`,
        );
    }
    for (const id of accepted.subscriptions) {
      if (!clockSubscriptions.some((row) => row.id === id))
        add('lost', `subscription ${id} accepted (201) but no row`);
    }

    // refunds, captures, cancels: each accepted one exists, is final, was carried out once
    const refunds = new Map(
      (
        await db.query<{ id: string; charge_id: string; status: string; amount: string }>(
          'SELECT id::text, charge_id::text, status::text, amount::text FROM refunds',
        )
      ).rows.map((row) => [row.id, row]),
    );
    for (const [id, chargeId] of accepted.refunds) {
      const row = refunds.get(id);
      if (!row) add('lost', `refund ${id} of charge ${chargeId} accepted (201) but no row`);
      else if (row.status === 'pending') add('stuck', `refund ${id} still pending`);
      else if (row.status !== 'successful') add('wrong', `refund ${id} is ${row.status}`);
    }
    for (const row of refunds.values()) {
      const executed = executions(stats, 'refund', row.id);
      if (row.status === 'successful' && executed !== 1)
        add(
          executed === 0 ? 'lost' : 'doubled',
          `refund ${row.id} successful with ${executed} processor refunds`,
        );
    }
    for (const op of stats.operations.filter((o) => o.operation === 'refund')) {
      if (!refunds.has(op.idempotencyKey))
        add('doubled', `a processor refund under ${op.idempotencyKey}, which is no refund`);
    }
    const refundedPerCharge = new Map<string, number>();
    for (const row of refunds.values()) {
      if (row.status === 'successful')
        refundedPerCharge.set(
          row.charge_id,
          (refundedPerCharge.get(row.charge_id) ?? 0) + Number(row.amount),
        );
    }
    for (const [chargeId, refunded] of refundedPerCharge) {
      const charge = charges.get(chargeId);
      if (!charge || Number(charge.refunded_amount) !== refunded || refunded > Number(charge.charged_amount))
        add(
          'doubled',
          `charge ${chargeId}: refunds total ${refunded}, the charge says ${charge?.refunded_amount} of ${charge?.charged_amount}`,
        );
    }
    const { rows: captures } = await db.query<{ charge_id: string; id: string; status: string }>(
      'SELECT charge_id::text, id::text, status::text FROM captures',
    );
    for (const chargeId of accepted.captures) {
      const capture = captures.find((row) => row.charge_id === chargeId);
      if (!capture) add('lost', `capture of charge ${chargeId} accepted but no row`);
      else if (capture.status !== 'successful')
        add(capture.status === 'pending' ? 'stuck' : 'wrong', `capture ${capture.id} is ${capture.status}`);
    }
    const { rows: cancels } = await db.query<{ id: string; status: string }>(
      'SELECT id::text, status::text FROM cancels',
    );
    for (const [id] of accepted.cancels) {
      const cancel = cancels.find((row) => row.id === id);
      if (!cancel) add('lost', `cancel ${id} accepted (201) but no row`);
      else if (cancel.status !== 'successful')
        add(cancel.status === 'pending' ? 'stuck' : 'wrong', `cancel ${id} is ${cancel.status}`);
    }
    for (const op of stats.operations.filter((o) => o.operation === 'void' || o.operation === 'capture')) {
      const known =
        op.operation === 'void'
          ? cancels.some((c) => c.id === op.idempotencyKey)
          : captures.some((c) => c.id === op.idempotencyKey);
      if (!known)
        add(
          'doubled',
          `a processor ${op.operation} under ${op.idempotencyKey}, which is no ${op.operation === 'void' ? 'cancel' : 'capture'}`,
        );
    }

    // webhooks: every subscribed event has a delivery, delivered, and the receiver got it
    const received = new Map<string, number>();
    for (const request of receiver.of('/hooks')) {
      const { id } = JSON.parse(request.body) as { id: string };
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    // the events a webhook subscribes to, as webhook-service's dispatch finds them
    // (FIND_SUBSCRIBED_EVENTS), written after the webhook
    const { rows: events } = await db.query<{
      id: string;
      event_type: string;
      created_on: Date;
      published_on: Date | null;
      delivery: string | null;
      status: string | null;
    }>(
      `SELECT e.id::text, e.event_type, e.created_on, e.published_on, d.id::text AS delivery, d.status::text AS status
         FROM outbox_events e
         JOIN webhooks w ON w.merchant_id = e.merchant_id AND (w.store_id = e.store_id OR w.store_id IS NULL)
                        AND e.event_type = ANY (w.triggers) AND e.created_on >= w.created_on
         LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.webhook_id = w.id`,
    );
    for (const event of events) {
      const what = `webhook event ${event.event_type} ${event.id} (written ${when(event.created_on)}, published ${when(event.published_on)})`;
      if (!event.delivery) add('lost', `${what}: no delivery`);
      else if (event.status !== 'delivered')
        add('stuck', `${what}: delivery ${event.delivery} is ${event.status}`);
      else if (!received.has(event.delivery))
        add('lost', `${what}: delivery ${event.delivery} delivered but never received`);
    }
    const duplicates = [...received.values()].filter((n) => n > 1).length;

    // the books (docs/ledger.md): every successful charge one sale of what it charged, every
    // successful refund one refund of its amount, the refund's ledger_id that posting's id (decision
    // 0052; a charge's is read by the ledger's key, decision 0080), nothing else posted twice, and
    // every invariant holds
    const { rows: postings } = await db.query<{
      what: string;
      id: string;
      expected: string;
      pointer: string | null;
      posted: string[];
      postedIds: string[];
    }>(
      `SELECT 'charge' AS what, c.id::text AS id, c.charged_amount::text AS expected,
              NULL AS pointer,
              array(SELECT t.amount::text FROM ledger_transactions t
                     WHERE t.kind = 'sale' AND t.source_type = 'charge' AND t.source_id = c.id) AS posted,
              array(SELECT t.id::text FROM ledger_transactions t
                     WHERE t.kind = 'sale' AND t.source_type = 'charge' AND t.source_id = c.id) AS "postedIds"
         FROM charges c WHERE c.status = 'successful'
       UNION ALL
       SELECT 'refund', r.id::text, (-r.amount)::text, r.ledger_id::text,
              array(SELECT t.amount::text FROM ledger_transactions t
                     WHERE t.kind = 'refund' AND t.source_type = 'refund' AND t.source_id = r.id),
              array(SELECT t.id::text FROM ledger_transactions t
                     WHERE t.kind = 'refund' AND t.source_type = 'refund' AND t.source_id = r.id)
         FROM refunds r WHERE r.status = 'successful'`,
    );
    for (const posting of postings) {
      if (posting.posted.length === 0) add('lost', `${posting.what} ${posting.id}: not posted in the ledger`);
      else if (posting.posted.length > 1)
        add('doubled', `${posting.what} ${posting.id}: posted ${posting.posted.length} times`);
      else if (posting.posted[0] !== posting.expected)
        add('wrong', `${posting.what} ${posting.id}: posted ${posting.posted[0]}, not ${posting.expected}`);
      else if (posting.what === 'refund' && posting.pointer !== posting.postedIds[0])
        add(
          'wrong',
          `${posting.what} ${posting.id}: ledger_id ${posting.pointer}, not its posting ${posting.postedIds[0]}`,
        );
    }
    const { rows: unexpectedPostings } = await db.query<{ id: string; kind: string }>(
      `SELECT t.id::text, t.kind::text FROM ledger_transactions t
        WHERE (t.kind = 'sale' AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = t.source_id AND c.status = 'successful'))
           OR (t.kind = 'refund' AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.id = t.source_id AND r.status = 'successful'))`,
    );
    for (const posting of unexpectedPostings)
      add(
        'wrong',
        `ledger ${posting.kind} ${posting.id} records no successful ${posting.kind === 'sale' ? 'charge' : 'refund'}`,
      );
    const { rows: books } = await db.query<{ unbalanced: number; wrong_balances: number }>(
      `SELECT (SELECT count(*)::int FROM (SELECT transaction_id FROM ledger_entries GROUP BY transaction_id, currency
                                           HAVING sum(amount) <> 0) x) AS unbalanced,
              (SELECT count(*)::int FROM ledger_accounts a
                WHERE a.balance <> coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id), 0))
                AS wrong_balances`,
    );
    if (books[0].unbalanced > 0) add('wrong', `${books[0].unbalanced} ledger transactions do not balance`);
    if (books[0].wrong_balances > 0)
      add('wrong', `${books[0].wrong_balances} ledger balances are not their entries' sum`);

    const { rows: unfinished } = await db.query<Unfinished>(UNFINISHED);
    for (const [what, n] of Object.entries(unfinished[0])) if (n > 0) add('stuck', `${n} ${what} unfinished`);

    const statuses = [...charges.values()].reduce<Record<string, number>>((count, row) => {
      count[`charges ${row.status}`] = (count[`charges ${row.status}`] ?? 0) + 1;
      return count;
    }, {});
    return {
      findings,
      counts: {
        ...statuses,
        'charges of subscriptions': [...charges.values()].filter((row) => row.subscription_id).length,
        'charges made by a request whose answer was lost': unacknowledged.length,
        refunds: refunds.size,
        captures: captures.length,
        cancels: cancels.length,
        'scheduled payments paid': perPayment.filter((p) => p.status === 'paid').length,
        'webhook events': events.length,
        'webhook requests received': receiver.of('/hooks').length,
        'deliveries received more than once': duplicates,
        'ledger postings of charges and refunds': postings.length,
      },
    };
  } finally {
    await db.end();
  }
}
