import { Injectable } from '@nestjs/common';
import {
  storedTokenThreeDs,
  threeDsRead,
  TokenThreeDsRepository,
  TransactionTokensRepository,
  type StoredTokenThreeDs,
  type TransactionToken,
} from '@kessai/db';
import { BusinessRuleError, TOKEN_THREE_DS_CURRENCY, ValidationError } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { TokenCheckRouting } from './token-check-routing';

/**
 * A card token's 3-D Secure (docs/transaction-tokens.md, "3-D Secure"), for the gateway and any
 * other front end: the issuer page while awaiting, starting authentication again (enableThreeDs),
 * turning it off (disableThreeDs). Each takes the token as TransactionTokensService.find read it.
 * The authentication itself is charge-service's (authenticate_token).
 */
@Injectable()
export class TokenThreeDsService {
  constructor(
    private readonly tokens: TransactionTokensRepository,
    private readonly threeDs: TokenThreeDsRepository,
    private readonly checkRouting: TokenCheckRouting,
  ) {}

  /** The issuer page (ThreeDsIssuerToken, as stored) while awaiting, else 400 INVALID_THREE_DS_STATUS. */
  issuerToken(token: TransactionToken): Record<string, unknown> {
    const threeDs = token.paymentType === 'card' ? storedTokenThreeDs(token.data) : null;
    if (!threeDs?.enabled || threeDs.status !== 'awaiting' || !threeDs.issuer_token)
      throw new BusinessRuleError('INVALID_THREE_DS_STATUS');
    return threeDs.issuer_token;
  }

  /**
   * Authentication starts again (a new attempt, pending, with token_three_ds_requested) unless it
   * succeeded already, in which case it is only switched on. The new attempt goes where the store's
   * card payments in yen now go, or is refused (400 NOT_SUPPORTED_BY_PROCESSOR, `three_ds`) when
   * that account's provider cannot do it (decision 0079). Answers the token.
   */
  async enable(token: TransactionToken, correlation: Correlation): Promise<TransactionToken> {
    checkChangeable(token);
    const threeDs = storedTokenThreeDs(token.data);
    if (threeDs?.status === 'successful') {
      if (threeDs.enabled) return token;
      return this.#apply(token, threeDs, { ...threeDs, enabled: true }, false, correlation);
    }
    const account = await this.checkRouting.route(token, 'three_ds', TOKEN_THREE_DS_CURRENCY);
    const next: StoredTokenThreeDs = {
      enabled: true,
      status: 'pending',
      mode: threeDs && threeDs.mode !== 'skip' ? threeDs.mode : 'normal',
      redirect_endpoint: threeDs?.redirect_endpoint ?? null,
      redirect_id: threeDs?.redirect_id ?? null,
      attempt: (threeDs?.attempt ?? 0) + 1,
      error: null,
      issuer_token: null,
      processor_account_id: account,
      processor_reference: null,
    };
    return this.#apply(token, threeDs, next, true, correlation);
  }

  /** Charges no longer need it; answers the token. */
  async disable(token: TransactionToken, correlation: Correlation): Promise<TransactionToken> {
    checkChangeable(token);
    const threeDs = storedTokenThreeDs(token.data);
    if (!threeDs?.enabled) return token;
    return this.#apply(token, threeDs, { ...threeDs, enabled: false }, false, correlation);
  }

  async #apply(
    token: TransactionToken,
    read: StoredTokenThreeDs | null,
    next: StoredTokenThreeDs,
    requested: boolean,
    correlation: Correlation,
  ): Promise<TransactionToken> {
    // Not applied when charge-service or another request moved it meanwhile: either way the answer
    // is the token as it now is.
    await this.threeDs.update(token.id, threeDsRead(read), next, {
      requested,
      correlationId: correlation.correlationId,
    });
    return (await this.tokens.findInStore(token.merchantId, token.storeId, token.id)) ?? token;
  }
}

/** An active card token's; otherwise ONLY_FOR_CARD_PAYMENT, or CANNOT_UPDATE_TRANSACTION_TOKEN. */
function checkChangeable(token: TransactionToken): void {
  if (token.paymentType !== 'card') throw ValidationError.field('three_ds', 'ONLY_FOR_CARD_PAYMENT');
  if (!token.active) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
}
