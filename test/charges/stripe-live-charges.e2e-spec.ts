// Live-mode charges on Stripe (PROCESSOR_LIVE=stripe) through the official univapay-node SDK, the
// Stripe fake over HTTP as Stripe (libs/testing/src/stripe-fake.ts, built from its documentation
// and stripe-node's wire), reached by the adapter through the official `stripe` package: the
// scenarios every hosted connector passes (live-connector-contract.ts), Stripe's entry below.
process.env.POLLING_INTERVAL = '100';

import { createHmac } from 'node:crypto';
import { type FakeStripe, startFakeStripe, STRIPE_TEST_CARDS } from '@kessai/testing';
import { describeLiveConnector, type ProviderPayment } from './live-connector-contract';

const SECRET_KEY = 'sk_test_stripe_suite_secret_key';
const WEBHOOK_SECRET = 'whsec_stripe_suite_signing_secret';

const intentOf = (fake: FakeStripe, chargeId: string) =>
  [...fake.paymentIntents.values()].find(
    (intent) => (intent.metadata as Record<string, string>).kessai_reference === chargeId,
  );

const STATUSES: Record<string, ProviderPayment['status']> = {
  requires_action: 'pending',
  requires_capture: 'authorized',
  succeeded: 'captured',
  canceled: 'voided',
  requires_payment_method: 'declined',
};

const signed = (body: string, secret: string) => {
  const at = Math.floor(Date.now() / 1000);
  return {
    'stripe-signature': `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`,
  };
};

describeLiveConnector<FakeStripe>({
  name: 'Stripe',
  start: () => startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET }),
  close: (fake) => fake.close(),
  variables: (fake) => ({
    PROCESSOR_LIVE: 'stripe',
    STRIPE_API_URL: fake.url,
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  }),
  webhookPath: '/processor/stripe/webhooks',
  setWebhookUrl: (fake, url) => {
    fake.webhookUrl = url;
  },
  secrets: [SECRET_KEY, WEBHOOK_SECRET],
  payment: (fake, chargeId) => {
    const intent = intentOf(fake, chargeId);
    if (!intent) return undefined;
    const charge = fake.charges.get(intent.latest_charge as string);
    return {
      status: STATUSES[intent.status as string] ?? 'pending',
      amount: intent.amount as number,
      currency: (intent.currency as string).toUpperCase(),
      capturedAmount: intent.amount_received as number,
      refundedAmount: (charge?.amount_refunded as number | undefined) ?? 0,
    };
  },
  createdFor: (fake, chargeId) => fake.createdFor(chargeId),
  creationAttempts: (fake, chargeId) =>
    fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.key === chargeId)
      .length,
  executed: (fake) => fake.executed,
  failNext: (fake) => fake.failNext(1),
  delayNext: (fake, ms, count = 1) => fake.delayNext(count, ms),
  declines: [
    [STRIPE_TEST_CARDS.genericDecline, 306, 'CARD_REJECTED'],
    // Stripe's test cards that are also test cards of Kessai's own catalogue are refused in live mode
    [STRIPE_TEST_CARDS.fraudulent, 319, 'FRAUD_SUSPECTED'],
  ],
  // a declined card leaves its PaymentIntent requires_payment_method
  declinesKeepPayment: true,
  partialCapture: true,
  threeDs: {
    card: STRIPE_TEST_CARDS.authenticationRequired,
    requests: true,
    authentications: (fake, chargeId) =>
      fake.authentications.get((intentOf(fake, chargeId)?.id as string) ?? '') ?? 0,
  },
  konbini: {
    expectCreated: (fake, chargeId) =>
      expect(intentOf(fake, chargeId)).toMatchObject({
        status: 'requires_action',
        payment_method_types: ['konbini'],
      }),
    pay: (fake, chargeId) => fake.payKonbini(intentOf(fake, chargeId)!.id as string),
    paidDelivery: (fake, chargeId) => {
      const id = intentOf(fake, chargeId)!.id as string;
      return fake.deliveries.find((d) => d.type === 'payment_intent.succeeded' && d.body.includes(id));
    },
    // Stripe signs the timestamp with the body: a redelivery is signed anew
    resigned: (body) => signed(body, WEBHOOK_SECRET),
  },
  bankTransfer: {
    account: (fake, chargeId) => {
      const intent = intentOf(fake, chargeId)!;
      const next = intent.next_action as {
        display_bank_transfer_instructions: { financial_addresses: { zengin: Record<string, string> }[] };
      };
      const zengin = next.display_bank_transfer_instructions.financial_addresses[0].zengin;
      return {
        bankCode: zengin.bank_code,
        bankName: zengin.bank_name,
        branchCode: zengin.branch_code,
        branchName: zengin.branch_name,
        accountId: intent.customer as string,
        accountNumber: zengin.account_number,
        accountHolderName: zengin.account_holder_name,
      };
    },
    deposit: (fake, chargeId, amount) =>
      fake.fundBankTransfer(intentOf(fake, chargeId)!.id as string, amount),
    partialFunding: true,
    fundedDeliveries: (fake, chargeId) => {
      const id = intentOf(fake, chargeId)!.id as string;
      return fake.deliveries.filter(
        (d) =>
          (d.type === 'payment_intent.partially_funded' || d.type === 'payment_intent.succeeded') &&
          d.body.includes(id),
      );
    },
  },
  online: null,
  deliveries: (fake) => fake.deliveries,
  forged: () => ({ 'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }),
});
