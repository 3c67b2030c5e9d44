// Partial refunds of one charge created all at once through two gateway processes: the sum accepted
// never exceeds the charge (REQUEST_REFUND's conditional UPDATE of the charge row is the only guard
// shared by both processes), and each accepted refund is carried out once at the processor. Real
// gateway, charge-service (the outbox relay) and refund-cancel-service processes, Postgres, Redis,
// BullMQ; the processor simulator in process.
import { REFUND_FINISHED } from '@kessai/contracts';
import {
  bearer,
  eventually,
  GatewayClient,
  PROCESS_START_TIMEOUT_MS,
  requestJson,
  useSuite,
  waitForChargeStatus,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret }),
  merchants: { shop: { pci: true, label: 'parallel-refunds' } },
  workers: ['charge-service', 'refund-cancel-service'],
});
let gateways: [string, string];

beforeAll(async () => {
  const [first, second] = await Promise.all([suite.startGatewayProcess(), suite.startGatewayProcess()]);
  gateways = [first.url, second.url];
}, PROCESS_START_TIMEOUT_MS);

/** A card charge of `amount` JPY through the first gateway, once charge-service made it successful. */
async function successfulCharge(amount: number): Promise<string> {
  const api = new GatewayClient(gateways[0]).as(suite.merchants.shop);
  const charge = (await api.charge(await api.cardToken(), { amount })) as { id: string };
  await waitForChargeStatus(suite.env, charge.id, 'successful', { timeoutMs: 15_000 });
  return charge.id;
}

interface Attempt {
  amount: number;
  gateway: number;
  status: number;
  code: string | undefined;
  refundId: string | undefined;
}

/**
 * POSTs one refund per amount, alternating between the two gateways, all started in the same tick
 * (raw HTTP); every answer with what was asked.
 */
async function refundAllAtOnce(chargeId: string, amounts: number[]): Promise<Attempt[]> {
  const path = `/stores/${suite.merchants.shop.store.id}/charges/${chargeId}/refunds`;
  const auth = bearer(suite.merchants.shop.storeToken);
  // one request to each gateway first, so that connections and the route are warm when the burst starts
  await Promise.all(gateways.map((url) => requestJson(url, '/heartbeat')));
  return Promise.all(
    amounts.map(async (amount, i) => {
      const gateway = i % 2;
      const res = await requestJson(gateways[gateway], path, {
        method: 'POST',
        auth,
        json: { amount, currency: 'JPY' },
      });
      const body = res.body as { id?: string; code?: string } | null;
      return { amount, gateway, status: res.status, code: body?.code, refundId: body?.id };
    }),
  );
}

async function chargeRow(chargeId: string) {
  const charge = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: chargeId } });
  return { reserved: Number(charge.refundReservedAmount), refunded: Number(charge.refundedAmount) };
}

/** Every accepted refund successful, its refund_finished written once, executed once at the processor. */
async function expectSettledOnce(accepted: Attempt[]) {
  const ids = accepted.map((a) => a.refundId!);
  await eventually(
    async () =>
      (await suite.env.prisma.refund.count({ where: { id: { in: ids }, status: 'successful' } })) ===
      ids.length,
    { timeoutMs: 30_000, what: `${ids.length} refunds to be successful` },
  );
  const stats = suite.simulator.stats();
  for (const id of ids) {
    const finished = await suite.env.prisma.outboxEvent.count({
      where: { aggregateId: id, eventType: REFUND_FINISHED },
    });
    const { executions } = operationStats(stats, 'refund', id);
    expect({ id, finished, executions }).toEqual({ id, finished: 1, executions: 1 });
  }
}

/** A small seeded generator (mulberry32), so that a failing draw can be replayed from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const total = (amounts: number[]) => amounts.reduce((sum, amount) => sum + amount, 0);
const sum = (attempts: Attempt[]) => total(attempts.map((a) => a.amount));

describe('20 partial refunds of one charge at once, through two gateway processes', () => {
  it('1,000 JPY and 20 × 100: exactly 10 accepted, 10 refused, the charge exactly filled and refunded once each', async () => {
    const chargeId = await successfulCharge(1000);
    const attempts = await refundAllAtOnce(chargeId, Array<number>(20).fill(100));

    const accepted = attempts.filter((a) => a.status === 201);
    const refused = attempts.filter((a) => a.status !== 201);
    expect(accepted).toHaveLength(10);
    expect(refused.map((a) => [a.status, a.code])).toEqual(Array(10).fill([400, 'REFUND_NOT_WITHIN_BOUNDS']));
    expect(sum(accepted)).toBe(1000);
    // the refused ones left nothing behind; the accepted ones are the rows
    const rows = await suite.env.prisma.refund.findMany({ where: { chargeId } });
    expect(rows.map((r) => r.id).sort()).toEqual(accepted.map((a) => a.refundId).sort());
    expect((await chargeRow(chargeId)).reserved).toBe(1000);

    await expectSettledOnce(accepted);
    expect(await chargeRow(chargeId)).toEqual({ reserved: 1000, refunded: 1000 });
    // nothing is left: one more yen is refused
    const [late] = await refundAllAtOnce(chargeId, [1]);
    expect([late.status, late.code]).toEqual([400, 'REFUND_NOT_WITHIN_BOUNDS']);
  }, 90_000);

  it('1,500 JPY and 20 of random sizes 1..300: within the charge, and each refused one really did not fit', async () => {
    const seed = Date.now() % 1_000_000;
    const random = seededRandom(seed);
    const amounts = Array.from({ length: 20 }, () => 1 + Math.floor(random() * 300));
    // the burst must ask for more than the charge, or nothing could be refused (about 3,000 on average)
    if (total(amounts) <= 1500) amounts[0] += 1500;
    const chargeId = await successfulCharge(1500);
    const attempts = await refundAllAtOnce(chargeId, amounts);

    const accepted = attempts.filter((a) => a.status === 201);
    const refused = attempts.filter((a) => a.status !== 201);
    const acceptedSum = sum(accepted);
    const context = { seed, amounts, acceptedSum };
    expect({ ...context, refusedCodes: [...new Set(refused.map((a) => `${a.status} ${a.code}`))] }).toEqual({
      ...context,
      refusedCodes: ['400 REFUND_NOT_WITHIN_BOUNDS'],
    });
    expect(acceptedSum).toBeLessThanOrEqual(1500);
    // A refund was refused against what was reserved when it ran, which is at most the final
    // accepted sum (nothing is released here: every refund succeeds), so none of them fit beside it.
    for (const a of refused) {
      expect({ ...context, refused: a.amount, fits: acceptedSum + a.amount <= 1500 }).toEqual({
        ...context,
        refused: a.amount,
        fits: false,
      });
    }
    expect(await suite.env.prisma.refund.count({ where: { chargeId } })).toBe(accepted.length);
    expect((await chargeRow(chargeId)).reserved).toBe(acceptedSum);

    await expectSettledOnce(accepted);
    expect(await chargeRow(chargeId)).toEqual({ reserved: acceptedSum, refunded: acceptedSum });
  }, 90_000);
});
