import { cardExpiresAt, passesLuhn, testCardOutcome, type TestCardOutcome } from '@kessai/cards';
import {
  type AuthorizeRequestWire,
  findTestQrCode,
  paymentError,
  type PaymentErrorDetails,
  type ThreeDsMode,
} from '@kessai/processor';

/** What the simulated issuer or wallet decides, before any transport behaviour is applied. */
export type AuthorizationDecision =
  { kind: 'approve' } | { kind: 'decline'; error: PaymentErrorDetails } | { kind: 'challenge' };

type CardWire = Extract<AuthorizeRequestWire['payment_method'], { type: 'card' }>['card'];

/**
 * The test-mode outcome that drives a card payment's whole life: the catalogue's scripted cards,
 * UnivaPay's rules (…1111, …4242, …1881) for every other number.
 */
export function cardOutcomeOf(card: CardWire): TestCardOutcome {
  return testCardOutcome(card.number);
}

/**
 * The issuer's answer for a card: real-world checks first (Luhn, expiry date), then the card's
 * test-mode outcome, then 3-D Secure. The 3DS card needs authentication unless 3DS is skipped
 * (then the issuer refuses) or already done elsewhere (`provided`); `force`/`require` challenge
 * every card the issuer would approve.
 */
export function decideCardAuthorization(
  card: CardWire,
  threeDsMode: ThreeDsMode | null,
  now: Date,
): AuthorizationDecision {
  if (!passesLuhn(card.number)) return decline(paymentError('CARD_NUMBER_NOT_VALID'));
  if (now.getTime() >= cardExpiresAt(card.exp_year, card.exp_month).getTime()) {
    return decline(paymentError('CARD_EXPIRED', 'the expiry date has passed'));
  }
  const outcome = cardOutcomeOf(card);
  switch (outcome) {
    case 'declined':
      return decline(paymentError('CARD_REJECTED', 'the issuer declined the card'));
    case 'insufficient_funds':
      return decline(paymentError('PAYMENT_WALLET_INSUFFICIENT_FUNDS', 'insufficient funds'));
    case 'expired_at_processor':
      return decline(paymentError('CARD_EXPIRED', 'the issuer reports the card as expired'));
    case 'cvv_check_fails':
      return decline(paymentError('CARD_CVV_INVALID', 'the CVV does not match'));
    case 'three_ds_required':
      if (threeDsMode === 'skip') {
        return decline(paymentError('THREE_DS_COULD_NOT_BE_COMPLETED', 'the issuer requires 3-D Secure'));
      }
      return threeDsMode === 'provided' ? { kind: 'approve' } : { kind: 'challenge' };
    case 'approved':
    case 'refund_fails':
    case 'void_fails':
    case 'processor_timeout':
    case 'processor_unavailable':
      return threeDsMode === 'force' || threeDsMode === 'require'
        ? { kind: 'challenge' }
        : { kind: 'approve' };
  }
}

export function decideQrScan(scannedQr: string): AuthorizationDecision {
  const code = findTestQrCode(scannedQr);
  if (!code) return decline(paymentError('PAYMENT_CODE_INVALID', 'unknown payment code'));
  switch (code.outcome) {
    case 'approved':
      return { kind: 'approve' };
    case 'declined':
      return decline(paymentError('PAYMENT_WALLET_REJECTED', 'the wallet refused the payment'));
    case 'insufficient_funds':
      return decline(paymentError('PAYMENT_WALLET_INSUFFICIENT_FUNDS', 'wallet balance too low'));
    case 'code_expired':
      return decline(paymentError('PAYMENT_CODE_EXPIRED', 'the payment code has expired'));
  }
}

function decline(error: PaymentErrorDetails): AuthorizationDecision {
  return { kind: 'decline', error };
}
