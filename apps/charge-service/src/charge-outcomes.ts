import type { ChargeOutcome, ChargeToReconcile, PendingCharge, VirtualBankAccount } from '@kessai/db';
import { chargeFee, isDeferredPaymentType, type FeeTerms } from '@kessai/domain';
import {
  type AuthorizeResult,
  type DeferredPaymentResult,
  fromProcessorAmount,
  type OperatorPaymentResult,
  paymentError,
  type PaymentErrorDetails,
  type PaymentInstructions,
  type ProcessorPayment,
} from '@kessai/processor';

// What a processor's answer or record means for a charge: pure functions the authorization,
// capture and reconciliation services share (docs/charges.md, "charge-service").

/** What the processor answers a charge's first call with. */
export type ProcessorAnswer = AuthorizeResult | OperatorPaymentResult | DeferredPaymentResult;

export function isDeferredKind(kind: ProcessorPayment['kind']): boolean {
  return isDeferredPaymentType(kind);
}

/**
 * GET .../issuer_token of a bank-transfer or konbini charge: the page the customer pays from (the
 * bank's transfer page, the konbini slip) and, as `payload`, the instructions themselves.
 */
export function deferredIssuerToken(
  answer: DeferredPaymentResult,
  charge: PendingCharge,
): Record<string, unknown> {
  const common = {
    amount: charge.amount.toString(),
    currency: charge.currency,
    expiration_date: charge.expiresOn?.toISOString() ?? '',
  };
  const instructions = answer.instructions;
  switch (instructions.type) {
    case 'bank_transfer':
      return {
        issuer_token: instructions.paymentUrl,
        call_method: 'http_get',
        payload: { ...bankAccountOf(instructions), ...common },
        payment_type: 'bank_transfer',
      };
    case 'konbini':
      return {
        issuer_token: instructions.paymentUrl,
        call_method: 'http_get',
        payload: {
          convenience_store: instructions.convenienceStore,
          payment_code: instructions.paymentCode,
          receipt_number: instructions.receiptNumber,
          ...common,
        },
        payment_type: 'konbini',
      };
  }
}

/**
 * The virtual account a bank-transfer payment was given, kept on the charge's token (its `data`
 * shows it: docs/bank-transfer-and-konbini.md, "Tokens"); null for a konbini payment.
 */
export function virtualBankAccountOf(answer: DeferredPaymentResult): VirtualBankAccount | null {
  return answer.instructions.type === 'bank_transfer' ? bankAccountOf(answer.instructions) : null;
}

function bankAccountOf(
  instructions: Extract<PaymentInstructions, { type: 'bank_transfer' }>,
): VirtualBankAccount {
  return {
    bank_code: instructions.bankCode,
    bank_name: instructions.bankName,
    branch_code: instructions.branchCode,
    branch_name: instructions.branchName,
    account_id: instructions.accountId,
    account_number: instructions.accountNumber,
    account_holder_name: instructions.accountHolderName,
  };
}

/** The charge outcome the processor's record of a payment means; null while the customer has not acted. */
export function outcomeOfPayment(
  payment: ProcessorPayment,
  charge: Pick<ChargeToReconcile, 'paymentType' | 'feeTerms'>,
): ChargeOutcome | null {
  const processorReference = payment.processorReference;
  switch (payment.status) {
    case 'captured':
      return successful(processorReference, fromProcessorAmount(payment.capturedAmount), charge.feeTerms);
    case 'authorized':
      return { status: 'authorized', processorReference, captureStatus: 'authorized' };
    case 'declined':
      return { status: 'failed', processorReference, error: payment.error ?? paymentError('CARD_REJECTED') };
    case 'expired':
      return {
        status: 'failed',
        processorReference,
        error: payment.error ?? paymentError('CONFIRMATION_PERIOD_EXPIRED'),
      };
    case 'voided':
      return { status: 'failed', processorReference, error: expiryError(charge) };
    case 'pending_authentication':
    case 'awaiting_payment':
      return null;
  }
}

/** Online/QR: 327 CONFIRMATION_PERIOD_EXPIRED; a card (3-D Secure): 358 THREE_DS_COULD_NOT_BE_COMPLETED. */
export function expiryError(charge: Pick<ChargeToReconcile, 'paymentType'>): PaymentErrorDetails {
  return charge.paymentType === 'card'
    ? paymentError(
        'THREE_DS_COULD_NOT_BE_COMPLETED',
        'the cardholder did not complete authentication in time',
      )
    : paymentError('CONFIRMATION_PERIOD_EXPIRED', 'the customer did not pay in time');
}

/** Money taken: `chargedAmount` and its fee under the charge's terms (docs/charges.md, "Fees"). */
export function successful(
  processorReference: string,
  chargedAmount: bigint,
  terms: FeeTerms | null,
): ChargeOutcome {
  return {
    status: 'successful',
    processorReference,
    chargedAmount,
    feeAmount: feeOf(chargedAmount, terms) ?? undefined,
  };
}

/** The fee of what was charged; null for a charge accepted before fees existed (it has no terms). */
export function feeOf(chargedAmount: bigint, terms: FeeTerms | null): bigint | null {
  return terms === null ? null : chargeFee(chargedAmount, terms);
}

export function failed(error: PaymentErrorDetails): ChargeOutcome {
  return { status: 'failed', error };
}

/** The charge cannot be processed at all: status `error`, 309 with the reason. */
export function errored(detail: string): ChargeOutcome {
  return { status: 'error', error: paymentError('PROCESSING_ERROR', detail) };
}
