import { type SensitiveCardData } from '@kessai/cards';
import { paymentError } from './payment-errors';
import {
  type AuthorizeRequest,
  type CaptureResult,
  type DeferredPaymentMethod,
  type DeferredPaymentRequest,
  type OperatorPaymentResult,
} from './payment-processor';
import { ProcessorRequestRejectedError, type ProcessorOperation } from './processor-errors';

/**
 * What the adapters of the hosted processors (KOMOJU, Stripe) refuse before anything is sent
 * (docs/connectors.md, "Unsupported"): the port's calls outside their capabilities, as a
 * ProcessorRequestRejectedError of type `unsupported`; and a capture that does not fit the payment.
 */
export type HostedProcessor = 'KOMOJU' | 'Stripe';

export function unsupported(
  processor: HostedProcessor,
  operation: ProcessorOperation,
  what: string,
): ProcessorRequestRejectedError {
  return new ProcessorRequestRejectedError(
    operation,
    0,
    'unsupported',
    `${processor}: ${what} are not supported`,
  );
}

/**
 * The card an authorization sends. Consumer-presented QR codes, Apple Pay's payment data and Paidy
 * tokens (which Kessai's adapters do not hand on) are refused; so is 3-D Secure asked
 * for (mode require or force) from a processor that cannot be asked (`requestsThreeDs` false) or
 * without the return URL a redirect needs.
 */
export function cardToAuthorize(
  processor: HostedProcessor,
  request: AuthorizeRequest,
  requestsThreeDs: boolean,
): SensitiveCardData {
  const method = request.paymentMethod;
  if (method.type === 'qr_scan') throw unsupported(processor, 'authorize', 'consumer-presented QR codes');
  if (method.type === 'apple_pay') throw unsupported(processor, 'authorize', 'Apple Pay payment data');
  if (method.type === 'paidy') throw unsupported(processor, 'authorize', 'Paidy tokens');
  if (isThreeDsRequested(request) && (!requestsThreeDs || !request.threeDs?.returnUrl))
    throw unsupported(processor, 'authorize', '3-D Secure requests');
  return method.card;
}

/** Whether the charge asks for 3-D Secure whatever the issuer wants (mode require or force). */
export function isThreeDsRequested(request: AuthorizeRequest): boolean {
  const mode = request.threeDs?.mode;
  return mode === 'require' || mode === 'force';
}

/** The content type of a redirect's issuer token: a GET without a payload, as the simulator's form type. */
export const REDIRECT_CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=UTF-8';

/**
 * The return URL to hand a hosted processor for a 3-D Secure redirect, or null when the charge
 * allows none: mode `skip` (the issuer's demand is a decline) or no return route.
 */
export function threeDsReturnUrlOf(request: AuthorizeRequest): string | null {
  if (request.threeDs?.mode === 'skip') return null;
  return request.threeDs?.returnUrl ?? null;
}

/** Online and QR operator payments: refused. */
export function operatorPaymentsUnsupported(processor: HostedProcessor): Promise<OperatorPaymentResult> {
  return Promise.reject(unsupported(processor, 'create_operator_payment', 'online and QR operator payments'));
}

/**
 * A deferred payment's konbini and the processor's name of its store (`stores`): bank transfers and
 * the stores the processor has no name for are refused.
 */
export function konbiniToCreate<S>(
  processor: HostedProcessor,
  request: DeferredPaymentRequest,
  stores: Readonly<Record<string, S>>,
): { method: Extract<DeferredPaymentMethod, { type: 'konbini' }>; store: S } {
  const method = request.method;
  if (method.type !== 'konbini') throw unsupported(processor, 'create_deferred_payment', 'bank transfers');
  const store = stores[method.convenienceStore];
  if (!store) throw unsupported(processor, 'create_deferred_payment', `konbini ${method.convenienceStore}`);
  return { method, store };
}

/**
 * A capture's refusal when it does not fit the payment it captures: another currency, or more than
 * the payment's amount (currencies compared as the caller spells both). Null: it may be sent.
 */
export function captureMismatch(
  request: { amount: number; currency: string },
  payment: { amount: number; currency: string },
): CaptureResult | null {
  if (request.currency === payment.currency && request.amount <= payment.amount) return null;
  return { outcome: 'rejected', error: paymentError('CHARGE_INVALID_DATA', 'amount or currency mismatch') };
}
