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
 * (docs/processors.md, "Unsupported"): the port's calls outside their capabilities, as a
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

/** The card an authorization sends: consumer-presented QR codes and 3-D Secure (require, force) are refused. */
export function cardToAuthorize(processor: HostedProcessor, request: AuthorizeRequest): SensitiveCardData {
  const method = request.paymentMethod;
  if (method.type !== 'card') throw unsupported(processor, 'authorize', 'consumer-presented QR codes');
  const threeDs = request.threeDs?.mode;
  if (threeDs === 'require' || threeDs === 'force') throw unsupported(processor, 'authorize', '3-D Secure');
  return method.card;
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
