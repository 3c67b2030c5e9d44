import { Injectable } from '@nestjs/common';
import {
  storedTokenThreeDs,
  threeDsRead,
  TokenThreeDsRepository,
  TransactionTokensRepository,
  type StoredTokenThreeDs,
  type TransactionToken,
} from '@kessai/db';
import { BusinessRuleError, ValidationError } from '@kessai/domain';
import type { Principal } from '../auth/principal';
import { presentToken } from '@kessai/presenters';
import type { Correlation } from '@kessai/observability';
import { TransactionTokensService } from './transaction-tokens.service';

/**
 * A card token's 3-D Secure over the API (docs/transaction-tokens.md, "3-D Secure"): the issuer page
 * while awaiting, starting authentication again (enableThreeDs), turning it off (disableThreeDs).
 * The authentication itself is charge-service's (authenticate_token).
 */
@Injectable()
export class TokenThreeDsService {
  constructor(
    private readonly tokens: TransactionTokensService,
    private readonly repository: TransactionTokensRepository,
    private readonly threeDs: TokenThreeDsRepository,
  ) {}

  /** GET …/tokens/{id}/three_ds/issuer_token: ThreeDsIssuerToken while awaiting, else 400 INVALID_THREE_DS_STATUS. */
  async issuerToken(principal: Principal, storeId: string, id: string) {
    const token = await this.tokens.findVisible(principal, storeId, id);
    const threeDs = token.paymentType === 'card' ? storedTokenThreeDs(token.data) : null;
    if (!threeDs?.enabled || threeDs.status !== 'awaiting' || !threeDs.issuer_token)
      throw new BusinessRuleError('INVALID_THREE_DS_STATUS');
    const issuer = threeDs.issuer_token;
    return {
      issuer_token: typeof issuer.issuer_token === 'string' ? issuer.issuer_token : null,
      call_method: typeof issuer.call_method === 'string' ? issuer.call_method : null,
      payload: asObject(issuer.payload),
      payment_type: 'card',
      content_type: typeof issuer.content_type === 'string' ? issuer.content_type : null,
    };
  }

  /**
   * POST …/tokens/{id}/three_ds: authentication starts again (a new attempt, pending, with
   * token_three_ds_requested) unless it succeeded already, in which case it is only switched on.
   * Answers the token.
   */
  async enable(principal: Principal, storeId: string, id: string, context: Correlation) {
    const token = await this.#changeable(principal, storeId, id);
    const threeDs = storedTokenThreeDs(token.data);
    if (threeDs?.status === 'successful') {
      if (threeDs.enabled) return presentToken(token);
      return this.#apply(token, threeDs, { ...threeDs, enabled: true }, false, context);
    }
    const next: StoredTokenThreeDs = {
      enabled: true,
      status: 'pending',
      mode: threeDs && threeDs.mode !== 'skip' ? threeDs.mode : 'normal',
      redirect_endpoint: threeDs?.redirect_endpoint ?? null,
      redirect_id: threeDs?.redirect_id ?? null,
      attempt: (threeDs?.attempt ?? 0) + 1,
      error: null,
      issuer_token: null,
      processor_reference: null,
    };
    return this.#apply(token, threeDs, next, true, context);
  }

  /** DELETE …/tokens/{id}/three_ds: charges no longer need it; answers the token (with a body). */
  async disable(principal: Principal, storeId: string, id: string, context: Correlation) {
    const token = await this.#changeable(principal, storeId, id);
    const threeDs = storedTokenThreeDs(token.data);
    if (!threeDs?.enabled) return presentToken(token);
    return this.#apply(token, threeDs, { ...threeDs, enabled: false }, false, context);
  }

  async #changeable(principal: Principal, storeId: string, id: string): Promise<TransactionToken> {
    const token = await this.tokens.findVisible(principal, storeId, id);
    if (token.paymentType !== 'card') throw ValidationError.field('three_ds', 'ONLY_FOR_CARD_PAYMENT');
    if (!token.active) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    return token;
  }

  async #apply(
    token: TransactionToken,
    read: StoredTokenThreeDs | null,
    next: StoredTokenThreeDs,
    requested: boolean,
    context: Correlation,
  ) {
    // Not applied when charge-service or another request moved it meanwhile: either way the answer
    // is the token as it now is.
    await this.threeDs.update(token.id, threeDsRead(read), next, {
      requested,
      correlationId: context.correlationId,
    });
    const current = await this.repository.findInStore(token.merchantId, token.storeId, token.id);
    return presentToken(current ?? token);
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
