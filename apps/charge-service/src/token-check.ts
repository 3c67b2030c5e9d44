import { SensitiveCardData } from '@kessai/cards';
import type { TokenToCheck } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import {
  type AuthorizeRequest,
  type AuthorizeResult,
  isRetryableProcessorError,
  type PaymentProcessor,
  type PaymentProcessors,
  type ProcessorPayment,
  ProcessorRequestRejectedError,
} from '@kessai/processor';
import { type CardVault, VaultIntegrityError } from '@kessai/vault';
import { RetryLaterError } from './retry-later';

/** What the processor said to a check's authorization, or, when the call's end is unknown, its record. */
export type CheckAnswer =
  | { kind: 'answered'; answer: AuthorizeResult }
  | { kind: 'found'; payment: ProcessorPayment }
  /** refused for good (a 4xx other than a conflict) and unknown to the processor: nothing is held */
  | { kind: 'refused' };

/**
 * What a card token's checks at the processor share (TokenAuthenticationService's 3-D Secure,
 * TokenCvvAuthorizationService's CVV authorization; docs/transaction-tokens.md): the token's card
 * from the vault, an authorization of the smallest amount (capture false) under the attempt's
 * reference, whose end, when the call's is unknown, only the processor's record of the reference
 * tells (as for charges), and the void that releases the hold (keyed by the reference). Each
 * service decides what its answers mean for the token.
 */
export class TokenCheck {
  constructor(
    private readonly processors: PaymentProcessors,
    private readonly vault: CardVault,
    private readonly logger: Logger,
    /** the check in log lines: its operation (`token 3-D Secure`) and its hold (`authentication`) */
    private readonly names: { operation: string; hold: string },
  ) {}

  /** The token's card with `cvv`; null when the vault's copy could not be read (it does not verify). */
  card(
    token: Pick<TokenToCheck, 'id'> & { [K in 'card' | 'vault']: NonNullable<TokenToCheck[K]> },
    cvv: string | null,
  ): SensitiveCardData | null {
    try {
      return new SensitiveCardData({
        cardNumber: this.vault.decrypt(token.vault, { transactionTokenId: token.id }),
        cvv,
        expMonth: token.card.exp_month,
        expYear: token.card.exp_year,
        cardholder: token.card.cardholder,
      });
    } catch (error) {
      if (error instanceof VaultIntegrityError) return null;
      throw error;
    }
  }

  /**
   * Asks `processor` to authorize `request` (retrying transient failures). A call that failed
   * without a verdict (retryable, or refused) is looked up by its reference: found, the record
   * answers; not found, a refusal for good is `refused`, anything else a RetryLaterError
   * (`notYet`) so that the job runs again under the same reference, never a new one.
   */
  async authorize(
    processor: PaymentProcessor,
    request: AuthorizeRequest,
    context: Record<string, unknown>,
    notYet: string,
  ): Promise<CheckAnswer> {
    try {
      const answer = await this.processors.retrying(() => processor.authorize(request), this.logger, context);
      return { kind: 'answered', answer };
    } catch (error) {
      const rejected = error instanceof ProcessorRequestRejectedError;
      if (!rejected && !isRetryableProcessorError(error)) throw error;
      const found = await this.processors.retrying(
        () => processor.status(request.reference),
        this.logger,
        context,
      );
      if (found.found) return { kind: 'found', payment: found.payment };
      if (rejected && error.httpStatus !== 409 && error.httpStatus !== 423) return { kind: 'refused' };
      throw new RetryLaterError(notYet);
    }
  }

  /** Voids the hold of the attempt `reference` (keyed `<reference>.void`); a refusal is warned, not thrown. */
  async release(processor: PaymentProcessor, reference: string, processorReference: string): Promise<void> {
    const voided = await this.processors.retrying(
      () => processor.void({ processorReference, idempotencyKey: `${reference}.void` }),
      this.logger,
      { reference, operation: `${this.names.operation} void` },
    );
    if (voided.outcome === 'rejected')
      this.logger.warn({ reference, code: voided.error.code }, `the ${this.names.hold} hold was not voided`);
  }
}
