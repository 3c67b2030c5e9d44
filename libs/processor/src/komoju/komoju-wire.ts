import { z } from 'zod';

/**
 * The parts of KOMOJU's wire the adapter reads, and nothing it does not. Fields and names are
 * KOMOJU's own, from its API reference (https://doc.komoju.com/reference, "Payment: Show") and the
 * models of its official Ruby SDK (komoju/komoju-ruby-sdk: Payment, PaymentStatus, PaymentList,
 * ResponsePaymentDetailsCreditCard / Konbini / BankTransfer / PayPay, Event, APIErrorError). Unknown fields
 * pass through unread: KOMOJU adds fields over time and an answer must not turn unreadable for it.
 */

/** PaymentStatus: pending, authorized, captured, cancelled, expired, refunded, failed. */
export const komojuPaymentStatusSchema = z.enum([
  'pending',
  'authorized',
  'captured',
  'cancelled',
  'expired',
  'refunded',
  'failed',
]);
export type KomojuPaymentStatus = z.infer<typeof komojuPaymentStatusSchema>;

const nullableString = z.string().nullish();

/** Response payment_details: the type, and for konbini and bank transfer the customer's instructions. */
export const komojuResponsePaymentDetailsSchema = z
  .object({
    type: z.string(),
    // credit_card
    brand: nullableString,
    last_four_digits: nullableString,
    /**
     * a card payment `pending` for 3-D Secure: where the customer authenticates; a PayPay payment
     * `pending`: where the customer pays (ResponsePaymentDetailsPayPay.redirect_url)
     */
    redirect_url: nullableString,
    // paypay: PayPay's own id of the payment, once PayPay has one
    external_payment_id: nullableString,
    // konbini
    store: nullableString,
    confirmation_code: nullableString,
    receipt: nullableString,
    instructions_url: nullableString,
    // bank_transfer
    order_id: nullableString,
    bank_name: nullableString,
    account_branch_name: nullableString,
    account_number: nullableString,
    account_type: nullableString,
    account_name: nullableString,
  })
  .passthrough();

export const komojuRefundSchema = z.object({ id: z.string(), amount: z.number().int().safe() }).passthrough();

export const komojuPaymentSchema = z
  .object({
    id: z.string().min(1),
    resource: z.literal('payment'),
    status: komojuPaymentStatusSchema,
    amount: z.number().int().safe(),
    total: z.number().int().safe().nullish(),
    currency: z.string(),
    external_order_num: nullableString,
    amount_refunded: z.number().int().safe().nullish(),
    captured_at: nullableString,
    created_at: nullableString,
    payment_deadline: nullableString,
    payment_details: komojuResponsePaymentDetailsSchema,
    refunds: z.array(komojuRefundSchema).nullish(),
  })
  .passthrough();
export type KomojuPayment = z.infer<typeof komojuPaymentSchema>;

export const komojuPaymentListSchema = z
  .object({ resource: z.literal('list'), data: z.array(komojuPaymentSchema) })
  .passthrough();

/** The JSON error object of every non-2xx answer (https://doc.komoju.com/docs/errors). */
export const komojuErrorBodySchema = z.object({
  error: z
    .object({ code: z.string(), message: z.string().nullish(), param: z.string().nullish() })
    .passthrough(),
});

/** A webhook delivery's body: an Event whose `data` is the payment (https://doc.komoju.com/docs/webhooks). */
export const komojuEventSchema = z
  .object({
    id: z.string().min(1),
    type: z.string().min(1),
    resource: z.literal('event'),
    created_at: z.string(),
    data: z.unknown(),
  })
  .passthrough();
export type KomojuEvent = z.infer<typeof komojuEventSchema>;

/**
 * Konbini chains as KOMOJU names them (payment_details[store]), by the API's ConvenienceStore.
 * KOMOJU takes no Circle K, Sunkus or Pay-easy under konbini (Pay-easy is a payment type of its
 * own there): those are refused at creation (docs/connectors.md).
 */
export const KOMOJU_KONBINI_STORES: Readonly<Record<string, string>> = {
  seven_eleven: 'seven-eleven',
  family_mart: 'family-mart',
  lawson: 'lawson',
  mini_stop: 'ministop',
  seico_mart: 'seicomart',
  daily_yamazaki: 'daily-yamazaki',
  yamazaki_daily_store: 'daily-yamazaki',
};

/**
 * The online brands (the API's OnlineBrand) KOMOJU takes, each as KOMOJU's payment type
 * (payment_details[type]; the Ruby SDK's PaymentDetailsPayPay: `paypay`) and the currencies it
 * takes them in. PayPay is a Japanese wallet: yen only. Every other online brand is refused at
 * creation (docs/connectors.md, "Unsupported").
 */
export const KOMOJU_ONLINE_BRANDS: Readonly<Record<string, { type: string; currencies: readonly string[] }>> =
  {
    pay_pay_online: { type: 'paypay', currencies: ['JPY'] },
  };
