import { presentPaymentError } from './payment-error.presenter';

describe('presentPaymentError', () => {
  it('is null when the row holds no payment error', () => {
    expect(presentPaymentError({ errorCode: null, errorMessage: null, errorDetail: null })).toBeNull();
  });

  it("gives the detail as `detail` (UnivaPay's name) and as `details` (what the SDK's type reads)", () => {
    const error = presentPaymentError({
      errorCode: 306,
      errorMessage: 'CARD_REJECTED',
      errorDetail: 'declined by the issuer',
    });
    expect(error).toEqual({
      code: 306,
      message: 'CARD_REJECTED',
      detail: 'declined by the issuer',
      details: 'declined by the issuer',
    });
  });

  it('leaves `details` out when there is no detail, and keeps `detail: null`', () => {
    const error = presentPaymentError({
      errorCode: 311,
      errorMessage: 'TOO_MANY_CHARGE_REQUESTS',
      errorDetail: null,
    });
    expect(error).toEqual({ code: 311, message: 'TOO_MANY_CHARGE_REQUESTS', detail: null });
    expect(error).not.toHaveProperty('details');
  });
});
