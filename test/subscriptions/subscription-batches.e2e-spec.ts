// POST /subscriptions/batches and GET /subscriptions/batches/{id} through the official SDK
// (subscriptions.createBatch, getBatch, pollBatch): subscriptions and a charge created together, all
// or nothing, the batch's status read from theirs while the engine and charge-service process them.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { SubscriptionPeriod } from 'univapay-node';
import { DAILY_QUOTAS } from '@kessai/domain';
import {
  APPROVED_TEST_CARD,
  sdkCardToken,
  sdkError,
  sdkFor,
  setTestChargesToday,
  useSuite,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const DECLINED_CARD = '4111111111111111';

const suite = useSuite({
  variables: { SUBSCRIPTION_SCHEDULER_IDLE_MS: '50', CHARGE_POLLING_MAX_WAIT_MS: '3000' },
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
  workers: ['charge-service', 'subscription-service'],
});

const sdk = (merchant = suite.merchants.shop): SDK => sdkFor(suite.url, merchant.storeToken);

function subscriptionToken(cardNumber = APPROVED_TEST_CARD): Promise<any> {
  return sdkCardToken(sdk(), { cardNumber, type: 'subscription' });
}

const subscription = (transactionTokenId: string, amount = 1000) => ({
  transactionTokenId,
  amount,
  currency: 'JPY',
  period: SubscriptionPeriod.MONTHLY,
});

const createdOn = (tokenId: string) =>
  suite.env.prisma.subscription.count({ where: { transactionTokenId: tokenId } });

describe('subscription batches', () => {
  it('creates subscriptions and a charge together; the batch is successful once all of them are', async () => {
    const [first, second] = [await subscriptionToken(), await subscriptionToken()];
    const oneShot = await sdkCardToken(sdk());
    const batch: any = await sdk().subscriptions.createBatch({
      subscriptions: [subscription(first.id), subscription(second.id, 2000)],
      charges: [{ transactionTokenId: oneShot.id, amount: 500, currency: 'JPY' }],
      initialChargeMetadata: JSON.stringify({ order: 'A-1' }),
    });
    expect(batch).toMatchObject({
      status: 'awaiting',
      subscriptionIds: [expect.any(String), expect.any(String)],
    });
    expect(batch.chargeId).toEqual(expect.any(String));

    const done: any = await sdk().subscriptions.pollBatch(batch.batchId);
    expect(done).toMatchObject({ batchId: batch.batchId, status: 'successful', chargeId: batch.chargeId });
    const charge: any = await sdk().charges.get(suite.merchants.shop.store.id, batch.chargeId);
    expect(charge).toMatchObject({ status: 'successful', requestedAmount: 500, metadata: { order: 'A-1' } });
    for (const id of batch.subscriptionIds) {
      const created: any = await sdk().subscriptions.get(suite.merchants.shop.store.id, id);
      expect(created.status).toBe('current');
    }
    // another merchant cannot see it
    expect(await sdkError(sdk(suite.merchants.foreign).subscriptions.getBatch(batch.batchId))).toMatchObject({
      httpCode: 404,
    });
  });

  it('fails when a subscription’s first payment fails', async () => {
    const declined = await subscriptionToken(DECLINED_CARD);
    const approved = await subscriptionToken();
    const batch: any = await sdk().subscriptions.createBatch({
      subscriptions: [subscription(approved.id), subscription(declined.id)],
    });
    expect(batch.chargeId).toBeUndefined();
    const done: any = await sdk().subscriptions.pollBatch(batch.batchId);
    expect(done.status).toBe('failed');
    const statuses = await suite.env.prisma.subscription.findMany({
      where: { id: { in: batch.subscriptionIds } },
      select: { transactionTokenId: true, status: true },
    });
    expect(statuses).toEqual(
      expect.arrayContaining([
        { transactionTokenId: declined.id, status: 'unconfirmed' },
        { transactionTokenId: approved.id, status: 'current' },
      ]),
    );
  });

  it('creates nothing when one subscription is invalid, naming it', async () => {
    const [first, second] = [await subscriptionToken(), await subscriptionToken()];
    const error = await sdkError(
      sdk().subscriptions.createBatch({
        subscriptions: [subscription(first.id), subscription(second.id, 0)],
      }),
    );
    expect(error).toMatchObject({ httpCode: 400, code: 'VALIDATION_ERROR' });
    expect(error.errors).toContainEqual({
      field: 'subscriptions[1].amount',
      reason: 'CHARGE_AMOUNT_TOO_LOW',
    });
    expect(await createdOn(first.id)).toBe(0);
    expect(await createdOn(second.id)).toBe(0);
  });

  it('creates nothing when the charge is refused at the write (the daily test quota), with its error', async () => {
    const token = await subscriptionToken();
    const oneShot = await sdkCardToken(sdk());
    await setTestChargesToday(suite.env, suite.merchants.shop, DAILY_QUOTAS.test_charge);
    try {
      const error = await sdkError(
        sdk().subscriptions.createBatch({
          subscriptions: [subscription(token.id)],
          charges: [{ transactionTokenId: oneShot.id, amount: 500, currency: 'JPY' }],
        }),
      );
      expect(error).toMatchObject({ code: 'RESOURCE_LIMIT_REACHED' });
      expect(await createdOn(token.id)).toBe(0);
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: oneShot.id } })).toBe(0);
      // the one_time token was not used up by the charge that rolled back
      expect(
        await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: oneShot.id } }),
      ).toMatchObject({
        active: true,
        usedCount: 0,
      });
    } finally {
      await setTestChargesToday(suite.env, suite.merchants.shop, 0);
    }
  });

  it('refuses an empty batch, more than one charge, and unknown fields', async () => {
    const token = await subscriptionToken();
    const oneShot = await sdkCardToken(sdk());
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ subscriptions: [] }, 'subscriptions'],
      [
        {
          subscriptions: [subscription(token.id)],
          charges: [
            { transactionTokenId: oneShot.id, amount: 500, currency: 'JPY' },
            { transactionTokenId: oneShot.id, amount: 600, currency: 'JPY' },
          ],
        },
        'charges',
      ],
      [{ subscriptions: [subscription(token.id)], color: 'red' }, 'color'],
    ];
    for (const [body, field] of cases) {
      const error = await sdkError(sdk().subscriptions.createBatch(body as never));
      expect(error).toMatchObject({ httpCode: 400 });
      expect(error.errors.map((entry: any) => entry.field)).toContain(field);
    }
    expect(await createdOn(token.id)).toBe(0);
  });
});
