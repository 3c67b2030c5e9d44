import { Inject, Injectable } from '@nestjs/common';
import { ProcessorAccountsRepository, type TransactionToken } from '@kessai/db';
import { BusinessRuleError } from '@kessai/domain';
import {
  LIVE_PROCESSOR_LIMITS,
  processorLimitsOf,
  takesTokenCheck,
  type LiveProcessorLimits,
  type TokenCheck,
} from '@kessai/payments';

/** The field a token check is asked for by, which its refusal names. */
const FIELD_OF: Record<TokenCheck, string> = { three_ds: 'three_ds', cvv_authorize: 'data.cvv_authorize' };

/**
 * Where a card token's own check at the processor goes (decision 0079): its 3-D Secure (a 1-yen
 * hold) and its CVV authorization (a hold of 1 in its currency) go where the store's card payments
 * in that currency go, the account of the store's card route (decision 0055), else the mode's
 * default (the simulator in test mode, PROCESSOR_LIVE in live mode), and never anywhere else: an
 * attempt records the account it was given (`processor_account_id` in its state, null for the
 * default), and charge-service sends its hold, lookups and void there. A provider that cannot do
 * the check refuses it here, when it is asked for (token creation, enableThreeDs, PATCH
 * cvv_authorize on), with 400 NOT_SUPPORTED_BY_PROCESSOR on the field that asked.
 */
@Injectable()
export class TokenCheckRouting {
  constructor(
    private readonly accounts: ProcessorAccountsRepository,
    @Inject(LIVE_PROCESSOR_LIMITS) private readonly liveLimits: LiveProcessorLimits | null,
  ) {}

  /**
   * The account a new attempt of `check` in `currency` is recorded with (null: the mode's
   * default); 400 NOT_SUPPORTED_BY_PROCESSOR when that account's provider cannot do it.
   */
  async route(
    token: Pick<TransactionToken, 'storeId' | 'mode'>,
    check: TokenCheck,
    currency: string,
  ): Promise<string | null> {
    const account = await this.accounts.findCardRoute(token.storeId, token.mode, currency);
    const limits = account
      ? processorLimitsOf(account.provider)
      : token.mode === 'test'
        ? null
        : this.liveLimits;
    if (!takesTokenCheck(limits, check)) {
      const field = FIELD_OF[check];
      throw new BusinessRuleError('NOT_SUPPORTED_BY_PROCESSOR', [
        { field, reason: 'NOT_SUPPORTED_BY_PROCESSOR' },
      ]);
    }
    return account?.id ?? null;
  }
}
