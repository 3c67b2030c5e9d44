import SDK, { OnlineBrand, PaymentType, ResponseError, TransactionTokenType } from 'univapay-node';
import { APPROVED_TEST_CARD, NEXT_YEAR } from './cards';
import type { Credentials } from './http';

/** The official SDK against a running gateway, under a secret-bearing app token. */
export function sdkFor(baseUrl: string, token: Credentials): SDK {
  return new SDK({ endpoint: baseUrl, jwt: token.jwt, secret: token.secret });
}

const TOKEN_TYPES = {
  one_time: TransactionTokenType.ONE_TIME,
  recurring: TransactionTokenType.RECURRING,
  subscription: TransactionTokenType.SUBSCRIPTION,
};

/**
 * A card token created through the SDK: the approved test card, one_time, the buyer's email, unless
 * told (`email: null` sends none); `extra` are more of the request's fields (useConfirmation,
 * threeDs…), as the SDK takes them.
 */
export function sdkCardToken(
  sdk: SDK,
  options: {
    cardNumber?: string;
    type?: keyof typeof TOKEN_TYPES;
    email?: string | null;
    extra?: Record<string, unknown>;
  } = {},
) {
  const email = options.email === undefined ? 'buyer@example.test' : options.email;
  return sdk.transactionTokens.create({
    paymentType: PaymentType.CARD,
    type: TOKEN_TYPES[options.type ?? 'one_time'],
    ...(email === null ? {} : { email }),
    data: {
      cardholder: 'Taro Yamada',
      cardNumber: options.cardNumber ?? APPROVED_TEST_CARD,
      expMonth: 12,
      expYear: NEXT_YEAR,
      cvv: '123',
    },
    ...options.extra,
  });
}

/** A one_time token for an operator payment (PayPay unless told) created through the SDK, paid on the operator's page. */
export function sdkOnlineToken(sdk: SDK, brand: OnlineBrand = OnlineBrand.PAY_PAY_ONLINE) {
  return sdk.transactionTokens.create({
    paymentType: PaymentType.ONLINE,
    type: TransactionTokenType.ONE_TIME,
    email: 'buyer@example.test',
    data: { brand },
  });
}

/** The error envelope of an SDK call that must fail; fails the test when the call succeeds. */
export async function sdkError(promise: Promise<unknown>): Promise<ResponseError['errorResponse']> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ResponseError) return error.errorResponse;
    throw error;
  }
  throw new Error('expected the SDK call to fail');
}
