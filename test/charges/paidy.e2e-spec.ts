// Paidy (issue 30, gap 7; docs/transaction-tokens.md, "Paidy"; decision 0068) through the official
// univapay-node SDK: the real gateway, charge-service and refund-cancel-service processes, BullMQ,
// Postgres, Redis and the processor simulator over HTTP playing Paidy. The store's checkout shows
// Paidy's test public key; the consumer authorizes the merchant in Paidy Checkout with it (Paidy's
// test consumer, the SMS code 8888) and gets a Paidy token; the merchant's token carries it, and
// each charge is a Paidy payment authorized with it, captured now or later, refundable.
process.env.POLLING_INTERVAL = '100';

import { PaymentType, TransactionTokenType } from 'univapay-node';
import { PAIDY_TEST_CONSUMERS } from '@kessai/processor';
import { sdkError, sdkFor, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: {} },
  workers: ['charge-service', 'refund-cancel-service'],
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000' },
});

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;
const SHIPPING = { line1: 'Roppongi 4-22-1', city: 'Minato-ku', zip: '106-2004' };

/** The consumer in Paidy Checkout: authorizes the merchant's public key, and Paidy gives a token. */
async function paidyCheckout(email: string = PAIDY_TEST_CONSUMERS.approved, code = '8888') {
  const info: any = await sdkFor(suite.url, suite.merchants.shop.storeToken).checkoutInfo.get();
  const answer = await fetch(`${suite.simulator.url}/paidy/checkout/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api_key: info.paidyPublicKey,
      buyer: { email, phone: '08000000001' },
      authorization_code: code,
    }),
  });
  return { status: answer.status, body: (await answer.json()) as { id: string; status: string } };
}

const paidyToken = (
  paidyTokenId: string,
  type = TransactionTokenType.ONE_TIME,
  shippingAddress: object = SHIPPING,
) =>
  sdk().transactionTokens.create({
    paymentType: PaymentType.PAIDY,
    type,
    email: 'buyer@example.test',
    data: { paidyToken: paidyTokenId, shippingAddress } as never,
  }) as Promise<any>;

const charge = (tokenId: string, amount: number, extra: Record<string, unknown> = {}) =>
  sdk().charges.create({ transactionTokenId: tokenId, amount, currency: 'JPY', ...extra }) as Promise<any>;

const poll = (chargeId: string, until: (charge: any) => boolean = (c) => c.status !== 'pending') =>
  sdk().charges.poll(storeId(), chargeId, undefined, undefined, { successCondition: until }) as Promise<any>;

describe('Paidy through the univapay-node SDK', () => {
  it('checkout_info shows Paidy on, with its test public key', async () => {
    const info: any = await sdkFor(suite.url, suite.merchants.shop.storeToken).checkoutInfo.get();
    expect(info).toMatchObject({
      paidyConfiguration: { enabled: true },
      paidyPublicKey: 'pk_test_kessai_simulator',
    });
  });

  it('consumer authorizes in Paidy Checkout → token → charge successful → refunded', async () => {
    const consent = await paidyCheckout();
    expect(consent).toMatchObject({
      status: 201,
      body: { id: expect.stringMatching(/^tok_/), status: 'active' },
    });
    const token = await paidyToken(consent.body.id);
    expect(token).toMatchObject({
      paymentType: 'paidy',
      data: { paidyToken: consent.body.id, shippingAddress: SHIPPING },
    });

    const done = await poll((await charge(token.id, 5000)).id);
    expect(done).toMatchObject({ status: 'successful', chargedAmount: 5000, error: null });
    const refund: any = await sdk().refunds.create(storeId(), done.id, { amount: 2000, currency: 'JPY' });
    expect(((await sdk().refunds.poll(storeId(), done.id, refund.id)) as any).status).toBe('successful');
  });

  it('a recurring token pays again; a payment held for a later capture is captured', async () => {
    const token = await paidyToken((await paidyCheckout()).body.id, TransactionTokenType.RECURRING);
    expect((await poll((await charge(token.id, 1000)).id)).status).toBe('successful');
    const held = await poll((await charge(token.id, 3000, { capture: false })).id);
    expect(held).toMatchObject({ status: 'authorized' });
    await sdk().captures.create(storeId(), held.id, { amount: 3000, currency: 'JPY' });
    expect(await poll(held.id, (c) => c.status !== 'authorized')).toMatchObject({
      status: 'successful',
      chargedAmount: 3000,
    });
  });

  it('fails as Paidy decides: a rejected consumer, a token Paidy never gave', async () => {
    const rejected = await paidyToken((await paidyCheckout(PAIDY_TEST_CONSUMERS.rejected)).body.id);
    expect(await poll((await charge(rejected.id, 1000)).id)).toMatchObject({
      status: 'failed',
      error: { code: 340, message: 'PAYMENT_WALLET_REJECTED' },
    });
    const unknown = await paidyToken('tok_neverissued');
    expect(await poll((await charge(unknown.id, 1000)).id)).toMatchObject({
      status: 'failed',
      error: { code: 308, message: 'CHARGE_INVALID_DATA' },
    });
    // Paidy Checkout itself refuses a wrong SMS code: no token
    expect((await paidyCheckout(PAIDY_TEST_CONSUMERS.approved, '0000')).status).toBe(400);
  });

  it('refuses a shipping address of a zip alone, and a descriptor Paidy cannot carry', async () => {
    expect(
      await sdkError(paidyToken('tok_abc', TransactionTokenType.ONE_TIME, { zip: '106-2004' })),
    ).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'data.shipping_address', reason: 'PAIDY_SHIPPING_ADDRESS_NEEDS_ONE_OPTIONAL_FIELD' }],
    });
    const token = await paidyToken((await paidyCheckout()).body.id);
    expect(await sdkError(charge(token.id, 1000, { descriptor: 'KESSAI SHOP' }))).toMatchObject({
      httpCode: 400,
      errors: [{ field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
  });

  it('a store that switched Paidy off refuses it with PAIDY_PROCESSING_DISABLED', async () => {
    const merchant = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop));
    await merchant.stores.update(storeId(), { configuration: { paidyConfiguration: { enabled: false } } });
    try {
      const store: any = await merchant.stores.get(storeId());
      expect(store.configuration.paidyConfiguration).toEqual({ enabled: false });
      expect(await sdkError(paidyToken('tok_abc'))).toMatchObject({
        httpCode: 400,
        code: 'PAIDY_PROCESSING_DISABLED',
        errors: [{ field: 'payment_type', reason: 'PAIDY_PROCESSING_DISABLED' }],
      });
    } finally {
      await merchant.stores.update(storeId(), { configuration: { paidyConfiguration: { enabled: true } } });
    }
  });
});
