// A subscription whose first payment failed (decision 0031, issue 34): `unconfirmed`, which the SDK's
// poll helpers end on with the failed charge; a new token given to it tries the first payment again
// at once, and the subscription goes on as if it had been paid at first. Through the official SDK:
// the gateway in process, charge-service and subscription-service as processes, the simulator.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { ChargeStatus, SubscriptionPeriod } from 'univapay-node';
import { APPROVED_TEST_CARD, eventually, sdkCardToken, sdkError, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const DECLINED_CARD = '4111111111111111';

const suite = useSuite({
  variables: { SUBSCRIPTION_SCHEDULER_IDLE_MS: '50', CHARGE_POLLING_MAX_WAIT_MS: '3000' },
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'subscription-service'],
});

const sdk = (): SDK => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;
const subscriptionToken = (cardNumber: string) => sdkCardToken(sdk(), { cardNumber, type: 'subscription' });

async function declinedSubscription() {
  const token = await subscriptionToken(DECLINED_CARD);
  const created = await sdk().subscriptions.create({
    transactionTokenId: token.id,
    amount: 1000,
    currency: 'JPY',
    period: SubscriptionPeriod.MONTHLY,
  });
  // the SDK's helper ends on unconfirmed, with the failed first charge: it does not spin
  const first = await sdk().subscriptions.pollSubscriptionWithFirstCharge(storeId(), created.id);
  expect(first.subscription).toMatchObject({ id: created.id, status: 'unconfirmed' });
  expect(first.charge).toMatchObject({ status: 'failed', subscriptionId: created.id });
  return created.id;
}

describe('a subscription whose first payment failed', () => {
  it('is unconfirmed, and a new token tries its first payment again at once', async () => {
    const id = await declinedSubscription();
    const good = await subscriptionToken(APPROVED_TEST_CARD);
    const retried = await sdk().subscriptions.updateToken(storeId(), id, { transactionTokenId: good.id });
    expect(retried).toMatchObject({ id, status: 'unverified', transactionTokenId: good.id });
    // the SDK's helpers work from there: the subscription becomes current, its first payment paid
    const paid = await sdk().subscriptions.poll(storeId(), id);
    expect(paid).toMatchObject({ status: 'current' });
    const charges = (await sdk().subscriptions.charges(storeId(), id)).items;
    expect(charges.map((charge) => charge.status).sort()).toEqual(['failed', 'successful']);
    expect(charges.find((charge) => charge.status === ChargeStatus.SUCCESSFUL)).toMatchObject({
      transactionTokenId: good.id,
      chargedAmount: 1000,
    });
    const payments = (await sdk().subscriptions.payments.list(storeId(), id)).items;
    expect(payments.find((payment) => payment.isPaid)).toMatchObject({ amount: 1000 });
    // the next cycle is scheduled as after a first payment that succeeded at once
    expect(payments.filter((payment) => !payment.isPaid)).toHaveLength(1);
  }, 90_000);

  it('tries again through PATCH with transaction_token_id, and ends unconfirmed again if that card fails too', async () => {
    const id = await declinedSubscription();
    const another = await subscriptionToken(DECLINED_CARD);
    const changed = await sdk().subscriptions.update(storeId(), id, {
      transactionTokenId: another.id,
      metadata: { retried: 'yes' },
    });
    expect(changed).toMatchObject({ status: 'unverified', metadata: { retried: 'yes' } });
    await eventually(async () => (await sdk().subscriptions.charges(storeId(), id)).items.length === 2, {
      timeoutMs: 30_000,
      what: 'the second try of the first payment',
    });
    expect(await sdk().subscriptions.poll(storeId(), id)).toMatchObject({ status: 'unconfirmed' });
  }, 90_000);

  it('cannot be retried once canceled', async () => {
    const id = await declinedSubscription();
    await sdk().subscriptions.delete(storeId(), id);
    const good = await subscriptionToken(APPROVED_TEST_CARD);
    const refused = await sdkError(
      sdk().subscriptions.updateToken(storeId(), id, { transactionTokenId: good.id }),
    );
    expect(refused).toMatchObject({ code: 'CANNOT_CHANGE_CANCELED_SUBSCRIPTION' });
  }, 90_000);
});
