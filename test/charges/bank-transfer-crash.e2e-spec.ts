// Bank-transfer charges through a kill -9 (docs/bank-transfer-and-konbini.md): two charge-service
// processes take a batch of awaiting charges reaching their deadline and a batch being paid at the
// simulated bank (two transfers each, match_amount exact); one process is killed with work in
// flight and another started. Every charge ends in exactly one final state with exactly one
// charge_finished, every expired charge is voided once, and every transfer is recorded exactly
// once (no deposit lost, none applied twice). The gateway in-process; Postgres, Redis, BullMQ, the
// processor simulator real; the network between charge-service and the simulator slow, so that
// calls are at the bank, carried out or not, when the process dies.
import { PaymentType } from 'univapay-node';
import { BANK_TRANSFER_STATUS_UPDATED, CHARGE_FINISHED } from '@kessai/contracts';
import { eventually, useSuite, type SpawnedApp } from '@kessai/testing';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

/** charges of each batch */
const BATCH = 20;
const AMOUNT = 5000;
/** each paid charge receives these, in this order: the first leaves it awaiting, the second pays it */
const TRANSFERS = [3000, 2000];

type Any = any;

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  slowNetwork: true,
  gateway: createGatewayApp,
  merchants: { shop: { label: 'bank-crash' } },
  callbacks: true,
  workerVariables: {
    CHARGE_SWEEP_INTERVAL_MS: '200',
    CHARGE_WORKER_CONCURRENCY: '8',
    // the dead process's jobs are taken over after this long
    CHARGE_JOB_LOCK_MS: '1000',
  },
});

async function startChargeService(): Promise<SpawnedApp> {
  return (await suite.startWorker('charge-service')).app;
}

/** An accepted bank-transfer charge of AMOUNT yen, its deadline `expirationPeriod` after acceptance. */
async function bankCharge(expirationPeriod: string): Promise<string> {
  const sdk = suite.sdk.shop;
  const token: Any = await sdk.transactionTokens.create({
    paymentType: PaymentType.BANK_TRANSFER,
    type: 'one_time',
    email: 'buyer@example.test',
    data: { brand: 'bank_test_brand', expirationPeriod },
  } as Any);
  const charge: Any = await sdk.charges.create({
    transactionTokenId: token.id,
    amount: AMOUNT,
    currency: 'JPY',
  });
  return charge.id as string;
}

/** The virtual account number of an awaiting charge. */
async function accountOf(chargeId: string): Promise<string> {
  const api = suite.api.shop;
  return eventually(
    async (): Promise<string | null> => {
      const res = await api.request(
        `/stores/${suite.merchants.shop.store.id}/charges/${chargeId}/issuer_token`,
      );
      return res.status === 200 ? String(res.body.payload.account_number) : null;
    },
    { timeoutMs: 30_000, what: `charge ${chargeId} awaiting with its account` },
  );
}

/** A transfer into the account; the bank's id of the deposit. */
async function transfer(account: string, amount: number): Promise<string> {
  const res = await fetch(`${suite.simulator.url}/bank/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account_number: account, amount }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { deposit_id: string }).deposit_id;
}

const countFinal = () =>
  suite.env.prisma.charge.count({ where: { status: { in: ['successful', 'failed', 'error', 'canceled'] } } });

describe('bank transfers through a charge-service crash', () => {
  it('killed mid-run and restarted: each charge final once, each expiry voided once, each deposit recorded once', async () => {
    const first = await startChargeService();
    await startChargeService();

    // one batch awaiting its transfers, then one whose deadlines pass while those are being paid
    const paid = await Promise.all(Array.from({ length: BATCH }, () => bankCharge('P1D')));
    const accounts = new Map<string, string>();
    for (const id of paid) accounts.set(id, await accountOf(id));
    const expiring = await Promise.all(Array.from({ length: BATCH }, () => bankCharge('PT2S')));
    const count = (status: 'successful' | 'failed') => suite.env.prisma.charge.count({ where: { status } });
    // the transfers start as the expiries do
    await eventually(async () => (await count('failed')) >= 1, {
      timeoutMs: 30_000,
      intervalMs: 5,
      what: 'the first expiry',
    });

    const deposits = new Map<string, string[]>();
    const paying = Promise.all(
      paid.map(async (id) => {
        const ids: string[] = [];
        for (const amount of TRANSFERS) ids.push(await transfer(accounts.get(id) ?? '', amount));
        deposits.set(id, ids);
      }),
    );

    // some charges paid and some expired, others with calls at the bank whose answers have not come back yet
    await eventually(async () => (await count('successful')) >= 1 && suite.network.held >= 2, {
      timeoutMs: 30_000,
      intervalMs: 5,
      what: 'the first payments, with answers on their way',
    });
    expect(await first.stop('SIGKILL')).toBeNull();
    const finalAtCrash = await countFinal();
    expect(finalAtCrash).toBeLessThan(2 * BATCH);
    await startChargeService();
    await paying;

    await eventually(async () => (await countFinal()) === 2 * BATCH, {
      timeoutMs: 60_000,
      what: 'every charge to be final',
    });

    const stats = suite.simulator.stats();
    const rows = await suite.env.prisma.charge.findMany({
      select: { id: true, status: true, chargedAmount: true, errorCode: true },
    });
    expect(rows).toHaveLength(2 * BATCH);
    const events = await suite.env.prisma.outboxEvent.groupBy({
      by: ['aggregateId', 'eventType'],
      where: { eventType: { in: [CHARGE_FINISHED, BANK_TRANSFER_STATUS_UPDATED] } },
      _count: { _all: true },
    });
    const eventCount = (id: string, type: string) =>
      events.find((e) => e.aggregateId === id && e.eventType === type)?._count._all ?? 0;

    for (const id of expiring) {
      const row = rows.find((r) => r.id === id);
      expect({ id, status: row?.status, error: row?.errorCode }).toEqual({
        id,
        status: 'failed',
        error: 327,
      });
      expect({ id, finished: eventCount(id, CHARGE_FINISHED) }).toEqual({ id, finished: 1 });
      expect({ id, voids: operationStats(stats, 'void', `expiry-${id}`).executions }).toEqual({
        id,
        voids: 1,
      });
    }
    const recorded = await suite.env.prisma.chargeDeposit.findMany();
    for (const id of paid) {
      const row = rows.find((r) => r.id === id);
      expect({ id, status: row?.status, charged: row?.chargedAmount }).toEqual({
        id,
        status: 'successful',
        charged: BigInt(AMOUNT),
      });
      expect({ id, finished: eventCount(id, CHARGE_FINISHED) }).toEqual({ id, finished: 1 });
      expect({ id, voids: operationStats(stats, 'void', `expiry-${id}`).requests }).toEqual({ id, voids: 0 });
      // every transfer the bank took, once: none lost, none twice, each announced once
      const own = recorded.filter((d) => d.chargeId === id);
      const sent = deposits.get(id) ?? [];
      expect({
        id,
        deposits: sent.map((depositId) => {
          const row = own.find((d) => d.processorDepositId === depositId);
          return row && [Number(row.amount), row.matched, row.receivedAfterEnd];
        }),
        rows: own.length,
      }).toEqual({
        id,
        // the first leaves the total short (exact), the second makes it right
        deposits: TRANSFERS.map((amount, i) => [amount, i === TRANSFERS.length - 1, false]),
        rows: TRANSFERS.length,
      });
      expect({ id, announced: eventCount(id, BANK_TRANSFER_STATUS_UPDATED) }).toEqual({ id, announced: 2 });
    }
    // no money for the charges that expired: they were never paid
    expect(recorded.filter((d) => expiring.includes(d.chargeId))).toEqual([]);
  }, 180_000);
});
