// The workers' batch statements reach their rows by primary key, whatever the planner believes of a
// status index: with thousands of charges or scheduled payments pending (a processor slow or down, a
// burst of renewals, statistics that have not caught up), reading or moving a batch visits the rows
// of that batch only, not every pending one (decision 0002). Webhook deliveries: the same in
// webhook-statements-plan.e2e-spec.ts.
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import {
  insertCardToken,
  insertWaitingSubscriptions,
  registeredStatement,
  rowsWritten,
  statementPlan,
  suiteClient,
  tableReads,
  useSuite,
} from '@kessai/testing';

const PENDING = 5_000;
const STATUS_INDEX = 'charges_status_updated_on_idx';

const FIND_PENDING_CHARGES = registeredStatement('charge_outcomes_find_pending');
const RECORD_CHARGE_OUTCOMES = registeredStatement('charge_outcomes_record');
const TERMINATE_PAYMENTS = registeredStatement('subscription_engine_terminate_payments');
const START_PAYMENTS = registeredStatement('subscription_engine_start_payments');

const suite = useSuite();
let client: Client;
let pendingIds: string[];
let pendingPaymentIds: string[];
/** the first 50 payments' rows, as START_PAYMENTS' input needs them */
let pendingPayments: { id: string; subscription_id: string; token_id: string }[];
let scope: { merchantId: string; storeId: string };

beforeAll(async () => {
  const { merchant, store } = await suite.env.seedMerchant('charge-plan');
  scope = { merchantId: merchant.id, storeId: store.id };
  const token = await insertCardToken(suite.env, scope, { cardNumber: '4000056655665556' });
  // statistics that have not caught up: taken when every charge was final (autovacuum kept from
  // taking newer ones), then PENDING charges pending
  client = await suiteClient(suite, ['charges', 'scheduled_payments']);
  const insert = (status: string, count: number) =>
    client.query<{ id: string }>(
      `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                            status, requested_amount, requested_currency)
       SELECT $1, $2, $3, 'one_time', 'test', $4::charge_status, 1000, 'JPY'
         FROM generate_series(1, $5::int)
       RETURNING id::text`,
      [scope.merchantId, scope.storeId, token, status, count],
    );
  await insert('successful', 1_000);
  await client.query('ANALYZE charges');
  pendingIds = (await insert('pending', PENDING)).rows.map((row) => row.id);
  // the same for scheduled payments: paid ones analyzed, then PENDING pending; enough paid ones that
  // a table scan is no cheaper than the keys (START_PAYMENTS joins an input the planner guesses at
  // 100 rows)
  const paid = await insertWaitingSubscriptions(suite.env, scope, [token], 40_000);
  await client.query(
    `UPDATE scheduled_payments SET status = 'paid', next_try_at = NULL WHERE subscription_id = ANY($1::uuid[])`,
    [paid],
  );
  await client.query('ANALYZE scheduled_payments');
  const waiting = await insertWaitingSubscriptions(suite.env, scope, [token], PENDING);
  const { rows } = await client.query<{ id: string; subscription_id: string; token_id: string }>(
    `SELECT sp.id::text, sp.subscription_id::text, s.transaction_token_id::text AS token_id
       FROM scheduled_payments sp JOIN subscriptions s ON s.id = sp.subscription_id
      WHERE sp.subscription_id = ANY($1::uuid[]) LIMIT 50`,
    [waiting],
  );
  pendingPayments = rows;
  pendingPaymentIds = rows.map((row) => row.id);
});

describe('charge batch statements with thousands of charges pending', () => {
  const modes = ['custom', 'generic'] as const;

  it.each(modes)('reading a batch of pending charges reads only them (%s plan)', async (mode) => {
    const ids = pendingIds.slice(0, 50);
    const plan = await statementPlan(client, FIND_PENDING_CHARGES, { ids }, mode);
    const read = tableReads(plan, 'charges');
    expect(read.indexes).not.toContain(STATUS_INDEX);
    // a few reads per charge of the batch, nowhere near the PENDING charges pending
    expect(read.rows).toBeLessThan(ids.length * 5);
    const found = plan[0]['Actual Rows'];
    expect(found).toBe(ids.length);
  });

  it.each(modes)('recording a batch of outcomes reads only its charges (%s plan)', async (mode) => {
    const ids = pendingIds.slice(100, 150);
    const outcomes = ids.map((id) => ({
      id,
      status: 'successful',
      event_type: 'charge_finished',
      error_code: null,
      error_message: null,
      error_detail: null,
      processor_reference: `plan-${id}`,
      charged_amount: '1000',
      fee_amount: '0',
      capture_status: null,
      issuer_token: null,
      three_ds_issuer_token: null,
      expires_on: null,
      cause_event_id: null,
    }));
    const plan = await statementPlan(
      client,
      RECORD_CHARGE_OUTCOMES,
      { outcomes, ids, from: ['pending'] },
      mode,
    );
    const read = tableReads(plan, 'charges');
    expect(read.indexes).not.toContain(STATUS_INDEX);
    expect(read.rows).toBeLessThan(ids.length * 5);
    // and the charges moved
    expect(rowsWritten(plan, 'charges')).toBe(ids.length);
  });
});

describe('subscription engine statements with thousands of payments pending', () => {
  it.each(['custom', 'generic'] as const)(
    'starting a batch of payments reads only them (%s plan)',
    async (mode) => {
      const input = pendingPayments.map((payment) => ({
        payment_id: payment.id,
        attempt: 1,
        charge_id: randomUUID(),
        subscription_id: payment.subscription_id,
        merchant_id: scope.merchantId,
        store_id: scope.storeId,
        transaction_token_id: payment.token_id,
        transaction_token_type: 'recurring',
        mode: 'test',
        amount: '1000',
        currency: 'JPY',
        descriptor: null,
        only_direct_currency: false,
        capture: true,
        capture_at: null,
        fee_rate_ppm: 0,
        fee_flat_amount: '0',
        refused: false,
        error_code: null,
        error_message: null,
        error_detail: null,
      }));
      const plan = await statementPlan(client, START_PAYMENTS, { input }, mode);
      const read = tableReads(plan, 'scheduled_payments');
      expect(read.indexes).not.toContain('scheduled_payments_open_key');
      expect(read.rows).toBeLessThan(input.length * 10);
      // every payment started, with its charge
      expect(rowsWritten(plan, 'charges')).toBe(input.length);
    },
  );

  it.each(['custom', 'generic'] as const)(
    'terminating a batch of payments reads only them (%s plan)',
    async (mode) => {
      const plan = await statementPlan(client, TERMINATE_PAYMENTS, { paymentIds: pendingPaymentIds }, mode);
      const read = tableReads(plan, 'scheduled_payments');
      expect(read.indexes).not.toContain('scheduled_payments_open_key');
      expect(read.rows).toBeLessThan(pendingPaymentIds.length * 10);
      expect(rowsWritten(plan, 'scheduled_payments')).toBe(pendingPaymentIds.length);
    },
  );
});
