import { PAYMENT_ERROR_CODES } from '../payment-errors';
import { isRawCardDataRefusal, STRIPE_ERROR_TABLE, stripeErrorDisposition } from './stripe-errors';

const card = (code: string, declineCode?: string) => ({
  type: 'StripeCardError',
  statusCode: 402,
  code,
  declineCode,
});

describe('Stripe error table', () => {
  it.each([
    ['card_declined', 'generic_decline', 'CARD_REJECTED'],
    ['card_declined', 'do_not_honor', 'CARD_REJECTED'],
    ['card_declined', 'insufficient_funds', 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
    ['card_declined', 'lost_card', 'CARD_REJECTED'],
    ['card_declined', 'fraudulent', 'FRAUD_SUSPECTED'],
    ['card_declined', 'a_decline_code_from_later', 'CARD_REJECTED'],
    ['expired_card', undefined, 'CARD_EXPIRED'],
    ['incorrect_cvc', undefined, 'CARD_CVV_INVALID'],
    ['incorrect_number', undefined, 'CARD_NUMBER_NOT_VALID'],
    ['invalid_expiry_month', undefined, 'CARD_EXPIRATION_MONTH_INVALID'],
    ['invalid_expiry_year', undefined, 'CARD_EXPIRATION_YEAR_INVALID'],
    ['processing_error', undefined, 'PROCESSING_ERROR'],
    ['authentication_required', 'authentication_required', 'THREE_DS_COULD_NOT_BE_COMPLETED'],
    ['a_card_code_from_later', undefined, 'CARD_REJECTED'],
  ])('declines %s (%s) as %s', (code, declineCode, sdk) => {
    expect(stripeErrorDisposition(card(code, declineCode))).toEqual({ kind: 'decline', sdk });
  });

  it.each(['payment_intent_unexpected_state', 'amount_too_large', 'charge_already_refunded'])(
    'answers %s as refused for the payment state',
    (code) => {
      expect(stripeErrorDisposition({ type: 'StripeInvalidRequestError', statusCode: 400, code })).toEqual({
        kind: 'state',
      });
    },
  );

  it('answers resource_missing as no such payment', () => {
    expect(
      stripeErrorDisposition({
        type: 'StripeInvalidRequestError',
        statusCode: 404,
        code: 'resource_missing',
      }),
    ).toEqual({ kind: 'not_found' });
  });

  it.each([
    [{ type: 'StripeConnectionError' }],
    [{ type: 'StripeAPIError', statusCode: 500 }],
    [{ type: 'StripeRateLimitError', statusCode: 429, code: 'rate_limit' }],
    [{ type: 'StripeInvalidRequestError', statusCode: 409, code: 'idempotency_key_in_use' }],
    [{ type: 'StripeInvalidRequestError', statusCode: 400, code: 'lock_timeout' }],
    [{ type: 'unknown', statusCode: 503 }],
  ])('retries %o with the same key', (facts) => {
    expect(stripeErrorDisposition(facts)).toEqual({ kind: 'transient' });
  });

  it.each([
    [{ type: 'StripeAuthenticationError', statusCode: 401 }],
    [{ type: 'StripePermissionError', statusCode: 403 }],
    [{ type: 'StripeIdempotencyError', statusCode: 400 }],
    [{ type: 'StripeInvalidRequestError', statusCode: 400, code: 'parameter_missing' }],
    [{ type: 'StripeInvalidRequestError', statusCode: 400 }],
  ])('refuses %o as final', (facts) => {
    expect(stripeErrorDisposition(facts)).toEqual({ kind: 'refused' });
  });

  it('recognises the refusal of raw card numbers, and nothing else as it', () => {
    const facts = { type: 'StripeInvalidRequestError', statusCode: 400 };
    expect(
      isRawCardDataRefusal(
        facts,
        'Sending credit card numbers directly to the Stripe API is generally unsafe. … see ' +
          'https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.',
      ),
    ).toBe(true);
    expect(isRawCardDataRefusal(facts, 'Missing required param: amount.')).toBe(false);
    expect(isRawCardDataRefusal({ ...facts, code: 'parameter_missing' }, 'raw card data somewhere')).toBe(
      false,
    );
  });

  it('maps only to codes the SDK knows', () => {
    for (const disposition of Object.values(STRIPE_ERROR_TABLE)) {
      if (disposition.kind === 'decline') expect(PAYMENT_ERROR_CODES[disposition.sdk]).toBeDefined();
    }
  });
});
