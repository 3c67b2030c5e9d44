import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StripePaymentProcessor } from '@kessai/processor';
import { cardWith } from './processor-specs';
import { startCallbackReceiver, waitFor } from './processor-specs';
import { startFakeStripe, STRIPE_TEST_CARDS } from './stripe-fake';

// Every object the Stripe fake answers or delivers has the fields of Stripe's published fixture of
// its resource (stripe/openapi fixtures3.json, vendored beside this library), each of the
// fixture's JSON type, or null (a fixture shows one example: a field it fills may be null in
// another object, as Stripe's OpenAPI declares them nullable). Nested objects are checked the same
// way, so a fake cannot answer a shape Stripe never published.

const fixtures = (
  JSON.parse(readFileSync(join(__dirname, '..', 'vendor', 'stripe-openapi', 'fixtures3.json'), 'utf8')) as {
    resources: Record<string, Record<string, unknown>>;
  }
).resources;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The differences of `actual` from the fixture's shape, as paths. */
function shapeProblems(fixture: unknown, actual: unknown, path: string): string[] {
  if (actual === null || fixture === null) return [];
  // an event's object is of any resource (the fixture's is a plan): checked against its own fixture
  if (path === 'event.data.object') return [];
  // payment_method_details holds the details of its type only (the fixture's is a card's)
  if (
    path.endsWith('.payment_method_details') &&
    (actual as { type?: unknown }).type !== (fixture as { type?: unknown }).type
  )
    return typeof (actual as { type?: unknown }).type === 'string' ? [] : [`${path}.type: missing`];
  // an expandable field: the fixture shows the id, an expanded answer the object (or the reverse)
  if (typeof fixture === 'string' && typeof actual === 'object' && !Array.isArray(actual)) {
    const object = (actual as { object?: unknown }).object;
    return typeof object === 'string' ? [] : [`${path}: string expected, object without "object" found`];
  }
  if (kindOf(fixture) !== kindOf(actual))
    return [`${path}: ${kindOf(fixture)} expected, ${kindOf(actual)} found`];
  if (Array.isArray(fixture) && Array.isArray(actual)) {
    return fixture.length === 0
      ? []
      : actual.flatMap((item, i) => shapeProblems(fixture[0], item, `${path}[${i}]`));
  }
  if (typeof fixture === 'object' && typeof actual === 'object') {
    const expected = fixture as Record<string, unknown>;
    const found = actual as Record<string, unknown>;
    return Object.keys(expected).flatMap((key) => {
      if (key in found) return shapeProblems(expected[key], found[key], `${path}.${key}`);
      return typeSpecific(path, key, found) ? [] : [`${path}.${key}: missing`];
    });
  }
  return [];
}

/**
 * A field only objects of one type have: a cash balance transaction's details are under its type's
 * name (`funded`, `applied_to_payment`…), a funding's bank transfer under its transfer type's
 * (`jp_bank_transfer`…); the fixture's are a `funded` and an `eu_bank_transfer` one.
 */
function typeSpecific(path: string, key: string, found: Record<string, unknown>): boolean {
  if (path === 'customer_cash_balance_transaction') return key === 'funded' && found.type !== 'funded';
  return path.endsWith('.funded.bank_transfer') && key.endsWith('_bank_transfer') && found.type !== key;
}

describe("the Stripe fake against Stripe's published fixtures", () => {
  it("answers and delivers only objects with the fixture's fields and types", async () => {
    const receiver = await startCallbackReceiver();
    const fake = await startFakeStripe({
      secretKey: 'sk_test_fixtures',
      webhookSecret: 'whsec_fixtures',
      webhookUrl: receiver.url,
    });
    try {
      const processor = new StripePaymentProcessor({ secretKey: 'sk_test_fixtures', baseUrl: fake.url });
      const pay = (number: string, capture: boolean) =>
        processor.authorize({
          reference: randomUUID(),
          amount: 1200,
          currency: 'JPY',
          capture,
          paymentMethod: { type: 'card', card: cardWith(number) },
        });
      const paid = await pay(STRIPE_TEST_CARDS.visa, true);
      await processor.refund({
        processorReference: paid.processorReference,
        idempotencyKey: randomUUID(),
        amount: 200,
        currency: 'JPY',
      });
      const held = await pay(STRIPE_TEST_CARDS.mastercard, false);
      await processor.capture({
        processorReference: held.processorReference,
        idempotencyKey: randomUUID(),
        amount: 1200,
        currency: 'JPY',
      });
      const voided = await pay(STRIPE_TEST_CARDS.visa, false);
      await processor.void({ processorReference: voided.processorReference, idempotencyKey: randomUUID() });
      const declined = await pay(STRIPE_TEST_CARDS.genericDecline, true);
      expect(declined.outcome).toBe('declined');
      // 3-D Secure: sent to authenticate, then authenticated (a charge with three_d_secure) or failed
      for (const result of ['authenticated', 'failed'] as const) {
        const reference = randomUUID();
        const challenged = await processor.authorize({
          reference,
          amount: 1200,
          currency: 'JPY',
          capture: true,
          paymentMethod: { type: 'card', card: cardWith(STRIPE_TEST_CARDS.authenticationRequired) },
          threeDs: { mode: 'normal', returnUrl: 'https://pay.example.test/back' },
        });
        expect(challenged.outcome).toBe('three_ds_required');
        fake.authenticate(challenged.processorReference, result);
        await processor.status(reference);
      }
      const konbini = await processor.createDeferredPayment({
        reference: randomUUID(),
        amount: 1800,
        currency: 'JPY',
        method: { type: 'konbini', convenienceStore: 'lawson', customerName: 'Taro', phoneNumber: null },
        expiresOn: new Date(Date.now() + 3 * 86_400_000),
        callbackUrl: receiver.url,
        customerEmail: 'taro@example.com',
      });
      fake.payKonbini(konbini.processorReference);
      // bank transfers: a customer, its virtual account, a transfer in part, the rest, and one voided
      const transfer = (reference: string) =>
        processor.createDeferredPayment({
          reference,
          amount: 2000,
          currency: 'JPY',
          method: { type: 'bank_transfer', brand: 'aozora_bank' },
          expiresOn: new Date(Date.now() + 3 * 86_400_000),
          callbackUrl: receiver.url,
          customerEmail: 'taro@example.com',
        });
      const transferReference = randomUUID();
      const funded = await transfer(transferReference);
      fake.fundBankTransfer(funded.processorReference, 500);
      await processor.status(transferReference);
      fake.fundBankTransfer(funded.processorReference, 1500);
      await processor.status(transferReference);
      const unpaid = await transfer(randomUUID());
      fake.fundBankTransfer(unpaid.processorReference, 700);
      await processor.void({ processorReference: unpaid.processorReference, idempotencyKey: randomUUID() });
      fake.searchLagsNext(1);
      await processor.status(randomUUID());
      await processor.status(randomUUID());

      await waitFor(() => receiver.received.length >= fake.deliveries.length && fake.deliveries.length > 0);
      const events = fake.deliveries.map((delivery) => JSON.parse(delivery.body) as Record<string, unknown>);
      const objects = [
        ...fake.answered,
        ...events,
        ...events.map((event) => (event.data as { object: Record<string, unknown> }).object),
      ];
      const kinds = new Set(objects.map((object) => object.object));
      expect([...kinds].sort()).toEqual([
        'charge',
        'customer',
        'customer_cash_balance_transaction',
        'event',
        'payment_intent',
        'refund',
      ]);

      const problems = objects.flatMap((object) => {
        const fixture = fixtures[object.object as string];
        if (!fixture) return [`${String(object.object)}: no fixture`];
        return shapeProblems(fixture, object, String(object.object));
      });
      expect([...new Set(problems)]).toEqual([]);
    } finally {
      await fake.close();
      await receiver.close();
    }
  });
});
