import { z } from 'zod';
import { PAYMENT_ERROR_CODES, type PaymentErrorName } from './payment-errors';

/**
 * The HTTP protocol between HttpPaymentProcessor and the processor (the simulator speaks it).
 * snake_case JSON, amounts in minor units as JSON numbers: safe integers only (Kessai's bigint
 * amounts cross here, amounts.ts; an answer with an amount past 2^53 - 1 is malformed). One schema
 * per message, used by both sides: the simulator to read requests and shape answers, the client to
 * read answers.
 */

const amount = z.number().int().positive().safe();
const currency = z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code in capitals');

const paymentErrorNames = Object.keys(PAYMENT_ERROR_CODES) as [PaymentErrorName, ...PaymentErrorName[]];

export const paymentErrorWireSchema = z.object({
  code: z.number().int(),
  message: z.enum(paymentErrorNames),
  detail: z.string().nullable(),
});

export const threeDsModeSchema = z.enum(['normal', 'force', 'skip', 'if_available', 'require', 'provided']);
export const operatorCallMethodSchema = z.enum([
  'http_get',
  'http_get_mobile',
  'http_post',
  'sdk',
  'web',
  'app',
]);

const base64 = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64');
const hex = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[0-9a-fA-F]+$/, 'hex');

/** PKPaymentToken's paymentData (Apple's "Payment token format reference"), its own camelCase names. */
export const applePayPaymentDataWireSchema = z
  .object({
    version: z.enum(['EC_v1', 'RSA_v1']),
    data: base64(16_384),
    signature: base64(16_384),
    header: z
      .object({
        ephemeralPublicKey: base64(1_024).optional(),
        wrappedKey: base64(2_048).optional(),
        publicKeyHash: base64(64),
        transactionId: hex(128),
        applicationData: hex(64).optional(),
      })
      .strict(),
  })
  .strict();

/** A Paidy payment's shipping address (Paidy's `shipping_address`). */
export const paidyShippingAddressWireSchema = z
  .object({
    line1: z.string().max(200).optional(),
    line2: z.string().max(200).optional(),
    city: z.string().max(100).optional(),
    state: z.string().max(100).optional(),
    zip: z.string().min(1).max(10),
  })
  .strict();

export const authorizeRequestWireSchema = z.object({
  reference: z.string().min(1).max(200),
  amount,
  currency,
  capture: z.boolean(),
  payment_method: z.discriminatedUnion('type', [
    z.object({
      type: z.literal('card'),
      card: z.object({
        number: z.string().regex(/^\d{12,19}$/),
        exp_month: z.number().int().min(1).max(12),
        exp_year: z.number().int().min(2000).max(2999),
        cvv: z
          .string()
          .regex(/^\d{3,4}$/)
          .nullable(),
        cardholder: z.string().min(1).max(200),
      }),
    }),
    z.object({ type: z.literal('qr_scan'), scanned_qr: z.string().min(1).max(200) }),
    // Apple's PKPaymentToken paymentData as the device made it, Apple's field names kept
    z.object({ type: z.literal('apple_pay'), payment_data: applePayPaymentDataWireSchema }),
    z.object({
      type: z.literal('paidy'),
      token_id: z.string().regex(/^tok_[A-Za-z0-9_-]{1,64}$/),
      shipping_address: paidyShippingAddressWireSchema,
      buyer_email: z.string().max(254).nullable(),
    }),
  ]),
  three_ds: z
    .object({
      mode: threeDsModeSchema,
      redirect_endpoint: z.string().url().nullable(),
      callback_url: z.string().url().nullable(),
    })
    .nullable(),
  descriptor: z.string().max(200).nullable(),
});
export type AuthorizeRequestWire = z.infer<typeof authorizeRequestWireSchema>;

export const captureRequestWireSchema = z.object({ amount, currency });
export const refundRequestWireSchema = z.object({ amount, currency });
export const voidRequestWireSchema = z.object({}).strict();

export const operatorPaymentRequestWireSchema = z.object({
  reference: z.string().min(1).max(200),
  amount,
  currency,
  brand: z.string().regex(/^[a-z0-9_]{1,64}$/),
  call_method: operatorCallMethodSchema.nullable(),
  callback_url: z.string().url(),
  return_url: z.string().url().nullable(),
});
export type OperatorPaymentRequestWire = z.infer<typeof operatorPaymentRequestWireSchema>;

export const deferredPaymentRequestWireSchema = z.object({
  reference: z.string().min(1).max(200),
  amount,
  currency,
  method: z.discriminatedUnion('type', [
    z.object({ type: z.literal('bank_transfer'), brand: z.string().regex(/^[a-z0-9_]{1,64}$/) }),
    z.object({
      type: z.literal('konbini'),
      convenience_store: z.string().regex(/^[a-z0-9_]{1,64}$/),
      customer_name: z.string().min(1).max(200),
      phone_number: z.string().max(40).nullable(),
    }),
  ]),
  expires_on: z.string().datetime(),
  callback_url: z.string().url(),
});
export type DeferredPaymentRequestWire = z.infer<typeof deferredPaymentRequestWireSchema>;

export const paymentInstructionsWireSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('bank_transfer'),
    bank_code: z.string(),
    bank_name: z.string(),
    branch_code: z.string(),
    branch_name: z.string(),
    account_id: z.string(),
    account_number: z.string(),
    account_holder_name: z.string(),
    /** the bank's transfer page, the account filled in */
    payment_url: z.string().url(),
  }),
  z.object({
    type: z.literal('konbini'),
    convenience_store: z.string(),
    payment_code: z.string(),
    receipt_number: z.string(),
    payment_url: z.string().url(),
  }),
]);
export type PaymentInstructionsWire = z.infer<typeof paymentInstructionsWireSchema>;

export const paymentStatusWireSchema = z.enum([
  'pending_authentication',
  'awaiting_payment',
  'authorized',
  'captured',
  'declined',
  'voided',
  'expired',
]);

export const paymentWireSchema = z.object({
  id: z.string(),
  reference: z.string(),
  kind: z.enum(['card', 'qr_scan', 'operator', 'bank_transfer', 'konbini']),
  status: paymentStatusWireSchema,
  amount: z.number().int().safe(),
  currency: z.string(),
  captured_amount: z.number().int().safe(),
  refunded_amount: z.number().int().safe(),
  error: paymentErrorWireSchema.nullable(),
  card: z.object({ brand: z.string(), last_four: z.string() }).nullable(),
  three_ds: z
    .object({
      issuer_token: z.string().url(),
      call_method: z.enum(['http_get', 'http_post']),
      payload: z.record(z.string()),
      content_type: z.string(),
    })
    .nullable(),
  operator: z
    .object({
      operator_payment_id: z.string(),
      brand: z.string(),
      payment_url: z.string().url(),
      qr_content: z.string(),
      call_method: z.enum(['http_get', 'http_post']),
      expires_on: z.string().datetime(),
    })
    .nullable(),
  deferred: z
    .object({
      instructions: paymentInstructionsWireSchema,
      expires_on: z.string().datetime(),
      deposits: z.array(
        z.object({
          id: z.string().min(1),
          amount: z.number().int().positive().safe(),
          received_on: z.string().datetime(),
        }),
      ),
    })
    .nullable()
    .default(null),
  created_on: z.string().datetime(),
});
export type PaymentWire = z.infer<typeof paymentWireSchema>;

export const authorizeResponseWireSchema = z.object({
  outcome: z.enum(['approved', 'declined', 'three_ds_required']),
  payment: paymentWireSchema,
});
export const captureResponseWireSchema = z.object({
  outcome: z.enum(['captured', 'rejected']),
  payment: paymentWireSchema,
  error: paymentErrorWireSchema.nullable(),
});
export const voidResponseWireSchema = z.object({
  outcome: z.enum(['voided', 'rejected']),
  payment: paymentWireSchema,
  error: paymentErrorWireSchema.nullable(),
});
export const refundResponseWireSchema = z.object({
  outcome: z.enum(['refunded', 'rejected']),
  refund: z.object({ id: z.string(), amount: z.number().int().safe(), currency: z.string() }).nullable(),
  payment: paymentWireSchema,
  error: paymentErrorWireSchema.nullable(),
});
export const operatorPaymentResponseWireSchema = z.object({
  outcome: z.literal('created'),
  payment: paymentWireSchema,
});
export const deferredPaymentResponseWireSchema = z.object({
  outcome: z.literal('created'),
  payment: paymentWireSchema,
});
export const paymentLookupResponseWireSchema = z.object({ payment: paymentWireSchema });

/** Every non-2xx answer: `type` is machine-readable, `message` for people. */
export const errorResponseWireSchema = z.object({
  error: z.object({
    type: z.string(),
    message: z.string(),
    payment_error: paymentErrorWireSchema.optional(),
  }),
});
export type ErrorResponseWire = z.infer<typeof errorResponseWireSchema>;
