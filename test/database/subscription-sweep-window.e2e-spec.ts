// The subscription sweeper's statement reads one bounded window of processing payments per pass and
// walks them all across passes: with a burst in flight (450,000 processing payments in the
// 1,000,000-payment benchmark), a pass that walked every processing payment looking for a stale final
// charge took 6.5 s of Postgres, every 10 s in each replica. Here: more processing payments than a
// window, all claimed in one transaction (one shared updated_on, the case a cursor on the time alone
// would loop on), a few whose charge is final and stale among them: the windows find exactly those,
// each pass reads at most its window, and the walk ends and starts again from the oldest.
import type { Client } from 'pg';
import { SubscriptionEngineRepository, SWEEP_FROM_START, type SweepCursor } from '@kessai/db';
import {
  insertCardToken,
  insertWaitingSubscriptions,
  registeredStatement,
  statementPlan,
  suiteClient,
  tableReads,
  useSuite,
} from '@kessai/testing';

const PROCESSING = 1_200;
const WINDOW = 500;
const STALE_SECONDS = 120;
const FIND_UNSETTLED = registeredStatement('subscription_engine_find_unsettled');

const suite = useSuite();
let client: Client;
let engine: SubscriptionEngineRepository;
/** charges final for an hour whose payment is still processing: what the sweep must find */
let lostSettlements: string[];
/** a charge final a moment ago: its settle job may still be on the way */
let recentlyFinal: string;

beforeAll(async () => {
  const { merchant, store } = await suite.env.seedMerchant('sweep-window');
  const scope = { merchantId: merchant.id, storeId: store.id };
  const token = await insertCardToken(suite.env, scope, { cardNumber: '4000056655665556' });
  client = await suiteClient(suite);
  engine = new SubscriptionEngineRepository(suite.env.prisma);
  const subscriptions = await insertWaitingSubscriptions(suite.env, scope, [token], PROCESSING);
  // every first payment claimed by one transaction an hour ago: one updated_on for all of them
  await client.query(
    `UPDATE scheduled_payments
        SET status = 'processing', attempts = 1, updated_on = now() - interval '1 hour'
      WHERE subscription_id = ANY($1::uuid[])`,
    [subscriptions],
  );
  const { rows: charges } = await client.query<{ id: string; payment_id: string }>(
    `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
                          requested_amount, requested_currency, subscription_id, scheduled_payment_id,
                          payment_attempt, created_on, updated_on)
     SELECT $1, $2, $3, 'recurring', 'test', 'pending', 1000, 'JPY', sp.subscription_id, sp.id, 1,
            now() - interval '1 hour', now() - interval '1 hour'
       FROM scheduled_payments sp
      WHERE sp.subscription_id = ANY($4::uuid[])
      ORDER BY sp.id
     RETURNING id::text, scheduled_payment_id::text AS payment_id`,
    [scope.merchantId, scope.storeId, token, subscriptions],
  );
  // in (updated_on, id) order, one charge in each window and one in the last, partly filled one
  const byPayment = [...charges].sort((a, b) => a.payment_id.localeCompare(b.payment_id));
  lostSettlements = [byPayment[10].id, byPayment[WINDOW + 10].id, byPayment[PROCESSING - 1].id];
  await client.query(
    `UPDATE charges SET status = 'successful', updated_on = now() - interval '1 hour'
      WHERE id = ANY($1::uuid[])`,
    [lostSettlements],
  );
  recentlyFinal = byPayment[20].id;
  await client.query(`UPDATE charges SET status = 'failed', updated_on = now() WHERE id = $1`, [
    recentlyFinal,
  ]);
  await client.query('ANALYZE scheduled_payments');
  await client.query('ANALYZE charges');
});

describe('the subscription sweeper with more payments in flight than one window', () => {
  it('finds every lost settlement across windows, each pass bounded, then starts again', async () => {
    const found: string[] = [];
    const windows: number[] = [];
    let cursor: SweepCursor = SWEEP_FROM_START;
    for (;;) {
      const { chargeIds, next } = await engine.findUnsettledCharges(STALE_SECONDS, cursor, WINDOW);
      found.push(...chargeIds);
      windows.push(chargeIds.length);
      if (next === null) break;
      cursor = next;
      expect(windows.length).toBeLessThan(10); // the walk moves on, even over one shared updated_on
    }
    expect(windows).toEqual([1, 1, 1]);
    expect(found.sort()).toEqual([...lostSettlements].sort());
    expect(found).not.toContain(recentlyFinal);
    // and the next round starts from the oldest again: its first window finds the first one again
    const again = await engine.findUnsettledCharges(STALE_SECONDS, SWEEP_FROM_START, WINDOW);
    expect(again.chargeIds).toEqual([lostSettlements[0]]);
  });

  it.each(['custom', 'generic'] as const)(
    'a pass reads at most its window of payments and of charges (%s plan)',
    async (mode) => {
      const plan = await statementPlan(
        client,
        FIND_UNSETTLED,
        {
          staleSeconds: STALE_SECONDS,
          afterUpdatedOn: SWEEP_FROM_START.updatedOn,
          afterId: SWEEP_FROM_START.id,
          windowSize: WINDOW,
        },
        mode,
      );
      // the window's rows, though every processing payment shares one updated_on
      expect(tableReads(plan, 'scheduled_payments').rows).toBeLessThanOrEqual(WINDOW);
      expect(tableReads(plan, 'scheduled_payments').indexes).toContain('scheduled_payments_processing_idx');
      // one probe of the charges per payment of the window, not per processing payment
      expect(tableReads(plan, 'charges').rows).toBeLessThanOrEqual(2 * WINDOW);
    },
  );
});
