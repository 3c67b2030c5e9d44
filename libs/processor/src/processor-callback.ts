import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { type PaymentErrorDetails } from './payment-errors';
import { paymentErrorWireSchema } from './wire';

/** The header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const PROCESSOR_SIGNATURE_HEADER = 'x-processor-signature';

/** How old a signed notice may be; bounds how long a captured one could be replayed. */
export const DEFAULT_CALLBACK_TOLERANCE_SECONDS = 300;

/** Notices the processor posts to us, snake_case on the wire. `id` is the same on every retry of one notice. */
export const processorCallbackWireSchema = z.discriminatedUnion('event', [
  z.object({
    id: z.string().min(1),
    event: z.literal('operator_payment'),
    operator_payment_id: z.string().min(1),
    payment_id: z.string().min(1),
    reference: z.string().min(1),
    status: z.enum(['paid', 'expired']),
    amount: z.number().int(),
    currency: z.string(),
    occurred_on: z.string().datetime(),
  }),
  z.object({
    id: z.string().min(1),
    event: z.literal('deferred_payment'),
    payment_id: z.string().min(1),
    reference: z.string().min(1),
    /** money arrived (a transfer, a konbini payment): the notice says nothing of a match */
    status: z.literal('deposit_received'),
    deposit_id: z.string().min(1),
    amount: z.number().int(),
    currency: z.string(),
    occurred_on: z.string().datetime(),
  }),
  z.object({
    id: z.string().min(1),
    event: z.literal('payout'),
    payout_id: z.string().min(1),
    /** our transfer's id */
    reference: z.string().min(1),
    status: z.enum(['paid', 'failed']),
    error_code: z.string().nullable(),
    amount: z.number().int(),
    currency: z.string(),
    occurred_on: z.string().datetime(),
  }),
  z.object({
    id: z.string().min(1),
    event: z.literal('three_ds'),
    payment_id: z.string().min(1),
    reference: z.string().min(1),
    status: z.enum(['authorized', 'captured', 'declined']),
    error: paymentErrorWireSchema.nullable(),
    occurred_on: z.string().datetime(),
  }),
]);

export type ProcessorCallbackWire = z.infer<typeof processorCallbackWireSchema>;

export type ProcessorCallback =
  | {
      notificationId: string;
      event: 'operator_payment';
      operatorPaymentId: string;
      processorReference: string;
      reference: string;
      /** `failed`: a hosted processor's (KOMOJU's PayPay refused by the wallet); the simulator sends none */
      status: 'paid' | 'expired' | 'failed';
      amount: number;
      currency: string;
      occurredOn: Date;
    }
  | {
      notificationId: string;
      event: 'deferred_payment';
      processorReference: string;
      reference: string;
      status: 'deposit_received';
      depositId: string;
      amount: number;
      currency: string;
      occurredOn: Date;
    }
  | {
      notificationId: string;
      event: 'payout';
      processorReference: string;
      reference: string;
      status: 'paid' | 'failed';
      errorCode: string | null;
      amount: number;
      currency: string;
      occurredOn: Date;
    }
  | {
      notificationId: string;
      event: 'three_ds';
      processorReference: string;
      reference: string;
      status: 'authorized' | 'captured' | 'declined';
      error: PaymentErrorDetails | null;
      occurredOn: Date;
    };

export class InvalidProcessorCallbackError extends Error {
  constructor(reason: string) {
    super(`invalid processor callback: ${reason}`);
    this.name = 'InvalidProcessorCallbackError';
  }
}

function hmacHex(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * The signature header value for a body. The timestamp is signed with the body so that an old
 * notice cannot be replayed with a new timestamp.
 */
export function signProcessorCallback(rawBody: string, secret: string, now: Date = new Date()): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, rawBody)}`;
}

export interface VerifyCallbackInput {
  /** the request body exactly as received: re-serialised JSON would not match the signature */
  rawBody: string | Buffer;
  signatureHeader: string | string[] | undefined;
  secret: string;
  toleranceSeconds?: number;
  now?: Date;
}

/** Checks the signature and age of a notice and returns it parsed, or throws InvalidProcessorCallbackError. */
export function verifyProcessorCallback(input: VerifyCallbackInput): ProcessorCallback {
  const rawBody = typeof input.rawBody === 'string' ? input.rawBody : input.rawBody.toString('utf8');
  const header = Array.isArray(input.signatureHeader) ? input.signatureHeader[0] : input.signatureHeader;
  if (!header) throw new InvalidProcessorCallbackError('signature header missing');

  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get('t'));
  const signature = parts.get('v1') ?? '';
  if (!Number.isSafeInteger(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) {
    throw new InvalidProcessorCallbackError('signature header malformed');
  }

  const expected = Buffer.from(hmacHex(input.secret, timestamp, rawBody), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    throw new InvalidProcessorCallbackError('signature does not match');
  }
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > (input.toleranceSeconds ?? DEFAULT_CALLBACK_TOLERANCE_SECONDS)) {
    throw new InvalidProcessorCallbackError('signature timestamp outside the tolerance');
  }

  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw new InvalidProcessorCallbackError('body is not JSON');
  }
  const parsed = processorCallbackWireSchema.safeParse(json);
  if (!parsed.success) throw new InvalidProcessorCallbackError('body does not match a known notice');
  return fromWire(parsed.data);
}

function fromWire(wire: ProcessorCallbackWire): ProcessorCallback {
  switch (wire.event) {
    case 'operator_payment':
      return {
        ...notice(wire, wire.payment_id),
        ...money(wire),
        operatorPaymentId: wire.operator_payment_id,
      };
    case 'deferred_payment':
      return { ...notice(wire, wire.payment_id), ...money(wire), depositId: wire.deposit_id };
    case 'payout':
      return { ...notice(wire, wire.payout_id), ...money(wire), errorCode: wire.error_code };
    case 'three_ds':
      return { ...notice(wire, wire.payment_id), error: wire.error };
  }
}

/** What every notice carries: its id (the same on each retry), event and status, both references and its time. */
function notice<W extends ProcessorCallbackWire>(
  wire: W,
  processorReference: string,
): Pick<ProcessorCallback, 'notificationId' | 'processorReference' | 'reference' | 'occurredOn'> & {
  event: W['event'];
  status: W['status'];
} {
  return {
    notificationId: wire.id,
    event: wire.event,
    processorReference,
    reference: wire.reference,
    status: wire.status,
    occurredOn: new Date(wire.occurred_on),
  };
}

function money(wire: { amount: number; currency: string }) {
  return { amount: wire.amount, currency: wire.currency };
}
