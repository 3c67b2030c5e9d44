import { Queue } from 'bullmq';
import { CHARGES_QUEUE } from '@kessai/contracts';
import { RedisService } from '@kessai/redis';
import {
  eventually,
  insertCardToken,
  insertPendingCharge,
  useSuite,
  type SeededMerchant,
  type SpawnedApp,
} from '@kessai/testing';
import { PendingCvvStore } from '@kessai/vault';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';

const CHARGES = 50;
const FINAL = ['successful', 'failed', 'error'];

const suite = useSuite({
  // slow enough that authorizations are at the processor, carried out or not, when the process
  // dies (SlowNetwork: a call that arrived is carried out even if its caller is gone)
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  slowNetwork: true,
  variables: { CHARGE_WORKER_CONCURRENCY: '8', CHARGE_JOB_LOCK_MS: '1000' },
});
let redis: RedisService;
let cvvs: PendingCvvStore;

beforeAll(async () => {
  redis = new RedisService(suite.env.config);
  await redis.onModuleInit();
  suite.cleanup(() => redis.onModuleDestroy());
  cvvs = new PendingCvvStore(redis, suite.env.config);
});

async function startChargeService(): Promise<SpawnedApp> {
  return (await suite.startWorker('charge-service')).app;
}

/** Card charges (approved and declined) with their charge_requested commands, as the gateway writes them. */
async function createCharges(store: SeededMerchant): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < CHARGES; i++) {
    const cardNumber = i % 5 === 0 ? '4111111111111111' : '4242424242424242';
    const tokenId = await insertCardToken(suite.env, store, { cardNumber });
    ids.push(await insertPendingCharge(suite.env, store, tokenId, { amount: 1000 + i }));
    await cvvs.put(tokenId, '123');
  }
  return ids;
}

function countFinal() {
  return suite.env.prisma.charge.count({ where: { status: { in: ['successful', 'failed', 'error'] } } });
}

describe('charge-service crash', () => {
  it('killed with charges in flight and restarted: every charge final once, the processor executed once', async () => {
    const ids = await createCharges(await suite.env.seedMerchant('crash'));

    const first = await startChargeService();
    // some charges done, most still pending, and some authorized at the processor whose answer
    // has not reached the worker yet
    await eventually(async () => (await countFinal()) >= 5 && suite.network.held >= 2, {
      timeoutMs: 30_000,
      intervalMs: 5,
      what: 'the first outcomes, with answers on their way',
    });
    expect(await first.stop('SIGKILL')).toBeNull();
    const heldAtCrash = suite.network.held;
    const finalAtCrash = await countFinal();
    expect(finalAtCrash).toBeLessThan(CHARGES);

    // the dead worker's jobs are still marked active: they were in flight when it died
    const queue = new Queue(CHARGES_QUEUE.name, {
      connection: { url: suite.env.config.REDIS_URL },
      prefix: suite.env.config.REDIS_PREFIX,
    });
    try {
      expect(await queue.getActiveCount()).toBeGreaterThan(0);
    } finally {
      await queue.close();
    }

    await startChargeService();
    await eventually(async () => (await countFinal()) === CHARGES, {
      timeoutMs: 60_000,
      what: 'every charge to be final',
    });

    const stats = suite.simulator.stats();
    const rows = await suite.env.prisma.$queryRaw<{ id: string; status: string; finished: number }[]>`
      SELECT c.id::text AS id, c.status::text AS status,
             (SELECT count(*)::int FROM outbox_events e
               WHERE e.aggregate_id = c.id AND e.event_type = 'charge_finished') AS finished
        FROM charges c`;
    expect(rows).toHaveLength(CHARGES);
    let repeated = 0;
    for (const row of rows) {
      if (operationStats(stats, 'authorize', row.id).requests > 1) repeated++;
      expect({ id: row.id, final: FINAL.includes(row.status), finished: row.finished }).toEqual({
        id: row.id,
        final: true,
        finished: 1,
      });
      expect({ id: row.id, executions: operationStats(stats, 'authorize', row.id).executions }).toEqual({
        id: row.id,
        executions: 1,
      });
    }
    // the authorizations whose answers were lost in the crash were asked again under the charge
    // id, and the processor answered with what it had done instead of charging twice
    expect({ heldAtCrash, repeatedAtLeast: repeated >= heldAtCrash }).toEqual({
      heldAtCrash,
      repeatedAtLeast: true,
    });
    expect(rows.filter((row) => row.status === 'failed')).toHaveLength(CHARGES / 5);
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(ids));
    // each CVV served its authorization, across the crash, and is gone
    const tokens = await suite.env.prisma.charge.findMany({ select: { transactionTokenId: true } });
    for (const { transactionTokenId } of tokens) expect(await cvvs.take(transactionTokenId)).toBeNull();
  }, 120_000);
});
