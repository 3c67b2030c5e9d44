import { createHmac, randomUUID } from 'node:crypto';
import {
  cardWith,
  startCallbackReceiver,
  startFakeStripe,
  STRIPE_TEST_CARDS,
  waitFor,
} from '@kessai/testing';
import type Stripe from 'stripe';
import { InvalidProcessorCallbackError } from '../processor-callback';
import { STRIPE_REFERENCE_METADATA_KEY, StripePaymentProcessor } from './stripe-payment-processor';
import { STRIPE_SIGNATURE_HEADER, stripeEventToCallback, verifyStripeWebhook } from './stripe-webhooks';

const WEBHOOK_SECRET = 'whsec_stripe_webhook_signing_secret_0123';

/** Stripe's scheme (https://docs.stripe.com/webhooks#verify-manually): t=…,v1=HMAC-SHA256("t.body"). */
function sign(body: string, secret: string, at: number): string {
  return `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
}

describe('Stripe webhooks', () => {
  it("verifies a delivery of the fake over its raw body with stripe-node's own check", async () => {
    const receiver = await startCallbackReceiver();
    const fake = await startFakeStripe({
      secretKey: 'sk_test',
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: receiver.url,
    });
    try {
      const processor = new StripePaymentProcessor({ secretKey: 'sk_test', baseUrl: fake.url });
      const reference = randomUUID();
      await processor.authorize({
        reference,
        amount: 1500,
        currency: 'JPY',
        capture: true,
        paymentMethod: { type: 'card', card: cardWith(STRIPE_TEST_CARDS.visa) },
      });
      const succeeded = () =>
        receiver.received.find(
          (r) => (JSON.parse(r.body) as { type: string }).type === 'payment_intent.succeeded',
        );
      await waitFor(() => succeeded() !== undefined);
      const delivery = succeeded()!;
      const event = verifyStripeWebhook({
        rawBody: delivery.body,
        signatureHeader: delivery.headers[STRIPE_SIGNATURE_HEADER],
        secret: WEBHOOK_SECRET,
      });
      expect(event).toMatchObject({
        type: 'payment_intent.succeeded',
        data: { object: { metadata: { [STRIPE_REFERENCE_METADATA_KEY]: reference } } },
      });
      // a card's event is a 3-D Secure notice, which the gateway records only for an awaiting charge
      expect(stripeEventToCallback(event)).toEqual({
        notificationId: event.id,
        event: 'three_ds',
        processorReference: (event.data.object as Stripe.PaymentIntent).id,
        reference,
        status: 'captured',
        error: null,
        occurredOn: new Date(event.created * 1000),
      });
      expect(() =>
        verifyStripeWebhook({
          rawBody: delivery.body.replace('1500', '1600'),
          signatureHeader: delivery.headers[STRIPE_SIGNATURE_HEADER],
          secret: WEBHOOK_SECRET,
        }),
      ).toThrow(InvalidProcessorCallbackError);
    } finally {
      await fake.close();
      await receiver.close();
    }
  });

  it('refuses a missing or wrong signature, another secret, and a delivery older than the tolerance', () => {
    const body = JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type: 'ping',
      created: 1,
      data: { object: {} },
    });
    const nowSeconds = Math.floor(Date.now() / 1000);
    const verify = (header: string | undefined) => () =>
      verifyStripeWebhook({ rawBody: body, signatureHeader: header, secret: WEBHOOK_SECRET });
    expect(verify(sign(body, WEBHOOK_SECRET, nowSeconds))()).toMatchObject({ id: 'evt_1' });
    expect(verify(undefined)).toThrow(InvalidProcessorCallbackError);
    expect(verify('t=1,v1=00')).toThrow(InvalidProcessorCallbackError);
    expect(verify(sign(body, 'whsec_another_secret', nowSeconds))).toThrow(InvalidProcessorCallbackError);
    expect(verify(sign(body, WEBHOOK_SECRET, nowSeconds - 3600))).toThrow(InvalidProcessorCallbackError);
  });

  it('turns a konbini or bank-transfer PaymentIntent succeeded into a deposit notice', () => {
    const event = {
      id: 'evt_konbini',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: 1_790_000_000,
      data: {
        object: {
          id: 'pi_konbini',
          object: 'payment_intent',
          amount: 2400,
          amount_received: 2400,
          currency: 'jpy',
          payment_method_types: ['konbini'],
          metadata: { [STRIPE_REFERENCE_METADATA_KEY]: 'charge-1' },
        },
      },
    } as unknown as Stripe.Event;
    expect(stripeEventToCallback(event)).toEqual({
      notificationId: 'evt_konbini',
      event: 'deferred_payment',
      processorReference: 'pi_konbini',
      reference: 'charge-1',
      status: 'deposit_received',
      depositId: 'pi_konbini',
      amount: 2400,
      currency: 'JPY',
      occurredOn: new Date(1_790_000_000_000),
    });
  });

  it('turns a bank transfer partially funded into a deposit notice of what arrived so far', () => {
    const partly = (remaining: number) =>
      ({
        id: `evt_partly_${remaining}`,
        object: 'event',
        type: 'payment_intent.partially_funded',
        created: 1_790_000_000,
        data: {
          object: {
            id: 'pi_transfer',
            object: 'payment_intent',
            amount: 3000,
            amount_received: 0,
            currency: 'jpy',
            payment_method_types: ['customer_balance'],
            metadata: { [STRIPE_REFERENCE_METADATA_KEY]: 'charge-2' },
            next_action: {
              type: 'display_bank_transfer_instructions',
              display_bank_transfer_instructions: { amount_remaining: remaining, currency: 'jpy' },
            },
          },
        },
      }) as unknown as Stripe.Event;
    expect(stripeEventToCallback(partly(1800))).toMatchObject({
      event: 'deferred_payment',
      processorReference: 'pi_transfer',
      reference: 'charge-2',
      depositId: 'pi_transfer:1200',
      amount: 1200,
    });
    // nothing arrived (or an event without the instructions): no notice
    expect(stripeEventToCallback(partly(3000))).toBeNull();
    // a card PaymentIntent's partially_funded is nothing of a card's 3-D Secure
    const card = partly(1800) as unknown as { data: { object: { payment_method_types: string[] } } };
    card.data.object.payment_method_types = ['card'];
    expect(stripeEventToCallback(card as unknown as Stripe.Event)).toBeNull();
  });
});
