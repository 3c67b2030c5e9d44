// POST /stores and DELETE /stores/{id} (issue 18; docs/stores.md) through the official SDK and raw
// HTTP: a merchant creates stores with its merchant-wide credentials; deleting one deactivates it —
// gone from the API, its app tokens refused at once, its name free again — while its charges stay
// readable with the merchant's credentials. The gateway runs in-process.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials } from '@kessai/testing';
import {
  APPROVED_TEST_CARD,
  type GatewayClient,
  sdkError,
  sdkFor,
  useSuite,
  whileHolding,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});
let merchantToken: Credentials;
let foreignMerchantToken: Credentials;

beforeAll(async () => {
  merchantToken = await suite.env.merchantToken(suite.merchants.shop);
  foreignMerchantToken = await suite.env.merchantToken(suite.merchants.foreign);
});

const merchantSdk = () => sdkFor(suite.url, merchantToken);

describe('POST /stores', () => {
  it('creates a store with the merchant’s credentials (201), with its configuration layer', async () => {
    const created: any = await merchantSdk().stores.create({
      name: 'Osaka branch',
      configuration: { minimumChargeAmounts: [{ amount: 500, currency: 'JPY' }] } as any,
    });
    expect(created).toMatchObject({ merchantId: suite.merchants.shop.merchant.id, name: 'Osaka branch' });
    expect(created.configuration.minimumChargeAmounts).toEqual([{ amount: 500, currency: 'JPY' }]);
    const read: any = await merchantSdk().stores.get(created.id);
    expect(read).toMatchObject({ id: created.id, name: 'Osaka branch' });
    const list: any = await merchantSdk().stores.list();
    expect(list.items.map((store: any) => store.id)).toContain(created.id);
  });

  it('refuses a store token (403), a name in use (409), bad input (400) and a logo', async () => {
    const api = suite.gateway.as(merchantToken);
    const storeToken = suite.api.shop;
    const cases: [GatewayClient, unknown, number, string][] = [
      [storeToken, { name: 'From a store token' }, 403, 'INVALID_PERMISSIONS'],
      [api, { name: suite.merchants.shop.store.name }, 409, 'STORE_EXISTS'],
      [api, {}, 400, 'VALIDATION_ERROR'],
      [api, { name: '  ' }, 400, 'VALIDATION_ERROR'],
      [api, { name: 'x'.repeat(101) }, 400, 'VALIDATION_ERROR'],
      [api, { name: 'Logo', logo: 'aGVsbG8=' }, 400, 'VALIDATION_ERROR'],
      [api, { name: 'Fees', configuration: { percent_fee: 0 } }, 400, 'VALIDATION_ERROR'],
      [
        api,
        {
          name: 'Bounds',
          configuration: {
            minimum_charge_amounts: [{ amount: 900, currency: 'JPY' }],
            maximum_charge_amounts: [{ amount: 100, currency: 'JPY' }],
          },
        },
        400,
        'VALIDATION_ERROR',
      ],
    ];
    for (const [client, json, status, code] of cases) {
      const res = await client.request('/stores', { method: 'POST', json });
      expect([json, res.status, res.body.code]).toEqual([json, status, code]);
    }
    expect(
      await suite.env.prisma.store.count({
        where: { merchantId: suite.merchants.shop.merchant.id, name: 'Logo' },
      }),
    ).toBe(0);
  });
});

/** A new store of the shop (through the SDK), and a client under an app token of its own. */
async function storeWithClient(name: string) {
  const store: any = await merchantSdk().stores.create({ name });
  const storeToken = await suite.env.admin.issueAppToken({
    merchantId: suite.merchants.shop.merchant.id,
    storeId: store.id,
    mode: 'test',
    domains: [],
  });
  return { store, storeApi: suite.gateway.as(storeToken) };
}

/**
 * A deletion of the store under way (its first statement, as StoresRepository.delete's, has updated
 * the store's row; its commit is to come) while `request` starts: once the request waits for it, the
 * deletion goes on to the store's tokens (`tokensToo`, as DELETE /stores does) and commits. The
 * request's answer.
 */
function whileDeleting<T>(
  storeId: string,
  what: string,
  request: () => Promise<T>,
  { tokensToo = false } = {},
): Promise<T> {
  return whileHolding(
    suite.env.database.url,
    { sql: 'UPDATE stores SET deleted_on = now() WHERE id = $1', params: [storeId] },
    request,
    what,
    async (_probe, deletion) => {
      if (tokensToo)
        await deletion.query('UPDATE transaction_tokens SET active = false WHERE store_id = $1 AND active', [
          storeId,
        ]);
    },
  );
}

/** DELETE /stores/{id} with the merchant's credentials. */
const deleteStore = (storeId: string) =>
  suite.gateway.as(merchantToken).request(`/stores/${storeId}`, { method: 'DELETE' });

/** A transaction holding the row `id` of `table` FOR UPDATE (or `mode`), as a concurrent writer would. */
const rowLock = (table: string, id: string, mode = 'FOR UPDATE') => ({
  sql: `SELECT id FROM ${table} WHERE id = $1 ${mode}`,
  params: [id],
});

/** A monthly subscription of 1,000 JPY on `token` (else a new subscription token of the store). */
async function subscriptionOf(storeApi: GatewayClient, token?: string): Promise<any> {
  const created = await storeApi.request('/subscriptions', {
    method: 'POST',
    json: {
      transaction_token_id: token ?? (await storeApi.cardToken({ type: 'subscription' })),
      amount: 1000,
      currency: 'JPY',
      period: 'monthly',
      schedule_settings: { zone_id: 'Asia/Tokyo' },
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

describe('DELETE /stores/{id}', () => {
  it('deactivates the store: 204, gone from the API, its app token refused, its charges kept', async () => {
    const { store, storeApi } = await storeWithClient('Pop-up');
    const charge = await storeApi.charge(await storeApi.cardToken(), { amount: 700 });
    expect((await storeApi.request(`/stores/${store.id}`)).status).toBe(200);

    const merchantApi = suite.gateway.as(merchantToken);
    const deleted = await merchantApi.request(`/stores/${store.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);

    expect((await sdkError(merchantSdk().stores.get(store.id))).httpCode).toBe(404);
    const list: any = await merchantSdk().stores.list();
    expect(list.items.map((s: any) => s.id)).not.toContain(store.id);
    // the store's own credentials stop at once (this gateway had them cached)
    expect((await storeApi.request(`/stores/${store.id}`)).status).toBe(401);
    // nothing new can be made for it
    expect(
      (await merchantApi.request(`/stores/${store.id}/app_jwts`, { method: 'POST', json: {} })).status,
    ).toBe(404);
    expect(
      (await merchantApi.request(`/stores/${store.id}`, { method: 'PATCH', json: { name: 'Back' } })).status,
    ).toBe(404);
    // the merchant's records stay: the charge is read with the merchant's credentials
    const read = await merchantApi.request(`/charges/${charge.id}`);
    expect([read.status, read.body.id]).toEqual([200, charge.id]);
    const row = await suite.env.prisma.store.findUniqueOrThrow({ where: { id: store.id } });
    expect(row.deletedOn).toBeInstanceOf(Date);
    expect(
      await suite.env.prisma.transactionToken.count({ where: { storeId: store.id, active: true } }),
    ).toBe(0);

    // deleting again (here through the SDK) is a 404; the name may be used again
    expect((await sdkError(merchantSdk().stores.delete(store.id))).httpCode).toBe(404);
    const again: any = await merchantSdk().stores.create({ name: 'Pop-up' });
    expect(again.id).not.toBe(store.id);
    // and sdk.stores.delete resolves on the 204
    await merchantSdk().stores.delete(again.id);
    expect((await sdkError(merchantSdk().stores.get(again.id))).httpCode).toBe(404);
  });

  it('cancels the store’s subscriptions and deactivates its tokens, each with its event', async () => {
    const { store, storeApi } = await storeWithClient('Closing down');
    const subscriptionToken = await storeApi.cardToken({ type: 'subscription' });
    const created = await subscriptionOf(storeApi, subscriptionToken);
    const oneTime = await storeApi.cardToken();
    // another store's token and subscription: left alone
    const other = suite.api.shop;
    const untouched = await other.cardToken({ type: 'recurring' });
    const otherSubscription = await subscriptionOf(other);

    const merchantApi = suite.gateway.as(merchantToken);
    const deleted = await merchantApi.request(`/stores/${store.id}`, {
      method: 'DELETE',
      headers: { 'x-request-id': 'close-store-1' },
    });
    expect(deleted.status).toBe(204);

    const subscription = await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: created.id } });
    expect(subscription.status).toBe('canceled');
    const payments = await suite.env.prisma.scheduledPayment.findMany({
      where: { subscriptionId: subscription.id },
    });
    expect(payments.map((payment) => payment.status)).toEqual(['canceled']);
    const events = await suite.env.prisma.outboxEvent.findMany({
      where: { correlationId: 'close-store-1' },
      orderBy: { sequence: 'asc' },
    });
    expect(
      events.map((event) => [event.eventType, event.aggregateId]).sort(([, a], [, b]) => (a < b ? -1 : 1)),
    ).toEqual(
      [
        ['subscription_canceled', subscription.id],
        ['token_updated', subscriptionToken],
        ['token_updated', oneTime],
      ].sort(([, a], [, b]) => (a < b ? -1 : 1)),
    );
    expect(events.find((event) => event.eventType === 'token_updated')?.payload).toMatchObject({
      changed: ['active'],
      active: false,
      store_id: store.id,
    });
    expect(
      await suite.env.prisma.transactionToken.count({
        where: { id: { in: [subscriptionToken, oneTime] }, active: true },
      }),
    ).toBe(0);
    expect(
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: untouched } })).active,
    ).toBe(true);
    const kept = await suite.env.prisma.subscription.findUniqueOrThrow({
      where: { id: otherSubscription.id },
    });
    expect(kept.status).toBe(otherSubscription.status);
  });

  it('a subscription created while the store is being deleted waits for the deletion, then is refused', async () => {
    const { store, storeApi } = await storeWithClient('Racing');
    const token = await storeApi.cardToken({ type: 'subscription' });
    const created = await whileDeleting(store.id, 'the subscription insert waiting for the store row', () =>
      storeApi.request('/subscriptions', {
        method: 'POST',
        json: {
          transaction_token_id: token,
          amount: 1000,
          currency: 'JPY',
          period: 'monthly',
          schedule_settings: { zone_id: 'Asia/Tokyo' },
        },
      }),
    );
    expect([created.status, created.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(await suite.env.prisma.subscription.count({ where: { storeId: store.id } })).toBe(0);
  });

  it('a batch with a charge created during the deletion waits for it and is refused: no deadlock', async () => {
    const { store, storeApi } = await storeWithClient('Racing batch');
    const subscriptionToken = await storeApi.cardToken({ type: 'subscription' });
    const oneShot = await storeApi.cardToken();
    const created = await whileDeleting(
      store.id,
      'the batch waiting for the store row',
      () =>
        storeApi.request('/subscriptions/batches', {
          method: 'POST',
          json: {
            subscriptions: [
              {
                transaction_token_id: subscriptionToken,
                amount: 1000,
                currency: 'JPY',
                period: 'monthly',
                schedule_settings: { zone_id: 'Asia/Tokyo' },
              },
            ],
            charges: [{ transaction_token_id: oneShot, amount: 500, currency: 'JPY' }],
          },
        }),
      // the batch, waiting for the store, has claimed none of its tokens
      { tokensToo: true },
    );
    expect([created.status, created.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(await suite.env.prisma.subscription.count({ where: { storeId: store.id } })).toBe(0);
    expect(await suite.env.prisma.charge.count({ where: { storeId: store.id } })).toBe(0);
  });

  it('a token created while the store is being deleted waits for the deletion, then is refused', async () => {
    const { store, storeApi } = await storeWithClient('Racing token');
    const created = await whileDeleting(store.id, 'the token insert waiting for the store row', () =>
      storeApi.request('/tokens', {
        method: 'POST',
        json: {
          payment_type: 'card',
          type: 'recurring',
          email: 'buyer@example.test',
          data: {
            cardholder: 'Taro Yamada',
            card_number: APPROVED_TEST_CARD,
            exp_month: 12,
            exp_year: new Date().getUTCFullYear() + 1,
            cvv: '123',
          },
        },
      }),
    );
    expect([created.status, created.body.code]).toEqual([404, 'NOT_FOUND']);
    // no token left active after the deletion deactivated the store's: none at all here
    expect(await suite.env.prisma.transactionToken.count({ where: { storeId: store.id } })).toBe(0);
  });

  it('a renewal during the deletion waits for it (the store first, as the deletion), then is refused', async () => {
    const { store, storeApi } = await storeWithClient('Racing renewal');
    const old = await storeApi.cardToken({ type: 'recurring' });
    const renewed = await whileDeleting(
      store.id,
      'the renewal waiting for the store row',
      () =>
        storeApi.request(`/stores/${store.id}/tokens/${old}/renew`, {
          method: 'POST',
          json: {
            data: {
              cardholder: 'Hanako Yamada',
              exp_month: 1,
              exp_year: new Date().getUTCFullYear() + 2,
              card_number: '5555555555554444',
              cvv: '321',
            },
          },
        }),
      // the renewal, waiting for the store, holds none of its tokens
      { tokensToo: true },
    );
    expect([renewed.status, renewed.body.code]).toEqual([400, 'CANNOT_UPDATE_TRANSACTION_TOKEN']);
    expect(await suite.env.prisma.transactionToken.count({ where: { storeId: store.id } })).toBe(1);
    expect(
      await suite.env.prisma.transactionToken.count({ where: { storeId: store.id, active: true } }),
    ).toBe(0);
  });

  it('locks the store’s subscriptions in id order, as the engine’s settlements do (no deadlock)', async () => {
    const { store, storeApi } = await storeWithClient('Ordered closing');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await subscriptionOf(storeApi)).id);
    const [lowest, ...others] = ids.sort();
    // the lowest id's row version moves behind the others': a scan meets it last
    await suite.env.prisma
      .$executeRaw`UPDATE subscriptions SET updated_on = updated_on WHERE id = ${lowest}::uuid`;
    // a settlement holds the lowest, as LOCK_SETTLEMENTS would before it goes on to the others
    const deleted = await whileHolding(
      suite.env.database.url,
      rowLock('subscriptions', lowest),
      () => deleteStore(store.id),
      'the deletion waiting for the lowest subscription',
      async (probe) => {
        // the deletion, waiting for the lowest id, holds none of the others: the settlement can
        // take them (NOWAIT fails at once if anything holds one)
        for (const id of others)
          await probe.query('SELECT id FROM subscriptions WHERE id = $1 FOR UPDATE NOWAIT', [id]);
      },
    );
    expect(deleted.status).toBe(204);
    const statuses = await suite.env.prisma.subscription.findMany({ where: { id: { in: ids } } });
    expect(statuses.map((row) => row.status)).toEqual(ids.map(() => 'canceled'));
  });

  it('takes the store’s row before anything else: a token insert under way holds it up, holding nothing', async () => {
    const { store, storeApi } = await storeWithClient('Store first');
    const subscription = (await subscriptionOf(storeApi)).id;
    const token = await storeApi.cardToken({ type: 'recurring' });
    // a token insert under way has read the store FOR SHARE (liveStoreFor)
    const deleted = await whileHolding(
      suite.env.database.url,
      rowLock('stores', store.id, 'FOR SHARE'),
      () => deleteStore(store.id),
      'the deletion waiting for the store row',
      async (probe) => {
        // waiting for the store, the deletion holds none of the store's subscriptions and tokens
        await probe.query('SELECT id FROM subscriptions WHERE id = $1 FOR UPDATE NOWAIT', [subscription]);
        await probe.query('SELECT id FROM transaction_tokens WHERE id = $1 FOR UPDATE NOWAIT', [token]);
      },
    );
    expect(deleted.status).toBe(204);
  });

  it('a charge created during the deletion is not held up by it (its foreign key’s check does not wait)', async () => {
    const { store, storeApi } = await storeWithClient('Charging while closing');
    const subscription = (await subscriptionOf(storeApi)).id;
    const token = await storeApi.cardToken();
    // the deletion under way: past the store's row, waiting for a subscription a settlement holds
    const deleted = await whileHolding(
      suite.env.database.url,
      rowLock('subscriptions', subscription),
      () => deleteStore(store.id),
      'the deletion waiting for the subscription',
      async () => {
        // were the deletion's lock on the store one that the charge's foreign key check waits for,
        // the charge would wait holding its token, which the deletion goes on to lock: a deadlock
        const charged = await Promise.race([
          storeApi.postCharge({ transaction_token_id: token, amount: 1200, currency: 'JPY' }),
          sleep(10_000).then(() => null),
        ]);
        expect(charged?.status).toBe(201);
      },
    );
    expect(deleted.status).toBe(204);
    expect((await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: token } })).active).toBe(
      false,
    );
  });

  it('is for the merchant’s credentials only, and only for its own stores', async () => {
    const storeApi = suite.api.shop;
    expect(
      (await storeApi.request(`/stores/${suite.merchants.shop.store.id}`, { method: 'DELETE' })).status,
    ).toBe(403);
    const other = sdkFor(suite.url, foreignMerchantToken);
    expect((await sdkError(other.stores.delete(suite.merchants.shop.store.id))).httpCode).toBe(404);
    expect((await sdkError(other.stores.delete('not-a-uuid'))).httpCode).toBe(404);
    expect(
      (await suite.env.prisma.store.findUniqueOrThrow({ where: { id: suite.merchants.shop.store.id } }))
        .deletedOn,
    ).toBeNull();
  });
});
