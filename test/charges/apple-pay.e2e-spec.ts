// Apple Pay (issue 30, gap 7; docs/transaction-tokens.md, "Apple Pay"; decision 0067) through the
// official univapay-node SDK: the real gateway, charge-service and refund-cancel-service processes,
// BullMQ, Postgres, Redis and the processor simulator over HTTP as the processor that holds the
// payment processing key. The simulator's test wallet makes the EC_v1 payment data a device would
// for a test card; the token carries it, the charge hands it to the processor, which opens it,
// checks it was made for this payment, and authorizes the device account number as a card.
process.env.POLLING_INTERVAL = '100';

import { PaymentType, TransactionTokenType } from 'univapay-node';
import { luhnValidRuns, sdkError, sdkFor, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: {} },
  workers: ['charge-service', 'refund-cancel-service'],
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000', LOG_LEVEL: 'trace' },
});

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

/** an ordinary Mastercard test number: approved */
const APPROVED_DPAN = '5555555555554444';
/** ends in 1111: declined by the issuer */
const DECLINED_DPAN = '4111111111111111';

interface PaymentData {
  version: string;
  data: string;
  signature: string;
  header: Record<string, string>;
}

/** What the customer's device hands the merchant's page: the test wallet's payment data for one payment. */
async function paymentData(cardNumber: string, amount: number, currency = 'JPY'): Promise<PaymentData> {
  const answer = await fetch(`${suite.simulator.url}/apple_pay/test_wallet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card_number: cardNumber, exp_month: 12, exp_year: 2030, amount, currency }),
  });
  expect(answer.status).toBe(200);
  // parsed here, not by fetch: the SDK sends objects of another realm's Object as multipart form data
  return (JSON.parse(await answer.text()) as { payment_data: PaymentData }).payment_data;
}

const applePayToken = (data: unknown, type = TransactionTokenType.ONE_TIME) =>
  sdk().transactionTokens.create({
    paymentType: PaymentType.APPLE_PAY,
    type,
    email: 'buyer@example.test',
    // Apple's paymentData as the device made it; the SDK sends its keys in snake_case
    data: { paymentData: data } as never,
  }) as Promise<any>;

const charge = (tokenId: string, amount: number, extra: Record<string, unknown> = {}) =>
  sdk().charges.create({ transactionTokenId: tokenId, amount, currency: 'JPY', ...extra }) as Promise<any>;

const poll = (chargeId: string, until: (charge: any) => boolean = (c) => c.status !== 'pending') =>
  sdk().charges.poll(storeId(), chargeId, undefined, undefined, { successCondition: until }) as Promise<any>;

describe('Apple Pay through the univapay-node SDK', () => {
  it('token → charge → opened and authorized by the processor → successful → refunded', async () => {
    const token = await applePayToken(await paymentData(APPROVED_DPAN, 2400));
    // nothing of the payment data is shown back
    expect(token).toMatchObject({ paymentType: 'apple_pay', type: 'one_time', data: {} });
    const read: any = await sdk().transactionTokens.get(storeId(), token.id);
    expect(read.data).toEqual({});

    const done = await poll((await charge(token.id, 2400, { descriptor: 'KESSAI SHOP' })).id);
    expect(done).toMatchObject({ status: 'successful', chargedAmount: 2400, error: null });

    const refund: any = await sdk().refunds.create(storeId(), done.id, { amount: 1000, currency: 'JPY' });
    expect(((await sdk().refunds.poll(storeId(), done.id, refund.id)) as any).status).toBe('successful');
  });

  it('held for a later capture, then captured; another held, then canceled', async () => {
    const held = await poll(
      (
        await charge((await applePayToken(await paymentData(APPROVED_DPAN, 1500))).id, 1500, {
          capture: false,
        })
      ).id,
    );
    expect(held).toMatchObject({ status: 'authorized', chargedAmount: null });
    await sdk().captures.create(storeId(), held.id, { amount: 1500, currency: 'JPY' });
    expect(await poll(held.id, (c) => c.status !== 'authorized')).toMatchObject({
      status: 'successful',
      chargedAmount: 1500,
    });

    const other = await poll(
      (await charge((await applePayToken(await paymentData(APPROVED_DPAN, 900))).id, 900, { capture: false }))
        .id,
    );
    expect(other.status).toBe('authorized');
    const cancel: any = await sdk().cancels.create(storeId(), other.id, {});
    expect(await sdk().cancels.poll(storeId(), other.id, cancel.id)).toMatchObject({ status: 'successful' });
    expect(await poll(other.id, (c) => c.status !== 'authorized')).toMatchObject({ status: 'canceled' });
  });

  it('fails as the processor finds it: declined card, another amount, altered data, paid already', async () => {
    const failure = async (data: unknown, amount: number) =>
      poll((await charge((await applePayToken(data)).id, amount)).id);

    expect(await failure(await paymentData(DECLINED_DPAN, 1000), 1000)).toMatchObject({
      status: 'failed',
      error: { code: 306, message: 'CARD_REJECTED' },
    });
    // made on the device for 1000 yen: a charge of 1200 is not what the customer approved
    expect(await failure(await paymentData(APPROVED_DPAN, 1000), 1200)).toMatchObject({
      status: 'failed',
      error: { code: 308, message: 'CHARGE_INVALID_DATA' },
    });
    const sealed = await paymentData(APPROVED_DPAN, 1000);
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[5] ^= 0x01;
    expect(await failure({ ...sealed, data: bytes.toString('base64') }, 1000)).toMatchObject({
      status: 'failed',
      error: { code: 307, message: 'CARD_INVALID' },
    });
    // one payment data pays once, whichever token carries it
    const once = await paymentData(APPROVED_DPAN, 1000);
    expect((await failure(once, 1000)).status).toBe('successful');
    expect(await failure(once, 1000)).toMatchObject({
      status: 'failed',
      error: { code: 339, message: 'DUPLICATE_TRANSACTION' },
    });
  });

  it('refuses what is not a one-time token of EC_v1 payment data, before any charge', async () => {
    const data = await paymentData(APPROVED_DPAN, 1000);
    expect(await sdkError(applePayToken(data, TransactionTokenType.RECURRING))).toMatchObject({
      httpCode: 400,
      errors: [{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }],
    });
    expect(await sdkError(applePayToken({ ...data, version: 'RSA_v1' }))).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'data.payment_data.version', reason: 'UNSUPPORTED_ALGORITHM' }],
    });
    expect(await sdkError(applePayToken({ ...data, header: {} }))).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: expect.arrayContaining([
        { field: 'data.payment_data.header.ephemeral_public_key', reason: 'REQUIRED_VALUE' },
      ]),
    });
    // Apple Pay is authenticated on the device: no 3-D Secure of the charge's own
    const token = await applePayToken(data);
    expect(await sdkError(charge(token.id, 1000, { threeDs: { mode: 'force' } }))).toMatchObject({
      httpCode: 400,
      errors: [{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }],
    });
  });

  it('a store that switched card processing off refuses it with CARD_PROCESSING_DISABLED', async () => {
    const merchant = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop));
    await merchant.stores.update(storeId(), { configuration: { cardConfiguration: { enabled: false } } });
    try {
      expect(await sdkError(applePayToken(await paymentData(APPROVED_DPAN, 1000)))).toMatchObject({
        httpCode: 400,
        code: 'CARD_PROCESSING_DISABLED',
        errors: [{ field: 'payment_type', reason: 'CARD_PROCESSING_DISABLED' }],
      });
    } finally {
      await merchant.stores.update(storeId(), { configuration: { cardConfiguration: { enabled: true } } });
    }
  });
});

// charge-service handed the payment data on and never opened it: no device account number in its log
describe("charge-service's log", () => {
  it('never carries a card number', () => {
    const text = suite.workers[0].app.lines.join('\n');
    expect(text).toContain('"msg":"charge processed"');
    expect(luhnValidRuns(text)).toEqual([]);
  });
});
