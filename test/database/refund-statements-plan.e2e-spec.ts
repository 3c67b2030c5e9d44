// refund-cancel-service's statements reach their refunds and cancels by primary key, whatever the
// planner believes of refunds_pending_idx and cancels_pending_idx: with thousands pending (a burst, a
// slow processor) and statistics taken when none were, reading or ending a batch of refunds, or one
// cancel, visits those rows only, not every pending one (as batch-statements-plan.e2e-spec.ts for
// charges). And one statement that ends several refunds of one charge settles every one on the charge.
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { RefundOutcomeInput } from '@kessai/db';
import {
  insertCardToken,
  registeredStatement,
  rowsWritten,
  statementPlan,
  suiteClient,
  tableReads,
  useSuite,
} from '@kessai/testing';

const PENDING = 5_000;
const PENDING_INDEX = 'refunds_pending_idx';

const REQUEST_REFUND = registeredStatement('refunds_request');
const FIND_PENDING_REFUNDS = registeredStatement('refunds_find_pending');
const RECORD_REFUND_OUTCOMES = registeredStatement('refunds_record_outcomes');
const FIND_PENDING_CANCEL = registeredStatement('cancels_find_pending');
const RECORD_CANCEL_OUTCOME = registeredStatement('cancels_record_outcome');

const suite = useSuite();
let client: Client;
let scope: { merchantId: string; storeId: string };
let token: string;
let pendingIds: string[];
let pendingCancelIds: string[];

/** `count` successful charges of 1,000 JPY, each with one pending refund of `refund` reserved on it. */
async function chargesWithPendingRefunds(count: number, refund: number, refundsEach = 1) {
  const { rows: charges } = await client.query<{ id: string }>(
    `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
                          requested_amount, requested_currency, charged_amount, charged_currency,
                          processor_reference, refund_reserved_amount)
     SELECT $1, $2, $3, 'one_time', 'test', 'successful', 1000, 'JPY', 1000, 'JPY', 'plan-' || g, $4::bigint * $6
       FROM generate_series(1, $5::int) g
     RETURNING id::text`,
    [scope.merchantId, scope.storeId, token, refund, count, refundsEach],
  );
  const { rows: refunds } = await client.query<{ id: string; charge_id: string }>(
    `INSERT INTO refunds (merchant_id, store_id, charge_id, mode, status, amount, currency, metadata)
     SELECT $1, $2, c.id, 'test', 'pending', $4, 'JPY', '{}'
       FROM unnest($3::uuid[]) c(id), generate_series(1, $5::int)
     RETURNING id::text, charge_id::text`,
    [scope.merchantId, scope.storeId, charges.map((row) => row.id), refund, refundsEach],
  );
  return refunds;
}

function outcome(id: string, status: 'successful' | 'failed'): RefundOutcomeInput {
  return {
    id,
    status,
    releases: status === 'failed',
    processor_reference: status === 'successful' ? `ref-${id}` : null,
    error_code: status === 'failed' ? 329 : null,
    error_message: status === 'failed' ? 'REFUND_FAILED' : null,
    error_detail: null,
    cause_event_id: null,
  };
}

beforeAll(async () => {
  const { merchant, store } = await suite.env.seedMerchant('refund-plan');
  scope = { merchantId: merchant.id, storeId: store.id };
  token = await insertCardToken(suite.env, scope, { cardNumber: '4000056655665556' });
  // statistics as the suite takes them: charges' while every charge was pending (successful ones
  // look rare), refunds' and cancels' below
  client = await suiteClient(suite, ['charges', 'refunds', 'cancels']);
  await client.query(
    `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
                          requested_amount, requested_currency)
     SELECT $1, $2, $3, 'one_time', 'test', 'pending', 1000, 'JPY' FROM generate_series(1, 2000)`,
    [scope.merchantId, scope.storeId, token],
  );
  await client.query('ANALYZE charges');
  // statistics that have not caught up: taken when every refund was final, then PENDING pending
  const final = await chargesWithPendingRefunds(1_000, 1000);
  await client.query(`UPDATE refunds SET status = 'successful' WHERE id = ANY($1::uuid[])`, [
    final.map((row) => row.id),
  ]);
  await client.query('ANALYZE refunds');
  pendingIds = (await chargesWithPendingRefunds(PENDING, 1000)).map((row) => row.id);
  // cancels the same way, on the same charges (the statements read their rows, not their status)
  const insertCancels = async (status: string, charges: string[]) =>
    (
      await client.query<{ id: string }>(
        `INSERT INTO cancels (merchant_id, store_id, charge_id, mode, status)
         SELECT $1, $2, c.id, 'test', $4::operation_status FROM unnest($3::uuid[]) c(id)
         RETURNING id::text`,
        [scope.merchantId, scope.storeId, charges, status],
      )
    ).rows.map((row) => row.id);
  await insertCancels(
    'successful',
    final.map((row) => row.charge_id),
  );
  await client.query('ANALYZE cancels');
  const { rows: charges } = await client.query<{ id: string }>(
    `SELECT charge_id::text AS id FROM refunds WHERE id = ANY($1::uuid[])`,
    [pendingIds],
  );
  pendingCancelIds = await insertCancels(
    'pending',
    charges.map((row) => row.id),
  );
});

describe('refund batch statements with thousands of refunds pending', () => {
  const modes = ['custom', 'generic'] as const;

  it.each(modes)('accepting a refund reads only its charge (%s plan)', async (mode) => {
    const [refund] = await chargesWithPendingRefunds(1, 100);
    const params = {
      id: randomUUID(),
      ...scope,
      chargeId: refund.charge_id,
      amount: 100n,
      currency: 'JPY',
      reason: null,
      message: null,
      metadata: {},
      correlationId: null,
    };
    const plan = await statementPlan(client, REQUEST_REFUND, params, mode);
    const read = tableReads(plan, 'charges');
    expect(read.indexes).not.toContain('charges_status_updated_on_idx');
    expect(read.rows).toBeLessThan(5);
    expect(rowsWritten(plan, 'refunds')).toBe(1);
  });

  it.each(modes)('reading a batch of pending refunds reads only them (%s plan)', async (mode) => {
    const ids = pendingIds.slice(0, 50);
    const plan = await statementPlan(client, FIND_PENDING_REFUNDS, { ids }, mode);
    const read = tableReads(plan, 'refunds');
    expect(read.indexes).not.toContain(PENDING_INDEX);
    expect(read.rows).toBeLessThan(ids.length * 5);
    expect(plan[0]['Actual Rows']).toBe(ids.length);
  });

  it.each(modes)('ending a batch of refunds reads only them (%s plan)', async (mode) => {
    const ids = pendingIds.slice(100, 150);
    const outcomes = ids.map((id) => outcome(id, 'successful'));
    const plan = await statementPlan(
      client,
      RECORD_REFUND_OUTCOMES,
      { outcomes, ids, from: 'pending' },
      mode,
    );
    const read = tableReads(plan, 'refunds');
    expect(read.indexes).not.toContain(PENDING_INDEX);
    expect(read.rows).toBeLessThan(ids.length * 5);
    expect(rowsWritten(plan, 'refunds')).toBe(ids.length);
    expect(rowsWritten(plan, 'charges')).toBe(ids.length);
  });
});

describe('cancel statements with thousands of cancels pending', () => {
  const modes = ['custom', 'generic'] as const;

  it.each(modes)('reading a pending cancel reads only it (%s plan)', async (mode) => {
    const plan = await statementPlan(client, FIND_PENDING_CANCEL, { cancelId: pendingCancelIds[10] }, mode);
    const read = tableReads(plan, 'cancels');
    expect(read.indexes).not.toContain('cancels_pending_idx');
    expect(read.rows).toBeLessThan(5);
    expect(plan[0]['Actual Rows']).toBe(1);
  });

  it.each(modes)('ending a cancel reads only it (%s plan)', async (mode) => {
    const params = {
      cancelId: pendingCancelIds[20],
      from: 'pending' as const,
      to: 'failed' as const,
      chargeTo: null,
      chargeEvent: null,
      errorCode: 312,
      errorMessage: 'CANCEL_UNAVAILABLE',
      errorDetail: null,
      causeEventId: null,
    };
    const plan = await statementPlan(client, RECORD_CANCEL_OUTCOME, params, mode);
    const read = tableReads(plan, 'cancels');
    expect(read.indexes).not.toContain('cancels_pending_idx');
    expect(read.rows).toBeLessThan(5);
    expect(rowsWritten(plan, 'cancels')).toBe(1);
  });
});

describe('ending several refunds of one charge in one statement', () => {
  it('settles each of them on the charge, and leaves a refund no longer pending alone', async () => {
    // one charge of 1,000 JPY with four pending refunds of 200 (800 reserved)
    const refunds = await chargesWithPendingRefunds(1, 200, 4);
    const chargeId = refunds[0].charge_id;
    const [a, b, c, d] = refunds.map((row) => row.id) as [string, string, string, string];
    // d was ended by another worker first: the statement must not settle it again
    await client.query(`UPDATE refunds SET status = 'successful' WHERE id = $1`, [d]);
    const outcomes = [
      outcome(a, 'successful'),
      outcome(b, 'successful'),
      outcome(c, 'failed'),
      outcome(d, 'failed'),
    ];
    const { rows } = await client.query<{ id: string }>(
      RECORD_REFUND_OUTCOMES.text,
      RECORD_REFUND_OUTCOMES.encode({ outcomes, ids: outcomes.map((row) => row.id), from: 'pending' }),
    );
    expect(rows.map((row) => row.id).sort()).toEqual([a, b, c].sort());
    const { rows: charge } = await client.query<{ reserved: string; refunded: string }>(
      `SELECT refund_reserved_amount::text AS reserved, refunded_amount::text AS refunded FROM charges WHERE id = $1`,
      [chargeId],
    );
    // a and b refunded (400), c's 200 released, d's 200 still reserved as it was
    expect(charge).toEqual([{ reserved: '600', refunded: '400' }]);
    const { rows: events } = await client.query<{ aggregate_id: string; status: string }>(
      `SELECT aggregate_id::text, payload->>'status' AS status FROM outbox_events
        WHERE event_type = 'refund_finished' AND aggregate_id = ANY($1::uuid[]) ORDER BY payload->>'status'`,
      [[a, b, c, d]],
    );
    expect(events.map((event) => event.status)).toEqual(['failed', 'successful', 'successful']);
    expect(new Set(events.map((event) => event.aggregate_id))).toEqual(new Set([a, b, c]));
  });
});
