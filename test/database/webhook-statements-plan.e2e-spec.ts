// webhook-service's batch statements reach deliveries by key, whatever the planner believes of the
// status index: with thousands of deliveries pending (an endpoint down for a day, or a burst the
// statistics have not caught up with), creating a batch's deliveries and recording a try read the
// rows of that batch only, not every pending delivery (bench/README, bench:webhooks).
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import {
  APPROVED_TEST_CARD,
  insertCardToken,
  registeredStatement,
  rowsWritten,
  statementPlan,
  tableReads,
  suiteClient,
  useSuite,
} from '@kessai/testing';

const PENDING = 5_000;

const CREATE_DELIVERIES = registeredStatement('webhooks_create_deliveries');
const RECORD_DELIVERY_ATTEMPTS = registeredStatement('webhooks_record_attempts');
const FIND_SUBSCRIBED_EVENTS = registeredStatement('webhooks_find_subscribed_events');
const CHARGES = 2_000;

const suite = useSuite();
let client: Client;
let webhookId: string;
let eventIds: string[];
let pendingIds: string[];
/** the last 10 events, about charges of their own among CHARGES test charges */
let chargeEventIds: string[];

beforeAll(async () => {
  const { merchant, store } = await suite.env.seedMerchant('webhook-plan');
  const webhook = await suite.env.prisma.webhook.create({
    data: {
      merchantId: merchant.id,
      storeId: store.id,
      url: 'http://127.0.0.1:9/hook',
      triggers: ['charge_finished'],
      signingSecret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    },
  });
  webhookId = webhook.id;
  // statistics that have not caught up: taken when every delivery was delivered (autovacuum kept
  // from taking newer ones), then PENDING deliveries pending with a retry ahead, as an endpoint down
  // for hours leaves them; bodies of a realistic size. Then 10 events with no delivery yet.
  client = await suiteClient(suite, ['webhook_deliveries']);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload)
     SELECT $1, $2, 'charge', gen_random_uuid(), 'charge_finished', '{}'::jsonb
       FROM generate_series(1, $3::int)
     RETURNING id::text`,
    [merchant.id, store.id, 1_000 + PENDING + 10],
  );
  const ids = rows.map((row) => row.id);
  await client.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, status, attempt_count, delivered_on)
     SELECT $1, e, 'charge_finished', repeat('x', 1500), 'delivered', 1, now()
       FROM unnest($2::uuid[]) e`,
    [webhookId, ids.slice(0, 1_000)],
  );
  await client.query('ANALYZE webhook_deliveries');
  eventIds = ids.slice(1_000);
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, attempt_count, next_attempt_on)
     SELECT $1, e, 'charge_finished', repeat('x', 1500), 1, now() + interval '1 hour'
       FROM unnest($2::uuid[]) e
     RETURNING id::text`,
    [webhookId, eventIds.slice(0, PENDING)],
  );
  pendingIds = inserted.rows.map((row) => row.id);
  // the events' mode is their charge's: CHARGES test charges, the last 10 events about 10 of them
  const tokenId = await insertCardToken(
    suite.env,
    { merchantId: merchant.id, storeId: store.id },
    {
      cardNumber: APPROVED_TEST_CARD,
    },
  );
  const charges = await client.query<{ id: string }>(
    `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                          requested_amount, requested_currency, capture)
     SELECT $1, $2, $3, 'one_time', 'test', 1000, 'JPY', true FROM generate_series(1, $4::int)
     RETURNING id::text`,
    [merchant.id, store.id, tokenId, CHARGES],
  );
  chargeEventIds = eventIds.slice(PENDING);
  await client.query(
    `UPDATE outbox_events e SET aggregate_id = c.charge_id::uuid
       FROM unnest($1::uuid[], $2::text[]) AS c (event_id, charge_id)
      WHERE e.id = c.event_id`,
    [chargeEventIds, charges.rows.slice(0, chargeEventIds.length).map((row) => row.id)],
  );
  await client.query('ANALYZE charges');
  await client.query('ANALYZE outbox_events');
});

describe('webhook batch statements with thousands of deliveries pending', () => {
  const modes = ['custom', 'generic'] as const;

  it.each(modes)(
    'creating a batch of deliveries reads no delivery beyond its own pairs (%s plan)',
    async (mode) => {
      const batch = eventIds.slice(PENDING).map((eventId) => ({
        id: randomUUID(),
        webhook_id: webhookId,
        event_id: eventId,
        event: 'charge_finished',
        body: '{}',
      }));
      // one pair that has its row already (a dispatch run again): found by its key
      batch.push({ ...batch[0], id: randomUUID(), event_id: eventIds[0] });
      const plan = await statementPlan(client, CREATE_DELIVERIES, { deliveries: batch }, mode);
      const read = tableReads(plan, 'webhook_deliveries');
      expect(read.indexes).not.toContain('webhook_deliveries_status_next_attempt_on_idx');
      // a few reads per delivery of the batch, nowhere near the PENDING deliveries pending
      expect(read.rows).toBeLessThan(batch.length * 5);
    },
  );

  it.each(modes)(
    "finding a batch's subscribed events reads the events and their charges by key, for the mode (%s plan)",
    async (mode) => {
      const plan = await statementPlan(client, FIND_SUBSCRIBED_EVENTS, { ids: chargeEventIds }, mode);
      const events = tableReads(plan, 'outbox_events');
      expect(events.indexes).toEqual(['outbox_events_pkey']);
      // a few reads per event of the batch, nowhere near the thousands of events stored
      expect(events.rows).toBeLessThan(chargeEventIds.length * 5);
      // each event's mode: its charge by primary key, not a scan of the CHARGES
      const charges = tableReads(plan, 'charges');
      expect(charges.indexes).toEqual(['charges_pkey']);
      expect(charges.rows).toBeLessThan(chargeEventIds.length * 5);
      // and the test webhook gets them: the events are test events
      const { rows } = await client.query<{ id: string; webhook_ids: string[] }>(
        FIND_SUBSCRIBED_EVENTS.text,
        FIND_SUBSCRIBED_EVENTS.encode({ ids: chargeEventIds }),
      );
      expect(rows.map((row) => row.webhook_ids)).toEqual(chargeEventIds.map(() => [webhookId]));
    },
  );

  it.each(modes)('recording tries reads only their deliveries (%s plan)', async (mode) => {
    const tries = pendingIds.slice(0, 3).map((deliveryId) => ({
      delivery_id: deliveryId,
      number: 2,
      status_code: 200,
      error_message: null,
      response_snippet: 'ok',
      duration_ms: 3,
      status: 'delivered' as const,
      next_attempt_on: null,
      disable_reason: null,
      judged: true,
    }));
    const plan = await statementPlan(
      client,
      RECORD_DELIVERY_ATTEMPTS,
      { tries, disableAfterSeconds: 3_600 },
      mode,
    );
    const read = tableReads(plan, 'webhook_deliveries');
    expect(read.indexes).not.toContain('webhook_deliveries_status_next_attempt_on_idx');
    // a few reads per try (to check its delivery, and to update it), nowhere near PENDING
    expect(read.rows).toBeLessThan(tries.length * 10);
    // and the tries were recorded
    expect(rowsWritten(plan, 'webhook_attempts')).toBe(tries.length);
  });
});
