import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidProcessorCallbackError, type ProcessorCallback } from '../processor-callback';
import {
  KOMOJU_ONLINE_BRANDS,
  komojuEventSchema,
  komojuPaymentSchema,
  type KomojuEvent,
} from './komoju-wire';

/**
 * KOMOJU's webhook deliveries (https://doc.komoju.com/docs/webhooks): a POST of an Event as JSON,
 * X-Komoju-ID (the delivery), X-Komoju-Event (e.g. payment.captured) and X-Komoju-Signature, the
 * hex SHA-256 HMAC of the raw body keyed with the webhook's secret token. The signature covers no
 * timestamp, so a captured delivery could be replayed: harmless here, since a notice is only a
 * nudge and charge-service asks KOMOJU itself (`status`) before it moves a charge.
 */
export const KOMOJU_SIGNATURE_HEADER = 'x-komoju-signature';

export function signKomojuWebhook(rawBody: string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

export interface VerifyKomojuWebhookInput {
  /** the body exactly as received: re-serialised JSON would not match the signature */
  rawBody: string | Buffer;
  signatureHeader: string | string[] | undefined;
  secret: string;
}

/** Checks the signature in constant time and returns the Event, or throws InvalidProcessorCallbackError. */
export function verifyKomojuWebhook(input: VerifyKomojuWebhookInput): KomojuEvent {
  const raw = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  const header = Array.isArray(input.signatureHeader) ? input.signatureHeader[0] : input.signatureHeader;
  if (!header) throw new InvalidProcessorCallbackError('signature header missing');
  if (!/^[0-9a-fA-F]{64}$/.test(header))
    throw new InvalidProcessorCallbackError('signature header malformed');
  const expected = createHmac('sha256', input.secret).update(raw).digest();
  if (!timingSafeEqual(expected, Buffer.from(header, 'hex'))) {
    throw new InvalidProcessorCallbackError('signature does not match');
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new InvalidProcessorCallbackError('body is not JSON');
  }
  const parsed = komojuEventSchema.safeParse(json);
  if (!parsed.success) throw new InvalidProcessorCallbackError('body is not a KOMOJU event');
  return parsed.data;
}

/** A card payment's events: its 3-D Secure ended, as KOMOJU's status names the outcome. */
const CARD_EVENTS: Readonly<Record<string, 'authorized' | 'captured' | 'declined'>> = {
  'payment.captured': 'captured',
  'payment.authorized': 'authorized',
  'payment.failed': 'declined',
};

/** An online (PayPay) payment's events: the customer paid, the wallet refused it, nobody paid in time. */
const ONLINE_EVENTS: Readonly<Record<string, 'paid' | 'failed' | 'expired'>> = {
  'payment.captured': 'paid',
  'payment.failed': 'failed',
  'payment.expired': 'expired',
};

const ONLINE_TYPES: ReadonlySet<string> = new Set(Object.values(KOMOJU_ONLINE_BRANDS).map((b) => b.type));

/**
 * The processor notice a KOMOJU event is for the charge path, or null for an event it has no use
 * for (a ping; a refund; a card's or konbini's expiry or cancellation, which Kessai decides itself
 * at the charge's deadline). A konbini or bank transfer payment captured is money received: one
 * deposit of the payment's amount, its id the payment's (KOMOJU pays a payment once, in full). A
 * card payment captured, authorized or failed is a `three_ds` notice: the end of an authentication
 * the charge may be awaiting (the gateway records it only for an awaiting charge: any other card's
 * outcome was the answer of the call). An online (PayPay) payment captured, failed or expired is an
 * `operator_payment` notice, as the simulator's. The event id is the notice id: the same on every
 * redelivery.
 */
export function komojuEventToCallback(event: KomojuEvent): ProcessorCallback | null {
  const cardStatus = CARD_EVENTS[event.type];
  const onlineStatus = ONLINE_EVENTS[event.type];
  if (event.type !== 'payment.captured' && !cardStatus && !onlineStatus) return null;
  const payment = komojuPaymentSchema.safeParse(event.data);
  if (!payment.success) throw new InvalidProcessorCallbackError('event data is not a KOMOJU payment');
  const { id, payment_details, external_order_num, amount, currency, captured_at } = payment.data;
  if (!external_order_num) return null;
  if (ONLINE_TYPES.has(payment_details.type)) {
    if (!onlineStatus) return null;
    return {
      notificationId: event.id,
      event: 'operator_payment',
      operatorPaymentId: payment_details.external_payment_id ?? id,
      processorReference: id,
      reference: external_order_num,
      status: onlineStatus,
      amount,
      currency,
      occurredOn: new Date(event.created_at),
    };
  }
  if (payment_details.type === 'credit_card' && cardStatus) {
    return {
      notificationId: event.id,
      event: 'three_ds',
      processorReference: id,
      reference: external_order_num,
      status: cardStatus,
      error: null,
      occurredOn: new Date(event.created_at),
    };
  }
  if (event.type !== 'payment.captured') return null;
  if (payment_details.type !== 'konbini' && payment_details.type !== 'bank_transfer') return null;
  return {
    notificationId: event.id,
    event: 'deferred_payment',
    processorReference: id,
    reference: external_order_num,
    status: 'deposit_received',
    depositId: id,
    amount,
    currency,
    occurredOn: new Date(captured_at ?? event.created_at),
  };
}
