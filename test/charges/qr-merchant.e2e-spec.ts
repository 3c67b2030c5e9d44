// Merchant-presented QR (issue 30, gap 7; docs/charges.md, "Merchant-presented QR") through the
// official univapay-node SDK: the real gateway, charge-service and refund-cancel-service processes,
// BullMQ, Postgres, Redis and the processor simulator over HTTP as the wallet operator. The token
// names the wallet; the charge is the operator's payment, awaiting, whose issuer token is what the
// merchant's QR code encodes; the consumer's wallet scans it and pays, the operator's signed notice
// ends the charge successful, and it can be refunded.
process.env.POLLING_INTERVAL = '100';

import { PaymentType, TransactionTokenType } from 'univapay-node';
import { sdkError, sdkFor, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: {} },
  workers: ['charge-service', 'refund-cancel-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000' },
});

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

const qrMerchantToken = (type = TransactionTokenType.ONE_TIME, brand = 'pay_pay_merchant') =>
  sdk().transactionTokens.create({
    paymentType: PaymentType.QR_MERCHANT,
    type,
    email: 'buyer@example.test',
    data: { brand } as never,
  }) as Promise<any>;

const poll = (chargeId: string, until: (charge: any) => boolean) =>
  sdk().charges.poll(storeId(), chargeId, undefined, undefined, { successCondition: until }) as Promise<any>;

describe('merchant-presented QR through the univapay-node SDK', () => {
  it('token → charge awaiting with the QR content → scanned and paid → successful → refunded', async () => {
    const token = await qrMerchantToken();
    expect(token).toMatchObject({ paymentType: 'qr_merchant', type: 'one_time' });
    expect(token.data).toEqual({ brand: 'pay_pay_merchant' });

    const created: any = await sdk().charges.create({
      transactionTokenId: token.id,
      amount: 2400,
      currency: 'JPY',
    });
    const awaiting = await poll(created.id, (c) => c.status !== 'pending');
    expect(awaiting.status).toBe('awaiting');
    const issuer: any = await sdk().charges.getIssuerToken(storeId(), created.id);
    expect(issuer).toMatchObject({ callMethod: 'http_get', paymentType: 'qr_merchant' });
    // the code the merchant shows encodes the operator's payment page, which the wallet opens
    expect(issuer.issuerToken).toMatch(new RegExp(`^${suite.simulator.url}/operator/pay/`));

    // the consumer's wallet scans the code and pays
    const paid = await fetch(issuer.issuerToken, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBeLessThan(400);
    const done = await poll(created.id, (c) => c.status !== 'awaiting');
    expect(done).toMatchObject({ status: 'successful', chargedAmount: 2400 });

    const refund: any = await sdk().refunds.create(storeId(), created.id, { amount: 1000, currency: 'JPY' });
    expect(((await sdk().refunds.poll(storeId(), created.id, refund.id)) as any).status).toBe('successful');
  });

  it('one-time tokens of a known wallet only; a hold for a later capture is refused', async () => {
    expect(await sdkError(qrMerchantToken(TransactionTokenType.RECURRING))).toMatchObject({
      httpCode: 400,
      errors: [{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }],
    });
    expect(await sdkError(qrMerchantToken(TransactionTokenType.ONE_TIME, 'paypal'))).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'data.brand' }],
    });
    const token = await qrMerchantToken();
    expect(
      await sdkError(
        sdk().charges.create({ transactionTokenId: token.id, amount: 2400, currency: 'JPY', capture: false }),
      ),
    ).toMatchObject({ httpCode: 400, code: 'CAPTURE_ONLY_FOR_CARD_PAYMENT' });
  });

  it('a store that switched it off refuses it with MERCHANT_QR_PROCESSING_DISABLED', async () => {
    const merchant = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop));
    await merchant.stores.update(storeId(), {
      configuration: { qrMerchantConfiguration: { enabled: false } },
    });
    const store: any = await merchant.stores.get(storeId());
    expect(store.configuration.qrMerchantConfiguration).toEqual({ enabled: false });
    expect(await sdkError(qrMerchantToken())).toMatchObject({
      httpCode: 400,
      code: 'MERCHANT_QR_PROCESSING_DISABLED',
      errors: [{ field: 'payment_type', reason: 'MERCHANT_QR_PROCESSING_DISABLED' }],
    });
    await merchant.stores.update(storeId(), {
      configuration: { qrMerchantConfiguration: { enabled: true } },
    });
  });
});
