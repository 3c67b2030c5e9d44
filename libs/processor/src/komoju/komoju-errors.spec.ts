import { PAYMENT_ERROR_CODES } from '../payment-errors';
import { KOMOJU_ERROR_TABLE, komojuErrorDisposition } from './komoju-errors';

describe('KOMOJU error table', () => {
  it.each([
    ['card_declined', 'CARD_REJECTED'],
    ['invalid_number', 'CARD_NUMBER_NOT_VALID'],
    ['card_expired', 'CARD_EXPIRED'],
    ['bad_verification_value', 'CARD_CVV_INVALID'],
    ['insufficient_funds', 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
    ['request_failed', 'PROCESSING_ERROR'],
  ])('declines %s as %s', (code, sdk) => {
    expect(komojuErrorDisposition(422, code)).toEqual({ kind: 'decline', sdk });
  });

  it.each(['internal_server_error', 'bad_gateway', 'service_unavailable', 'gateway_timeout'])(
    'retries %s with the same key',
    (code) => {
      expect(komojuErrorDisposition(500, code)).toEqual({ kind: 'transient' });
    },
  );

  it.each(['bad_request', 'missing_parameter', 'unauthorized', 'forbidden'])(
    'refuses %s as final',
    (code) => {
      expect(komojuErrorDisposition(400, code)).toEqual({ kind: 'refused' });
    },
  );

  it('decides by the status for a code it does not know', () => {
    expect(komojuErrorDisposition(503, 'something_new')).toEqual({ kind: 'transient' });
    expect(komojuErrorDisposition(409, undefined)).toEqual({ kind: 'transient' });
    expect(komojuErrorDisposition(429, undefined)).toEqual({ kind: 'transient' });
    expect(komojuErrorDisposition(402, 'something_new')).toEqual({
      kind: 'decline',
      sdk: 'PROCESSING_ERROR',
    });
    expect(komojuErrorDisposition(422, 'something_new')).toEqual({ kind: 'refused' });
  });

  it('maps only to codes the SDK knows', () => {
    for (const disposition of Object.values(KOMOJU_ERROR_TABLE)) {
      if (disposition.kind === 'decline') expect(PAYMENT_ERROR_CODES[disposition.sdk]).toBeDefined();
    }
  });
});
