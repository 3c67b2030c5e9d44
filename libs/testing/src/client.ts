import { cardData, APPROVED_TEST_CARD } from './cards';
import { bearer, requestJson, type Credentials, type JsonRequest } from './http';

export type TokenType = 'one_time' | 'recurring' | 'subscription';

/**
 * A running gateway as one merchant sees it over HTTP: requests under its credentials, and the token
 * and charge factories the suites share. `as` gives the same gateway under other credentials.
 */
export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials?: Credentials,
  ) {}

  /** The same gateway under other credentials (a seeded merchant stands for its store token). */
  as(who: Credentials | { storeToken: Credentials }): GatewayClient {
    return new GatewayClient(this.baseUrl, 'storeToken' in who ? who.storeToken : who);
  }

  /** One request, authenticated with the client's credentials unless `init.auth` is given. */
  request(path: string, init: JsonRequest = {}) {
    const auth = init.auth ?? (this.credentials ? bearer(this.credentials) : undefined);
    return requestJson(this.baseUrl, path, { ...init, auth });
  }

  /** POST /tokens for a card (the approved test card, one_time, unless told); its id, or a failure. */
  async cardToken(options: { type?: TokenType; cardNumber?: string } = {}): Promise<string> {
    return this.createToken({
      payment_type: 'card',
      type: options.type ?? 'one_time',
      email: 'buyer@example.test',
      data: cardData({ card_number: options.cardNumber ?? APPROVED_TEST_CARD }),
    });
  }

  /** POST /tokens for an operator payment (PayPay unless told), paid on the operator's page. */
  async onlineToken(options: { type?: TokenType; brand?: string } = {}): Promise<string> {
    return this.createToken({
      payment_type: 'online',
      type: options.type ?? 'one_time',
      email: 'buyer@example.test',
      data: { brand: options.brand ?? 'pay_pay_online' },
    });
  }

  /** POST /charges with any body, the answer kept whatever it is. */
  postCharge(body: unknown, idempotencyKey?: string) {
    return this.request('/charges', { method: 'POST', json: body, key: idempotencyKey });
  }

  /** POST /charges of 1,200 JPY (unless `extra` says otherwise) with a token; the charge, or a failure. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the charge's fields freely
  async charge(tokenId: string, extra: Record<string, unknown> = {}): Promise<any> {
    const res = await this.postCharge({
      transaction_token_id: tokenId,
      amount: 1200,
      currency: 'JPY',
      ...extra,
    });
    return expectCreated('POST /charges', res);
  }

  private async createToken(body: Record<string, unknown>): Promise<string> {
    const res = await this.request('/tokens', { method: 'POST', json: body });
    const token = expectCreated('POST /tokens', res) as { id: string };
    return token.id;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed body, as requestJson gives it
function expectCreated(what: string, res: { status: number; text: string; body: any }): any {
  if (res.status !== 201) throw new Error(`${what} answered ${res.status}, not 201: ${res.text}`);
  return res.body;
}
