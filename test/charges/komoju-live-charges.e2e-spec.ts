// Live-mode charges on KOMOJU (PROCESSOR_LIVE=komoju) through the official univapay-node SDK, the
// KOMOJU fake over HTTP as KOMOJU (libs/testing/src/komoju-fake.ts, built from its documentation):
// the scenarios every hosted connector passes (live-connector-contract.ts), KOMOJU's entry below,
// PayPay among them.
process.env.POLLING_INTERVAL = '100';

import { createHmac } from 'node:crypto';
import { OnlineBrand } from 'univapay-node';
import { type FakeKomoju, KOMOJU_TEST_CARDS, startFakeKomoju } from '@kessai/testing';
import { describeLiveConnector, type ProviderPayment } from './live-connector-contract';

const SECRET_KEY = 'sk_test_komoju_suite_secret_key';
const WEBHOOK_SECRET = 'komoju-suite-webhook-secret-token';

const paymentOf = (fake: FakeKomoju, chargeId: string) =>
  [...fake.payments.values()].find((payment) => payment.external_order_num === chargeId);

const STATUSES: Record<string, ProviderPayment['status']> = {
  pending: 'pending',
  authorized: 'authorized',
  captured: 'captured',
  refunded: 'captured',
  cancelled: 'voided',
  failed: 'declined',
};

describeLiveConnector<FakeKomoju>({
  name: 'KOMOJU',
  start: () => startFakeKomoju({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET }),
  close: (fake) => fake.close(),
  variables: (fake) => ({
    PROCESSOR_LIVE: 'komoju',
    KOMOJU_API_URL: fake.url,
    KOMOJU_SECRET_KEY: SECRET_KEY,
    KOMOJU_WEBHOOK_SECRET: WEBHOOK_SECRET,
  }),
  webhookPath: '/processor/komoju/webhooks',
  setWebhookUrl: (fake, url) => {
    fake.webhookUrl = url;
  },
  secrets: [SECRET_KEY, Buffer.from(`${SECRET_KEY}:`).toString('base64'), WEBHOOK_SECRET],
  payment: (fake, chargeId) => {
    const payment = paymentOf(fake, chargeId);
    if (!payment) return undefined;
    const status = STATUSES[payment.status] ?? 'pending';
    return {
      // a konbini KOMOJU reserved waits for the customer: pending in the port's words
      status: payment.payment_details.type === 'konbini' && status === 'authorized' ? 'pending' : status,
      amount: payment.amount,
      currency: payment.currency,
      capturedAmount: status === 'captured' ? payment.amount : 0,
      refundedAmount: payment.amount_refunded,
    };
  },
  createdFor: (fake, chargeId) => fake.createdFor(chargeId),
  creationAttempts: (fake, chargeId) =>
    fake.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payments' && r.key === chargeId)
      .length,
  executed: (fake) => fake.executed,
  failNext: (fake) => fake.failNext(1),
  delayNext: (fake, ms, count = 1) => fake.delayNext(count, ms),
  declines: [[KOMOJU_TEST_CARDS.cardUnusable, 306, 'CARD_REJECTED']],
  // KOMOJU answers a refused card with its error object and no payment
  declinesKeepPayment: false,
  partialCapture: false,
  threeDs: {
    card: KOMOJU_TEST_CARDS.threeDsRequired,
    requests: false,
    authentications: (fake, chargeId) => fake.authentications.get(paymentOf(fake, chargeId)?.id ?? '') ?? 0,
  },
  konbini: {
    expectCreated: (fake, chargeId) =>
      expect(paymentOf(fake, chargeId)?.payment_details).toMatchObject({
        type: 'konbini',
        store: 'lawson',
        email: 'buyer@example.test',
      }),
    pay: (fake, chargeId) => fake.payKonbini(paymentOf(fake, chargeId)!.id),
    paidDelivery: (fake, chargeId) =>
      fake.deliveries.find(
        (d) => d.event === 'payment.captured' && d.body.includes(paymentOf(fake, chargeId)!.id),
      ),
    // KOMOJU signs the body alone: a redelivery carries the same signature
    resigned: (body) => ({
      'x-komoju-signature': createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex'),
    }),
  },
  bankTransfer: null,
  // PayPay through KOMOJU (payment_details[type]=paypay); WeChat Pay and the other brands refused
  online: {
    brand: OnlineBrand.PAY_PAY_ONLINE,
    refusedBrand: OnlineBrand.WE_CHAT_ONLINE,
    expire: (fake, chargeId) => fake.expireOnline(paymentOf(fake, chargeId)!.id),
    paidDelivery: (fake, chargeId) =>
      fake.deliveries.find(
        (d) => d.event === 'payment.captured' && d.body.includes(paymentOf(fake, chargeId)!.id),
      ),
  },
  deliveries: (fake) => fake.deliveries,
  forged: () => ({ 'x-komoju-signature': '0'.repeat(64) }),
});
