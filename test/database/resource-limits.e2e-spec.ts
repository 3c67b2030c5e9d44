/**
 * The limit mechanisms that later issues call (webhook creation, test charges), against real
 * Postgres with parallel callers. App tokens and password resets are covered through the API in
 * app-jwts and accounts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ConsoleAuditRepository, DailyQuotas, WebhooksRepository, type AccessScope } from '@kessai/db';
import { ACTIVE_LIMITS, DAILY_QUOTAS, ResourceLimitError } from '@kessai/domain';
import { useSuite, type SeededMerchant } from '@kessai/testing';

const suite = useSuite();
let webhooks: WebhooksRepository;
let quotas: DailyQuotas;

beforeAll(() => {
  webhooks = new WebhooksRepository(suite.env.prisma, new ConsoleAuditRepository(suite.env.prisma));
  quotas = new DailyQuotas(suite.env.prisma);
});

function settle<T>(count: number, run: (i: number) => Promise<T>) {
  return Promise.allSettled(Array.from({ length: count }, (_, i) => run(i)));
}

function outcome(results: PromiseSettledResult<unknown>[]) {
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  for (const r of refused) expect(r.reason).toBeInstanceOf(ResourceLimitError);
  return { created: results.length - refused.length, refused: refused.length };
}

/** Random bytes standing for a sealed value (this suite never opens it). */
const bytes = (n: number) => new Uint8Array(randomBytes(n));

describe('webhooks: at most 20 active per merchant or store', () => {
  let seeded: SeededMerchant;
  const newWebhook = (scope: AccessScope, i: number) => ({
    id: randomUUID(),
    merchantId: scope.merchantId,
    storeId: scope.storeId,
    url: `https://hooks.example.test/${i}`,
    triggers: ['charge_finished'],
    secrets: { keyId: 'k', iv: bytes(12), ciphertext: bytes(40), authTag: bytes(16) },
    mode: 'test' as const,
  });
  const active = (scope: AccessScope) =>
    suite.env.prisma.webhook.count({
      where: { merchantId: scope.merchantId, storeId: scope.storeId, active: true },
    });

  beforeAll(async () => {
    seeded = await suite.env.seedMerchant('hooks');
  });

  it('40 parallel creations in one store: exactly 20 are created', async () => {
    const store = { merchantId: seeded.merchant.id, storeId: seeded.store.id };
    const results = await settle(40, (i) =>
      webhooks.createWithinLimit(newWebhook(store, i), ACTIVE_LIMITS.webhook),
    );
    expect(outcome(results)).toEqual({ created: 20, refused: 20 });
    expect(await active(store)).toBe(20);
    const refusal = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refusal.reason).toMatchObject({ code: 'RESOURCE_LIMIT_REACHED', resource: 'webhook' });
  });

  it('counts the merchant-level webhooks and each store apart', async () => {
    const merchant = { merchantId: seeded.merchant.id, storeId: null };
    const results = await settle(40, (i) =>
      webhooks.createWithinLimit(newWebhook(merchant, i), ACTIVE_LIMITS.webhook),
    );
    expect(outcome(results)).toEqual({ created: 20, refused: 20 });
    expect(await active(merchant)).toBe(20);

    const other = await suite.env.admin.createStore({ merchantId: seeded.merchant.id, name: 'hooks Other' });
    const otherScope = { merchantId: seeded.merchant.id, storeId: other.id };
    await expect(
      webhooks.createWithinLimit(newWebhook(otherScope, 0), ACTIVE_LIMITS.webhook),
    ).resolves.toMatchObject({
      storeId: other.id,
      active: true,
    });
    expect(await suite.env.prisma.webhook.count({ where: { merchantId: seeded.merchant.id } })).toBe(41);
  });

  it('a deactivated webhook frees its slot', async () => {
    const store = { merchantId: seeded.merchant.id, storeId: seeded.store.id };
    await expect(
      webhooks.createWithinLimit(newWebhook(store, 99), ACTIVE_LIMITS.webhook),
    ).rejects.toBeInstanceOf(ResourceLimitError);
    const victim = await suite.env.prisma.webhook.findFirstOrThrow({
      where: { storeId: seeded.store.id, active: true },
    });
    await suite.env.prisma.webhook.update({ where: { id: victim.id }, data: { active: false } });
    const results = await settle(5, (i) =>
      webhooks.createWithinLimit(newWebhook(store, 100 + i), ACTIVE_LIMITS.webhook),
    );
    expect(outcome(results)).toEqual({ created: 1, refused: 4 });
    expect(await active(store)).toBe(20);
  });
});

describe('test charges: at most 1,440 per store per UTC day', () => {
  const quotaFor = (seeded: SeededMerchant) => ({
    resource: 'test_charge' as const,
    scope: { merchantId: seeded.merchant.id, storeId: seeded.store.id },
    max: DAILY_QUOTAS.test_charge,
  });

  it('1,500 parallel consumptions: exactly 1,440 succeed, each sees its own count', async () => {
    const seeded = await suite.env.seedMerchant('charges');
    const now = new Date();
    const results = await settle(1500, () => quotas.consume(quotaFor(seeded), now));
    expect(outcome(results)).toEqual({ created: 1440, refused: 60 });
    const counts = results
      .filter((r): r is PromiseFulfilledResult<number> => r.status === 'fulfilled')
      .map((r) => r.value)
      .sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 1440 }, (_, i) => i + 1));
    expect(await quotas.used(quotaFor(seeded), now)).toBe(1440);

    // another store of the same merchant has its own quota
    const sibling = await suite.env.admin.createStore({
      merchantId: seeded.merchant.id,
      name: 'charges Sibling',
    });
    const siblingQuota = {
      ...quotaFor(seeded),
      scope: { merchantId: seeded.merchant.id, storeId: sibling.id },
    };
    await expect(quotas.consume(siblingQuota, now)).resolves.toBe(1);
  });

  it('counts UTC calendar days: the last millisecond of a day and the first of the next are apart', async () => {
    const seeded = await suite.env.seedMerchant('days');
    const quota = { ...quotaFor(seeded), max: 2 };
    const lastMs = new Date('2026-06-30T23:59:59.999Z');
    const nextDay = new Date('2026-07-01T00:00:00.000Z');
    await quotas.consume(quota, new Date('2026-06-30T00:00:00.000Z'));
    await quotas.consume(quota, lastMs);
    await expect(quotas.consume(quota, lastMs)).rejects.toBeInstanceOf(ResourceLimitError);
    await expect(quotas.consume(quota, nextDay)).resolves.toBe(1);
    // 08:59 in Tokyo on July 1st is still June 30th in UTC
    await expect(quotas.consume(quota, new Date('2026-07-01T08:59:00+09:00'))).rejects.toBeInstanceOf(
      ResourceLimitError,
    );
    expect(await quotas.used(quota, lastMs)).toBe(2);
    expect(await quotas.used(quota, nextDay)).toBe(1);
  });

  it('inside the charge-creating transaction: a rollback gives the unit back, and parallel creators stay exact', async () => {
    const seeded = await suite.env.seedMerchant('tx');
    const quota = { ...quotaFor(seeded), max: 5 };
    const now = new Date();
    await expect(
      suite.env.prisma.$transaction(async (tx) => {
        await quotas.consume(quota, now, tx);
        throw new Error('the charge could not be created');
      }),
    ).rejects.toThrow('could not be created');
    expect(await quotas.used(quota, now)).toBe(0);

    // the stand-in for a charge row is an outbox event written in the same transaction
    const results = await settle(40, (i) =>
      suite.env.prisma.$transaction(
        async (tx) => {
          await quotas.consume(quota, now, tx);
          return tx.outboxEvent.create({
            data: {
              merchantId: seeded.merchant.id,
              storeId: seeded.store.id,
              aggregateType: 'charge',
              aggregateId: seeded.store.id,
              eventType: `test_charge_${i}`,
            },
          });
        },
        { maxWait: 10_000, timeout: 10_000 },
      ),
    );
    expect(outcome(results)).toEqual({ created: 5, refused: 35 });
    expect(
      await suite.env.prisma.outboxEvent.count({
        where: { storeId: seeded.store.id, aggregateType: 'charge' },
      }),
    ).toBe(5);
    expect(await quotas.used(quota, now)).toBe(5);
  });

  it('a quota of zero refuses without writing anything', async () => {
    const seeded = await suite.env.seedMerchant('zero');
    await expect(quotas.consume({ ...quotaFor(seeded), max: 0 }, new Date())).rejects.toBeInstanceOf(
      ResourceLimitError,
    );
    expect(await quotas.used(quotaFor(seeded), new Date())).toBe(0);
  });
});
