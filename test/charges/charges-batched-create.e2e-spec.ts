// ChargesRepository.createMany: the one statement that concurrent POST /charges share (claim each
// token, take each quota unit, insert each charge and its charge_requested), and how a refusal or an
// error in it falls back to creating each charge alone. Against real Postgres; the gateway in-process
// makes the tokens.
import { randomUUID } from 'node:crypto';
import { CHARGE_REQUESTED } from '@kessai/contracts';
import {
  ChargesRepository,
  type ChargeCreation,
  type CreateChargeOptions,
  type DailyQuota,
} from '@kessai/db';
import { DAILY_QUOTAS } from '@kessai/domain';
import {
  type GatewayClient,
  lastWriterOf,
  outboxEventsOf,
  REAL_CARD_NUMBER,
  setTestChargesToday,
  testChargesToday,
  useSuite,
  type SeededMerchant,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});

describe('charges created together (ChargesRepository.createMany, what concurrent POST /charges share)', () => {
  let repository: ChargesRepository;
  let busy: SeededMerchant;
  let busyApi: GatewayClient;
  beforeAll(async () => {
    repository = new ChargesRepository(suite.env.prisma);
    busy = await suite.env.seedPciMerchant('together');
    busyApi = suite.gateway.as(busy);
  });

  /** createMany's results, each required to have succeeded (a failed one fails the test with its reason) */
  const createAll = async (creations: ChargeCreation[]) =>
    (await repository.createMany(creations)).map((settled) => {
      if (settled.status === 'rejected') throw settled.reason;
      return settled.value;
    });

  const quotaOf = (seeded: SeededMerchant): DailyQuota => ({
    resource: 'test_charge',
    scope: { merchantId: seeded.merchant.id, storeId: seeded.store.id },
    max: DAILY_QUOTAS.test_charge,
  });

  async function creation(
    seeded: SeededMerchant,
    tokenId: string,
    overrides: { duplicateRule?: CreateChargeOptions['duplicateRule']; amount?: bigint } = {},
  ): Promise<ChargeCreation> {
    const token = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
    return {
      charge: {
        id: randomUUID(),
        merchantId: seeded.merchant.id,
        storeId: seeded.store.id,
        transactionTokenId: tokenId,
        transactionTokenType: token.type,
        mode: token.mode,
        requestedAmount: overrides.amount ?? 1200n,
        requestedCurrency: 'JPY',
        capture: true,
        captureAt: null,
        expiresOn: null,
        matchAmount: null,
        descriptor: null,
        onlyDirectCurrency: false,
        feeRatePpm: 0,
        feeFlatAmount: 0n,
        threeDs: null,
        redirect: { endpoint: 'https://shop.example.test/done' },
        metadata: { order: tokenId },
      },
      options: {
        duplicateRule: overrides.duplicateRule ?? null,
        quota: token.mode === 'test' ? quotaOf(seeded) : null,
        correlationId: `req-${tokenId}`,
        now: new Date(),
      },
    };
  }

  it('creates them in one statement: each charge pending with its event, token use and quota unit', async () => {
    const live = await suite.env.liveStoreToken(suite.merchants.shop);
    const tokens = await Promise.all([
      suite.api.shop.cardToken(),
      suite.api.shop.cardToken(),
      suite.api.foreign.cardToken(),
    ]);
    const liveToken = await suite.gateway.as(live).cardToken({ cardNumber: REAL_CARD_NUMBER });
    const creations = [
      await creation(suite.merchants.shop, tokens[0]),
      await creation(suite.merchants.shop, tokens[1]),
      await creation(suite.merchants.foreign, tokens[2]),
      await creation(suite.merchants.shop, liveToken),
    ];
    const [shopBefore, foreignBefore] = [
      await testChargesToday(suite.env, suite.merchants.shop),
      await testChargesToday(suite.env, suite.merchants.foreign),
    ];

    const results = await createAll(creations);

    expect(results.map((result) => result.outcome)).toEqual(['created', 'created', 'created', 'created']);
    const writers = new Set<string | undefined>();
    for (const [i, { charge: wanted, options }] of creations.entries()) {
      const result = results[i];
      if (result.outcome !== 'created') throw new Error('not created');
      const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: wanted.id } });
      expect(row).toMatchObject({
        status: 'pending',
        storeId: wanted.storeId,
        transactionTokenId: wanted.transactionTokenId,
        mode: wanted.mode,
        requestedAmount: 1200n,
        redirect: { endpoint: 'https://shop.example.test/done' },
        metadata: { order: wanted.transactionTokenId },
      });
      expect(result.charge).toMatchObject({ id: wanted.id, status: 'pending', createdOn: row.createdOn });
      const events = await outboxEventsOf(suite.env, wanted.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        eventType: CHARGE_REQUESTED,
        storeId: wanted.storeId,
        payload: { charge_id: wanted.id, store_id: wanted.storeId },
        correlationId: options.correlationId,
      });
      const token = await suite.env.prisma.transactionToken.findUniqueOrThrow({
        where: { id: wanted.transactionTokenId },
      });
      expect(token).toMatchObject({ usedCount: 1, active: false });
      expect(token.lastUsedOn).toEqual(options.now);
      writers.add(await lastWriterOf(suite.env, 'charges', wanted.id));
      writers.add(await lastWriterOf(suite.env, 'outbox_events', events[0].id));
      writers.add(await lastWriterOf(suite.env, 'transaction_tokens', wanted.transactionTokenId));
    }
    expect(writers.size).toBe(1); // one transaction wrote all of it
    expect(await testChargesToday(suite.env, suite.merchants.shop)).toBe(shopBefore + 2); // the live charge takes no test quota
    expect(await testChargesToday(suite.env, suite.merchants.foreign)).toBe(foreignBefore + 1);
  });

  it('a refused claim writes nothing together: each charge is then created alone, the refused one told why', async () => {
    const used = await busyApi.cardToken();
    await busyApi.charge(used);
    const fresh = await Promise.all([busyApi.cardToken(), busyApi.cardToken()]);
    const creations = [
      await creation(busy, fresh[0]),
      await creation(busy, used),
      await creation(busy, fresh[1]),
    ];
    const before = await testChargesToday(suite.env, busy);

    const results = await createAll(creations);

    expect(results.map((result) => result.outcome)).toEqual(['created', 'token_not_claimable', 'created']);
    expect(
      await suite.env.prisma.charge.count({ where: { id: { in: creations.map((c) => c.charge.id) } } }),
    ).toBe(2);
    expect(await outboxEventsOf(suite.env, creations[1].charge.id)).toEqual([]);
    expect(await testChargesToday(suite.env, busy)).toBe(before + 2);
    // written by two transactions of their own, not the refused shared one
    expect(await lastWriterOf(suite.env, 'charges', creations[0].charge.id)).not.toBe(
      await lastWriterOf(suite.env, 'charges', creations[2].charge.id),
    );
  });

  it('a quota short of the batch: exactly what is left is taken, the rest refused as quota_exhausted', async () => {
    const mine = await Promise.all(Array.from({ length: 4 }, () => busyApi.cardToken()));
    const theirs = await suite.api.foreign.cardToken();
    await setTestChargesToday(suite.env, busy, DAILY_QUOTAS.test_charge - 2);
    const creations = [
      ...(await Promise.all(mine.map((id) => creation(busy, id)))),
      await creation(suite.merchants.foreign, theirs),
    ];

    const results = await createAll(creations);

    const outcomes = results.map((result) => result.outcome);
    expect(outcomes.slice(0, 4).sort()).toEqual(['created', 'created', 'quota_exhausted', 'quota_exhausted']);
    expect(outcomes[4]).toBe('created');
    expect(await testChargesToday(suite.env, busy)).toBe(DAILY_QUOTAS.test_charge);
    const refused = creations.filter((_, i) => outcomes[i] === 'quota_exhausted');
    for (const { charge: wanted } of refused) {
      expect(await suite.env.prisma.charge.count({ where: { id: wanted.id } })).toBe(0);
      expect(
        await suite.env.prisma.transactionToken.findUniqueOrThrow({
          where: { id: wanted.transactionTokenId },
        }),
      ).toMatchObject({ usedCount: 0, active: true });
    }
    await setTestChargesToday(suite.env, busy, 0);
  });

  it('a token twice in one call, and a duplicate-checked token, are created alone with their own rules', async () => {
    const once = await busyApi.cardToken();
    const recurring = await busyApi.cardToken({ type: 'recurring' });
    const other = await busyApi.cardToken();
    const rule: CreateChargeOptions['duplicateRule'] = {
      windowSeconds: 30,
      error: { code: 311, message: 'TOO_MANY_CHARGE_REQUESTS', detail: null },
    };
    const creations = [
      await creation(busy, once),
      await creation(busy, once),
      await creation(busy, recurring, { duplicateRule: rule }),
      await creation(busy, recurring, { duplicateRule: rule }),
      await creation(busy, other),
    ];

    const results = await createAll(creations);

    // the second use runs beside the shared statement: whichever claims the token first wins
    expect([results[0].outcome, results[1].outcome].sort()).toEqual(['created', 'token_not_claimable']);
    expect([results[2].outcome, results[3].outcome].sort()).toEqual(['created', 'duplicate']);
    expect(results[4].outcome).toBe('created');
    expect(
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: recurring } })).usedCount,
    ).toBe(1);
  });

  it('an error in the shared statement fails only the charge that caused it; the others are created', async () => {
    const tokens = await Promise.all([busyApi.cardToken(), busyApi.cardToken(), busyApi.cardToken()]);
    const recurring = await busyApi.cardToken({ type: 'recurring' });
    const creations = [
      ...(await Promise.all(tokens.map((id) => creation(busy, id)))),
      await creation(busy, recurring, {
        duplicateRule: {
          windowSeconds: 30,
          error: { code: 311, message: 'TOO_MANY_CHARGE_REQUESTS', detail: null },
        },
      }),
    ];
    creations[1].options.correlationId = 'poison';
    const before = await testChargesToday(suite.env, busy);
    await suite.env.prisma.$executeRawUnsafe(`
      CREATE FUNCTION poison_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.correlation_id = 'poison' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await suite.env.prisma.$executeRawUnsafe(
      `CREATE TRIGGER poison_event BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION poison_event()`,
    );
    let results;
    try {
      results = await repository.createMany(creations);
    } finally {
      await suite.env.prisma.$executeRawUnsafe(`DROP TRIGGER poison_event ON outbox_events`);
      await suite.env.prisma.$executeRawUnsafe(`DROP FUNCTION poison_event()`);
    }

    expect(results.map((settled) => settled.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('injected failure');
    for (const i of [0, 2, 3]) {
      expect(results[i]).toMatchObject({ status: 'fulfilled', value: { outcome: 'created' } });
      expect(await suite.env.prisma.charge.count({ where: { id: creations[i].charge.id } })).toBe(1);
      expect(await outboxEventsOf(suite.env, creations[i].charge.id)).toHaveLength(1);
    }
    expect(await suite.env.prisma.charge.count({ where: { id: creations[1].charge.id } })).toBe(0);
    expect(
      await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokens[1] } }),
    ).toMatchObject({
      usedCount: 0,
      active: true,
    });
    expect(await testChargesToday(suite.env, busy)).toBe(before + 3);
  });

  it('concurrent calls sharing recurring tokens in opposite orders: no deadlock, every use counted', async () => {
    const recurring = await Promise.all(
      Array.from({ length: 6 }, () => busyApi.cardToken({ type: 'recurring' })),
    );
    const calls = await Promise.all(
      Array.from({ length: 6 }, async (_, n) => {
        const order = n % 2 === 0 ? recurring : [...recurring].reverse();
        return Promise.all(order.map((id) => creation(busy, id, { amount: BigInt(1000 + n) })));
      }),
    );

    const results = await Promise.all(calls.map((creations) => createAll(creations)));

    expect(results.flat().every((result) => result.outcome === 'created')).toBe(true);
    const tokens = await suite.env.prisma.transactionToken.findMany({ where: { id: { in: recurring } } });
    expect(tokens.map((token) => token.usedCount)).toEqual(Array<number>(6).fill(6));
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: { in: recurring } } })).toBe(
      36,
    );
  });
});
