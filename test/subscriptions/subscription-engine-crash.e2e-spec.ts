// Two subscription-service processes over the same 2,000 due payments, one of them killed
// (SIGKILL) while they work and started again: every payment is charged exactly once and none is
// missed. Real processes (two subscription-service, one charge-service), the processor simulator,
// Postgres, Redis and BullMQ.
import {
  APPROVED_TEST_CARD,
  eventually,
  insertCardToken,
  insertWaitingSubscriptions,
  releaseDuePayments,
  useSuite,
  type SpawnedApp,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';

const PAYMENTS = 2_000;

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  variables: {
    // small batches: many transactions in flight for the kill to land in
    SUBSCRIPTION_SCHEDULER_BATCH: '25',
    SUBSCRIPTION_SCHEDULER_IDLE_MS: '20',
    SUBSCRIPTION_JOB_LOCK_MS: '1000',
  },
  merchants: { shop: {} },
  workers: ['charge-service'],
});

async function startSubscriptionService(): Promise<SpawnedApp> {
  return (await suite.startWorker('subscription-service')).app;
}

/** How many of the subscriptions' first payments are in each status, and their charges. */
async function progress(subscriptionIds: string[]) {
  const [row] = await suite.env.prisma.$queryRaw<
    { paid: bigint; open: bigint; charges: bigint; twice: bigint; tries: bigint }[]
  >`
    SELECT count(*) FILTER (WHERE sp.status = 'paid') AS paid,
           count(*) FILTER (WHERE sp.status IN ('pending', 'processing')) AS open,
           (SELECT count(*) FROM charges c JOIN scheduled_payments p ON p.id = c.scheduled_payment_id
             WHERE p.subscription_id = ANY(${subscriptionIds}::uuid[]) AND p.sequence = 1) AS charges,
           (SELECT count(*) FROM (SELECT c.scheduled_payment_id FROM charges c
                                   WHERE c.subscription_id = ANY(${subscriptionIds}::uuid[])
                                   GROUP BY c.scheduled_payment_id, c.payment_attempt
                                  HAVING count(*) > 1) d) AS twice,
           count(*) FILTER (WHERE sp.attempts <> 1) AS tries
      FROM scheduled_payments sp
     WHERE sp.subscription_id = ANY(${subscriptionIds}::uuid[]) AND sp.sequence = 1`;
  return {
    paid: Number(row.paid),
    open: Number(row.open),
    charges: Number(row.charges),
    twice: Number(row.twice),
    tries: Number(row.tries),
  };
}

describe('subscription engine across replicas and crashes', () => {
  it('charges each of 2,000 due payments exactly once, one replica killed mid-run', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 20 }, () =>
        insertCardToken(suite.env, suite.merchants.shop, {
          cardNumber: APPROVED_TEST_CARD,
          type: 'recurring',
        }),
      ),
    );
    const subscriptions = await insertWaitingSubscriptions(suite.env, suite.merchants.shop, tokens, PAYMENTS);
    const first = await startSubscriptionService();
    await startSubscriptionService();
    await releaseDuePayments(suite.env, subscriptions);

    // kill one replica while both are claiming and settling
    await eventually(async () => (await progress(subscriptions)).charges >= PAYMENTS / 5, {
      timeoutMs: 60_000,
      what: 'the replicas to have started a fifth of the payments',
    });
    expect(await first.stop('SIGKILL')).toBeNull();
    expect((await progress(subscriptions)).paid).toBeLessThan(PAYMENTS);
    await startSubscriptionService();

    await eventually(async () => (await progress(subscriptions)).paid === PAYMENTS, {
      timeoutMs: 120_000,
      what: 'every payment to be paid',
    });
    const done = await progress(subscriptions);
    // one charge per payment, one try each, nothing left open, no (payment, try) charged twice
    expect(done).toEqual({ paid: PAYMENTS, open: 0, charges: PAYMENTS, twice: 0, tries: 0 });
    const [{ successful, next }] = await suite.env.prisma.$queryRaw<{ successful: bigint; next: bigint }[]>`
      SELECT (SELECT count(*) FROM charges WHERE subscription_id = ANY(${subscriptions}::uuid[])
                                             AND status = 'successful') AS successful,
             (SELECT count(*) FROM scheduled_payments WHERE subscription_id = ANY(${subscriptions}::uuid[])
                                                        AND sequence = 2 AND status = 'pending') AS next`;
    expect(Number(successful)).toBe(PAYMENTS);
    // every subscription moved on to its next cycle, once
    expect(Number(next)).toBe(PAYMENTS);
    const statuses = await suite.env.prisma.subscription.groupBy({
      by: ['status'],
      where: { id: { in: subscriptions } },
      _count: true,
    });
    expect(statuses).toEqual([{ status: 'current', _count: PAYMENTS }]);
  }, 240_000);
});
