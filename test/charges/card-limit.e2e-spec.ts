// The store's card limit (card_configuration.card_limit, issue 30 gap 2, decision 0070) through the
// official univapay-node SDK: set and shown as the SDK types it, and enforced at POST /charges with
// the SDK's CARD_LIMIT_EXCEEDED_FOR_STORE over every token of the same card at the store, in the
// limit's currency and window; charges sent side by side cannot together pass it (a busy card:
// card-limit-contention.e2e-spec.ts). The real gateway in-process, Postgres and Redis; no
// charge-service, so accepted charges stay pending (which count).
import {
  eventually,
  ordinaryCardNumber,
  sdkCardToken,
  sdkError,
  updateChargeRow,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, other: { pci: true } },
});

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

const LIMIT = { amount: 10_000, currency: 'JPY', duration: 'P1D' };

const setLimit = (cardLimit: typeof LIMIT | null) =>
  sdk().stores.update(storeId(), {
    configuration: { cardConfiguration: { cardLimit } as { cardLimit: typeof LIMIT } },
  });

const charge = (transactionTokenId: string, amount: number, currency = 'JPY') =>
  sdk().charges.create({ transactionTokenId, amount, currency });

/** a recurring token of `cardNumber`: one card can be charged again and again through it */
const tokenOf = async (cardNumber: string) =>
  (await sdkCardToken(sdk(), { cardNumber, type: 'recurring' })).id;

const overLimit = {
  code: 'CARD_LIMIT_EXCEEDED_FOR_STORE',
  httpCode: 400,
  errors: [{ field: 'amount', reason: 'CARD_LIMIT_EXCEEDED_FOR_STORE' }],
};

afterEach(async () => {
  await setLimit(null);
});

describe('card_configuration.card_limit', () => {
  it('is absent until set, then shown as the SDK types it; null removes it', async () => {
    expect((await sdk().stores.get(storeId())).configuration.cardConfiguration).not.toHaveProperty(
      'cardLimit',
    );
    const set = await setLimit(LIMIT);
    expect(set.configuration.cardConfiguration.cardLimit).toEqual(LIMIT);
    expect((await sdk().stores.get(storeId())).configuration.cardConfiguration.cardLimit).toEqual(LIMIT);
    const removed = await setLimit(null);
    expect(removed.configuration.cardConfiguration).not.toHaveProperty('cardLimit');
  });

  it('refuses a limit the SDK would not mean: a bad period, currency or amount', async () => {
    const bad: [Record<string, unknown>, string, string][] = [
      [{ ...LIMIT, duration: 'PT1H' }, 'duration', 'INVALID_TIME_PERIOD'],
      [{ ...LIMIT, duration: 'P2Y' }, 'duration', 'INVALID_TIME_PERIOD'],
      [{ ...LIMIT, duration: 'monthly' }, 'duration', 'INVALID_TIME_PERIOD'],
      [{ ...LIMIT, currency: 'XXY' }, 'currency', 'UNSUPPORTED_CURRENCY'],
      [{ ...LIMIT, amount: 0 }, 'amount', 'NOT_WITHIN_BOUNDS'],
    ];
    for (const [cardLimit, field, reason] of bad) {
      const error = await sdkError(setLimit(cardLimit as typeof LIMIT));
      expect(error).toMatchObject({
        code: 'VALIDATION_ERROR',
        httpCode: 400,
        errors: [{ field: `configuration.card_configuration.card_limit.${field}`, reason }],
      });
    }
    expect((await sdk().stores.get(storeId())).configuration.cardConfiguration).not.toHaveProperty(
      'cardLimit',
    );
  });

  it("sums one card's charges at the store over all its tokens, in the limit's currency and window", async () => {
    await setLimit(LIMIT);
    const card = ordinaryCardNumber();
    const first = await tokenOf(card);
    const second = await tokenOf(card);

    const accepted = await charge(first, 6000);
    expect(accepted.status).toBe('pending');
    // the same card through another token: 6,000 + 5,000 passes 10,000
    expect(await sdkError(charge(second, 5000))).toMatchObject(overLimit);
    // exactly up to the limit is fine
    expect((await charge(second, 4000)).status).toBe('pending');
    expect(await sdkError(charge(first, 1))).toMatchObject(overLimit);
    // a charge over the limit alone is refused as well
    expect(await sdkError(charge(await tokenOf(ordinaryCardNumber()), 10_001))).toMatchObject(overLimit);

    // another card, another currency, another store: not this card's limit
    expect((await charge(await tokenOf(ordinaryCardNumber()), 9000)).status).toBe('pending');
    expect((await charge(first, 50_000, 'USD')).status).toBe('pending');
    const elsewhere = await sdkCardToken(suite.sdk.other, { cardNumber: card, type: 'recurring' });
    expect(
      (
        await suite.sdk.other.charges.create({
          transactionTokenId: elsewhere.id,
          amount: 9000,
          currency: 'JPY',
        })
      ).status,
    ).toBe('pending');

    // a refused charge wrote nothing: the card's charges at the store are the two accepted in yen
    const rows = await suite.env.prisma.charge.findMany({
      where: { storeId: storeId(), transactionTokenId: { in: [first, second] }, requestedCurrency: 'JPY' },
    });
    expect(rows.map((r) => Number(r.requestedAmount)).sort((a, b) => a - b)).toEqual([4000, 6000]);

    // a charge that failed takes no money and frees its share; one older than the window does too
    await updateChargeRow(suite.env, accepted.id, `status = 'failed'`);
    expect((await charge(first, 3000)).status).toBe('pending');
    const [older] = rows.filter((r) => Number(r.requestedAmount) === 4000);
    await updateChargeRow(suite.env, older.id, `created_on = created_on - interval '25 hours'`);
    expect((await charge(second, 7000)).status).toBe('pending');
    expect(await sdkError(charge(second, 1))).toMatchObject(overLimit);
  });

  it('lets charges sent side by side pass only as far as the limit, never together beyond it', async () => {
    await setLimit(LIMIT);
    const card = ordinaryCardNumber();
    // 9,000 of the card's 10,000 used; then twelve one_time tokens of the same card, charged 1,000
    // each at once: exactly one of them fits
    await charge((await sdkCardToken(sdk(), { cardNumber: card })).id, 9000);
    const tokens = await Promise.all(
      Array.from({ length: 12 }, async () => (await sdkCardToken(sdk(), { cardNumber: card })).id),
    );
    // the store's test-mode quota row (it exists: the charge above took a unit) is held here, so
    // that the charge that took the card's lock waits on it in its statement, while the others find
    // the card's lock taken and try again outside Postgres (decision 0076): one waits, never more
    let sent: Promise<PromiseSettledResult<unknown>[]> | undefined;
    await suite.env.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe(`SELECT 1 FROM daily_quota_usage WHERE resource = 'test_charge' FOR UPDATE`);
        sent = Promise.allSettled(tokens.map((token) => charge(token, 1000)));
        await eventually(
          async () => {
            const [{ waiting }] = await suite.env.prisma.$queryRawUnsafe<{ waiting: number }[]>(
              `SELECT count(*)::int AS waiting FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            );
            expect(waiting).toBeLessThanOrEqual(1);
            return waiting === 1;
          },
          { timeoutMs: 20_000, what: 'the charge holding the card to wait in Postgres' },
        );
      },
      { timeout: 30_000 },
    );
    // the quota row is released: the charges go on, one after the other on the card's lock (well
    // within the time a creation tries it)
    const settled = await sent!;
    const created = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.filter((s) => s.status === 'rejected');
    expect(created).toHaveLength(1);
    for (const r of refused) {
      expect((r.reason as { errorResponse?: unknown }).errorResponse).toMatchObject(overLimit);
    }
    const total = await suite.env.prisma.charge.aggregate({
      where: { transactionTokenId: { in: tokens } },
      _sum: { requestedAmount: true },
    });
    expect(Number(total._sum.requestedAmount)).toBe(1000);
  });
});
