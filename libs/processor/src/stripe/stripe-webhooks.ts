import Stripe from 'stripe';
import { z } from 'zod';
import { InvalidProcessorCallbackError, type ProcessorCallback } from '../processor-callback';
import { STRIPE_REFERENCE_METADATA_KEY } from './stripe-payment-processor';

/**
 * Stripe's webhook deliveries (https://docs.stripe.com/webhooks): a POST of an Event as JSON with
 * Stripe-Signature `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` keyed with the endpoint's
 * signing secret (whsec_…). Verified by stripe-node's own check (`webhooks.constructEvent`) over
 * the raw body, which also refuses a timestamp older than its tolerance (300 s), so a captured
 * delivery cannot be replayed later.
 */
export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';

/** The outline of a Stripe Event (https://docs.stripe.com/api/events/object), for the OpenAPI document. */
export const stripeEventSchema = z
  .object({
    id: z.string(),
    object: z.literal('event'),
    type: z.string(),
    created: z.number().int(),
    livemode: z.boolean(),
    data: z.object({ object: z.record(z.unknown()) }),
  })
  .passthrough();

export interface VerifyStripeWebhookInput {
  /** the body exactly as received: re-serialised JSON would not match the signature */
  rawBody: string | Buffer;
  signatureHeader: string | string[] | undefined;
  secret: string;
}

/** The Event of a delivery whose signature holds, or InvalidProcessorCallbackError. */
export function verifyStripeWebhook(input: VerifyStripeWebhookInput): Stripe.Event {
  const header = Array.isArray(input.signatureHeader) ? input.signatureHeader[0] : input.signatureHeader;
  if (!header) throw new InvalidProcessorCallbackError('signature header missing');
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(input.rawBody, header, input.secret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError)
      throw new InvalidProcessorCallbackError('signature does not match');
    throw new InvalidProcessorCallbackError('body is not a Stripe event');
  }
  if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || !event.data)
    throw new InvalidProcessorCallbackError('body is not a Stripe event');
  return event;
}

/** The payment method types whose PaymentIntent is paid later, outside, by the customer. */
const DEFERRED_TYPES = new Set(['konbini', 'customer_balance']);

/** A card PaymentIntent's events: its 3-D Secure ended, as its status names the outcome. */
const CARD_EVENTS: Readonly<Record<string, 'authorized' | 'captured' | 'declined'>> = {
  'payment_intent.succeeded': 'captured',
  'payment_intent.amount_capturable_updated': 'authorized',
  'payment_intent.payment_failed': 'declined',
};

/**
 * The processor notice a Stripe event is for the charge path, or null for one it has no use for.
 * A konbini or bank-transfer (customer_balance) PaymentIntent succeeded is money received, one
 * deposit of its amount; a bank transfer partially funded is money received too, what arrived so
 * far (charge-service reads the fundings themselves from Stripe before it moves the charge). A card PaymentIntent succeeded, capturable or failed is a `three_ds`
 * notice: the end of an authentication the charge may be awaiting (the gateway records it only for
 * an awaiting charge: any other card's outcome was the answer of the call). The event id is the
 * notice id, the same on every redelivery; a notice is only a nudge, charge-service asks Stripe
 * (`status`) before it moves a charge.
 */
export function stripeEventToCallback(event: Stripe.Event): ProcessorCallback | null {
  const cardStatus = CARD_EVENTS[event.type];
  if (!cardStatus && event.type !== 'payment_intent.partially_funded') return null;
  const intent = event.data.object as Stripe.PaymentIntent;
  const reference = intent.metadata?.[STRIPE_REFERENCE_METADATA_KEY];
  if (!reference) return null;
  const deferred = intent.payment_method_types.some((type) => DEFERRED_TYPES.has(type));
  if (!deferred) {
    if (!cardStatus || !intent.payment_method_types.includes('card')) return null;
    return {
      notificationId: event.id,
      event: 'three_ds',
      processorReference: intent.id,
      reference,
      status: cardStatus,
      error: null,
      occurredOn: new Date(event.created * 1000),
    };
  }
  const funded = fundedAmountOf(event.type, intent);
  if (funded === null) return null;
  return {
    notificationId: event.id,
    event: 'deferred_payment',
    processorReference: intent.id,
    reference,
    status: 'deposit_received',
    // paid in full: the PaymentIntent's id, as a konbini's; funded in part: by the amount so far
    depositId: event.type === 'payment_intent.succeeded' ? intent.id : `${intent.id}:${funded}`,
    amount: funded,
    currency: intent.currency.toUpperCase(),
    occurredOn: new Date(event.created * 1000),
  };
}

/**
 * The money a deferred PaymentIntent's event says it received so far: all of it once succeeded;
 * for a bank transfer funded in part (payment_intent.partially_funded), its amount less what
 * display_bank_transfer_instructions says remains. Null for any other event.
 */
function fundedAmountOf(type: string, intent: Stripe.PaymentIntent): number | null {
  if (type === 'payment_intent.succeeded') return intent.amount_received;
  if (type !== 'payment_intent.partially_funded') return null;
  const remaining = intent.next_action?.display_bank_transfer_instructions?.amount_remaining;
  return typeof remaining === 'number' && remaining < intent.amount ? intent.amount - remaining : null;
}
