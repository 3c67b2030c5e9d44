// refund-cancel-service killed (SIGKILL) with refunds at the processor, then started again: every
// refund ends once and the processor carries each out once. The charges are made for real first
// (gateway in process, charge-service, the simulator), so the simulator knows the payments refunded.
import { Queue } from 'bullmq';
import { REFUND_FINISHED, REFUND_REQUESTED, REFUNDS_CANCELS_QUEUE } from '@kessai/contracts';
import { eventually, useSuite, type SpawnedApp } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const REFUNDS = 100;

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  // slow enough that the worker has refunds at the processor whenever it is killed
  slowNetwork: true,
  variables: { REFUND_CANCEL_WORKER_CONCURRENCY: '4', REFUND_CANCEL_JOB_LOCK_MS: '1000' },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  // charge-service makes the charges and runs the outbox relay that publishes the refunds' jobs
  workers: ['charge-service'],
});

async function startRefundCancelService(): Promise<SpawnedApp> {
  return (await suite.startWorker('refund-cancel-service')).app;
}

/** `count` calls of `make`, ten at a time. */
async function inBatches<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += 10) {
    const size = Math.min(10, count - start);
    results.push(...(await Promise.all(Array.from({ length: size }, (_, i) => make(start + i)))));
  }
  return results;
}

/** Successful card charges of 1,000 + i JPY, through the gateway and charge-service. */
async function successfulCharges(): Promise<{ id: string; amount: number }[]> {
  const charges = await inBatches(REFUNDS, async (i) => {
    const charge = (await suite.api.shop.charge(await suite.api.shop.cardToken(), { amount: 1000 + i })) as {
      id: string;
    };
    return { id: charge.id, amount: 1000 + i };
  });
  await eventually(
    async () => (await suite.env.prisma.charge.count({ where: { status: 'pending' } })) === 0,
    {
      timeoutMs: 60_000,
      what: 'every charge to be final',
    },
  );
  expect(await suite.env.prisma.charge.count({ where: { status: 'successful' } })).toBe(REFUNDS);
  return charges;
}

const countFinalRefunds = () => suite.env.prisma.refund.count({ where: { status: { not: 'pending' } } });

/** The refunds' queue as BullMQ sees it, for a count of its jobs. */
async function activeRefundJobs(): Promise<number> {
  const queue = new Queue(REFUNDS_CANCELS_QUEUE.name, {
    connection: { url: suite.env.config.REDIS_URL },
    prefix: suite.env.config.REDIS_PREFIX,
  });
  try {
    return await queue.getActiveCount();
  } finally {
    await queue.close();
  }
}

describe('refund-cancel-service crash', () => {
  it(`killed with refunds in flight and restarted: each of ${REFUNDS} refunds final once, executed once`, async () => {
    const charges = await successfulCharges();
    // a full refund of each, accepted while no refund-cancel-service runs: the jobs wait in the queue
    const refunds = await inBatches(REFUNDS, async (i) => {
      const { id: chargeId, amount } = charges[i];
      const res = await suite.api.shop.request(
        `/stores/${suite.merchants.shop.store.id}/charges/${chargeId}/refunds`,
        {
          method: 'POST',
          json: { amount, currency: 'JPY' },
        },
      );
      expect([res.status, res.text]).toEqual([201, res.text]);
      return { chargeId, amount, refundId: (res.body as { id: string }).id };
    });
    await eventually(
      async () =>
        (await suite.env.prisma.outboxEvent.count({
          where: { eventType: REFUND_REQUESTED, publishedOn: null },
        })) === 0,
      { timeoutMs: 15_000, what: 'the relay to publish every refund_requested' },
    );

    const first = await startRefundCancelService();
    // some refunds done, most still waiting, and some carried out at the processor whose answer
    // has not reached the worker yet
    await eventually(async () => (await countFinalRefunds()) >= 5 && suite.network.held >= 2, {
      timeoutMs: 30_000,
      intervalMs: 5,
      what: 'the first refund outcomes, with answers on their way',
    });
    expect(await first.stop('SIGKILL')).toBeNull();
    const heldAtCrash = suite.network.held;
    const finalAtCrash = await countFinalRefunds();
    expect(finalAtCrash).toBeLessThan(REFUNDS);
    // the dead worker's jobs are still marked active: they were in flight when it died
    expect(await activeRefundJobs()).toBeGreaterThan(0);

    await startRefundCancelService();
    await eventually(async () => (await countFinalRefunds()) === REFUNDS, {
      timeoutMs: 90_000,
      intervalMs: 100,
      what: 'every refund to be final',
    });

    const stats = suite.simulator.stats();
    const rows = await suite.env.prisma.$queryRaw<
      { id: string; status: string; finished: number; reserved: bigint; refunded: bigint; amount: bigint }[]
    >`
      SELECT r.id::text AS id, r.status::text AS status, r.amount,
             c.refund_reserved_amount AS reserved, c.refunded_amount AS refunded,
             (SELECT count(*)::int FROM outbox_events e
               WHERE e.aggregate_id = r.id AND e.event_type = ${REFUND_FINISHED}) AS finished
        FROM refunds r JOIN charges c ON c.id = r.charge_id`;
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(refunds.map((r) => r.refundId)));
    let repeated = 0;
    for (const row of rows) {
      const { executions, requests } = operationStats(stats, 'refund', row.id);
      if (requests > 1) repeated++;
      expect({ id: row.id, status: row.status, finished: row.finished, executions }).toEqual({
        id: row.id,
        status: 'successful',
        finished: 1,
        executions: 1,
      });
      // the charge refunded exactly once, whole
      expect({ id: row.id, reserved: row.reserved, refunded: row.refunded }).toEqual({
        id: row.id,
        reserved: row.amount,
        refunded: row.amount,
      });
    }
    // the refunds whose answers were lost in the crash were asked again under their key, and the
    // processor answered with what it had done instead of refunding twice
    expect({ heldAtCrash, repeatedAtLeast: repeated >= heldAtCrash }).toEqual({
      heldAtCrash,
      repeatedAtLeast: true,
    });
  }, 240_000);
});
