// The connectors against the providers' own sandboxes (npm run test:connectors:live;
// docs/connectors.md, "Before going live"). Opt-in, never run by CI: each provider's block runs
// only with its test-mode key (KOMOJU_SECRET_KEY, STRIPE_SECRET_KEY), at KOMOJU_API_URL and
// STRIPE_API_URL when set. What a fake cannot prove, this checks at the provider: that its API
// takes the adapter's requests, executes each idempotency key once, answers statuses and test
// cards as the adapter's tables expect, and that status() finds a payment by our reference.
// Every payment made is in the sandbox's test mode; held ones are voided at the end of their test.
import { randomUUID } from 'node:crypto';
import {
  KomojuPaymentProcessor,
  type AuthorizeRequest,
  type PaymentErrorName,
  type PaymentProcessor,
  StripePaymentProcessor,
} from '@kessai/processor';
import { cardWith, KOMOJU_TEST_CARDS, STRIPE_TEST_CARDS } from '@kessai/testing';

interface Sandbox {
  name: string;
  /** the variable holding the sandbox's test-mode secret key */
  keyVariable: 'KOMOJU_SECRET_KEY' | 'STRIPE_SECRET_KEY';
  processor(secretKey: string): PaymentProcessor;
  approvedCard: string;
  declines: readonly (readonly [string, PaymentErrorName])[];
  partialCapture: boolean;
  konbiniStore: string;
  /** whether the adapter takes bank transfers there (docs/connectors.md, "Providers") */
  bankTransfer: boolean;
  /** an online brand the adapter takes there (docs/connectors.md, "Providers"); null: none */
  onlineBrand: string | null;
}

const TIMEOUT_MS = 30_000;

const SANDBOXES: readonly Sandbox[] = [
  {
    name: 'KOMOJU',
    keyVariable: 'KOMOJU_SECRET_KEY',
    processor: (secretKey) =>
      new KomojuPaymentProcessor({
        secretKey,
        baseUrl: process.env.KOMOJU_API_URL ?? 'https://komoju.com/api/v1',
        timeoutMs: TIMEOUT_MS,
      }),
    approvedCard: KOMOJU_TEST_CARDS.visa,
    declines: [
      [KOMOJU_TEST_CARDS.cardUnusable, 'CARD_REJECTED'],
      [KOMOJU_TEST_CARDS.badSecurityCode, 'CARD_CVV_INVALID'],
      [KOMOJU_TEST_CARDS.expired, 'CARD_EXPIRED'],
      [KOMOJU_TEST_CARDS.invalidCard, 'CARD_NUMBER_NOT_VALID'],
      [KOMOJU_TEST_CARDS.insufficientFunds, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
    ],
    partialCapture: false,
    konbiniStore: 'lawson',
    bankTransfer: false,
    // the account must have PayPay enabled at KOMOJU
    onlineBrand: 'pay_pay_online',
  },
  {
    name: 'Stripe',
    keyVariable: 'STRIPE_SECRET_KEY',
    processor: (secretKey) =>
      new StripePaymentProcessor({
        secretKey,
        baseUrl: process.env.STRIPE_API_URL ?? 'https://api.stripe.com',
        timeoutMs: TIMEOUT_MS,
      }),
    approvedCard: STRIPE_TEST_CARDS.visa,
    declines: [
      [STRIPE_TEST_CARDS.genericDecline, 'CARD_REJECTED'],
      [STRIPE_TEST_CARDS.insufficientFunds, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
      [STRIPE_TEST_CARDS.expiredCard, 'CARD_EXPIRED'],
      [STRIPE_TEST_CARDS.incorrectCvc, 'CARD_CVV_INVALID'],
      [STRIPE_TEST_CARDS.processingError, 'PROCESSING_ERROR'],
    ],
    partialCapture: true,
    konbiniStore: 'family_mart',
    bankTransfer: true,
    onlineBrand: null,
  },
];

const authorization = (number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  reference: randomUUID(),
  amount: 1000,
  currency: 'JPY',
  capture: true,
  paymentMethod: { type: 'card', card: cardWith(number) },
  threeDs: { mode: 'skip' },
  ...overrides,
});

for (const sandbox of SANDBOXES) {
  const secretKey = process.env[sandbox.keyVariable];
  const describeIfKey = secretKey ? describe : describe.skip;

  describeIfKey(`${sandbox.name} sandbox (${sandbox.keyVariable})`, () => {
    const processor = () => sandbox.processor(secretKey ?? '');

    it('charges a test card once for a repeated key, and status finds it by our reference', async () => {
      const request = authorization(sandbox.approvedCard);
      const first = await processor()
        .authorize(request)
        .catch((error: unknown) => {
          // Stripe refuses raw card numbers unless the account may send them (docs/connectors.md)
          throw new Error(`${sandbox.name} refused the card authorization: ${String(error)}`);
        });
      expect(first).toMatchObject({ outcome: 'approved', captured: true });
      const repeated = await processor().authorize(request);
      expect(repeated.processorReference).toBe(first.processorReference);
      expect(await processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'captured', reference: request.reference, amount: 1000 },
      });
    });

    it('holds, captures and refunds part of a card payment', async () => {
      const held = await processor().authorize(authorization(sandbox.approvedCard, { capture: false }));
      expect(held).toMatchObject({ outcome: 'approved', captured: false });
      const capture = {
        processorReference: held.processorReference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: 'JPY',
      };
      expect(await processor().capture(capture)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
      expect(await processor().capture(capture)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
      const refund = {
        processorReference: held.processorReference,
        idempotencyKey: randomUUID(),
        amount: 300,
        currency: 'JPY',
      };
      expect(await processor().refund(refund)).toMatchObject({ outcome: 'refunded' });
      expect(await processor().refund(refund)).toMatchObject({ outcome: 'refunded' });
    });

    it('voids a held card payment', async () => {
      const held = await processor().authorize(authorization(sandbox.approvedCard, { capture: false }));
      const voided = { processorReference: held.processorReference, idempotencyKey: randomUUID() };
      expect(await processor().void(voided)).toEqual({ outcome: 'voided' });
    });

    it(
      sandbox.partialCapture
        ? 'captures part of a held payment'
        : 'refuses a partial capture before sending it',
      async () => {
        const held = await processor().authorize(authorization(sandbox.approvedCard, { capture: false }));
        const result = await processor().capture({
          processorReference: held.processorReference,
          idempotencyKey: randomUUID(),
          amount: 600,
          currency: 'JPY',
        });
        if (sandbox.partialCapture) expect(result).toEqual({ outcome: 'captured', capturedAmount: 600 });
        else {
          expect(result).toMatchObject({
            outcome: 'rejected',
            error: { message: 'PARTIAL_CAPTURE_NOT_SUPPORTED' },
          });
          await processor().void({
            processorReference: held.processorReference,
            idempotencyKey: randomUUID(),
          });
        }
      },
    );

    it.each(sandbox.declines)('declines test card %s with %s', async (number, code) => {
      const result = await processor().authorize(authorization(number));
      expect(result).toMatchObject({ outcome: 'declined', error: { message: code } });
    });

    it('opens a konbini payment awaiting the customer, then voids it', async () => {
      const reference = randomUUID();
      const opened = await processor().createDeferredPayment({
        reference,
        amount: 2500,
        currency: 'JPY',
        method: {
          type: 'konbini',
          convenienceStore: sandbox.konbiniStore,
          customerName: 'Yamada Taro',
          phoneNumber: '09012345678',
        },
        expiresOn: new Date(Date.now() + 3 * 86_400_000),
        callbackUrl: 'https://example.invalid/unused',
        customerEmail: 'buyer@example.com',
      });
      expect(opened.processorReference).toEqual(expect.any(String));
      expect(await processor().status(reference)).toMatchObject({
        found: true,
        payment: { status: 'awaiting_payment', kind: 'konbini' },
      });
      await processor().void({ processorReference: opened.processorReference, idempotencyKey: randomUUID() });
    });

    if (sandbox.bankTransfer)
      it('opens a bank transfer with its virtual account, awaiting the money, then voids it', async () => {
        const reference = randomUUID();
        const opened = await processor().createDeferredPayment({
          reference,
          amount: 2500,
          currency: 'JPY',
          method: { type: 'bank_transfer', brand: 'aozora_bank' },
          expiresOn: new Date(Date.now() + 3 * 86_400_000),
          callbackUrl: 'https://example.invalid/unused',
          customerEmail: 'buyer@example.com',
        });
        expect(opened.instructions).toMatchObject({
          type: 'bank_transfer',
          bankCode: expect.any(String),
          accountNumber: expect.any(String),
        });
        expect(await processor().status(reference)).toMatchObject({
          found: true,
          payment: { status: 'awaiting_payment', kind: 'bank_transfer', deposits: [] },
        });
        await processor().void({
          processorReference: opened.processorReference,
          idempotencyKey: randomUUID(),
        });
      });

    const onlineBrand = sandbox.onlineBrand;
    if (onlineBrand)
      it(`opens a ${onlineBrand} payment awaiting the customer at its page, then voids it`, async () => {
        const reference = randomUUID();
        const request = {
          reference,
          amount: 1200,
          currency: 'JPY',
          brand: onlineBrand,
          callbackUrl: 'https://example.invalid/unused',
          returnUrl: 'https://example.invalid/back',
        };
        const opened = await processor().createOperatorPayment(request);
        expect(opened.paymentUrl).toMatch(/^https:\/\//);
        // a repeated key is the same payment, the same page
        expect((await processor().createOperatorPayment(request)).paymentUrl).toBe(opened.paymentUrl);
        expect(await processor().status(reference)).toMatchObject({
          found: true,
          payment: { status: 'awaiting_payment', kind: 'operator' },
        });
        expect(
          await processor().void({
            processorReference: opened.processorReference,
            idempotencyKey: randomUUID(),
          }),
        ).toEqual({ outcome: 'voided' });
      });

    it('answers found: false for a reference it never saw', async () => {
      expect(await processor().status(randomUUID())).toEqual({ found: false });
    });
  });
}
