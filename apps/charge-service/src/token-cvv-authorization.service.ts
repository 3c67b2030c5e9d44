import { Inject, Injectable } from '@nestjs/common';
import {
  cvvAuthorizeRead,
  TokenCvvAuthorizeRepository,
  type StoredTokenCvvAuthorize,
  type TokenToCvvAuthorize,
} from '@kessai/db';
import {
  CVV_AUTHORIZE_AMOUNT,
  CVV_AUTHORIZE_DEFAULT_CURRENCY,
  tokenCvvAuthorizeReference,
} from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import {
  type AuthorizeRequest,
  paymentError,
  type PaymentErrorDetails,
  type PaymentProcessor,
  PaymentProcessors,
  type ProcessorPayment,
} from '@kessai/processor';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import { TokenCheck } from './token-check';

type Outcome =
  | { status: 'current'; processorReference: string }
  | { status: 'failed'; processorReference: string | null; error: PaymentErrorDetails };

/**
 * authorize_token_cvv: a card token's CVV authorization (docs/transaction-tokens.md, "CVV
 * authorization"). Pending: an authorization of the smallest amount in the token's currency,
 * capture false, with the pending CVV (read, not claimed: it stays for the token's first charge),
 * keyed by the attempt's reference (token id + attempt), at the processor account the attempt was
 * routed to (the store's card route in its currency, else the mode's default: decision 0079), where
 * its void goes too; an approval is voided and the token
 * `current`, a decline (the CVV does not match, the card is refused) `failed`. No 3-D Secure: a
 * card whose issuer insists on it fails, as it would a charge without it. Every change is
 * conditional on the status and attempt read, so a job run twice writes once; the processor
 * executes each reference (and each void key) once. Anything but `pending` is left as it is.
 */
@Injectable()
export class TokenCvvAuthorizationService {
  readonly #check: TokenCheck;

  constructor(
    private readonly tokens: TokenCvvAuthorizeRepository,
    private readonly processors: PaymentProcessors,
    vault: CardVault,
    private readonly cvvs: PendingCvvStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.#check = new TokenCheck(processors, vault, logger, {
      operation: 'token CVV authorization',
      hold: 'CVV authorization',
    });
  }

  async authorizeTokenCvv(tokenId: string, causeEventId: string | null = null): Promise<void> {
    const token = await this.tokens.findToAuthorize(tokenId);
    const cvvAuthorize = token?.cvvAuthorize;
    if (!token || !cvvAuthorize?.enabled || cvvAuthorize.status !== 'pending') return;
    const outcome = await this.#authorize(token, cvvAuthorize);
    const recorded = await this.tokens.update(
      token.id,
      cvvAuthorizeRead(cvvAuthorize),
      nextCvvAuthorize(cvvAuthorize, outcome),
      { requested: false, causeEventId },
    );
    this.logger.info({ tokenId, status: outcome.status, recorded }, 'token CVV authorization moved');
  }

  async #authorize(token: TokenToCvvAuthorize, cvvAuthorize: StoredTokenCvvAuthorize): Promise<Outcome> {
    const processor = await this.processors.forTokenCheck(token.mode, cvvAuthorize.processor_account_id);
    if (!processor) return failed('PROCESSING_ERROR', 'no processor is configured for this mode');
    if (!token.vault || !token.card) return failed('PROCESSING_ERROR', 'the card is missing from the vault');
    const cvv = await this.cvvs.read(token.id);
    // the CVV waited in Redis for CVV_TTL_SECONDS and is gone: nothing to authorize it with
    if (cvv === null) return failed('CARD_CVV_INVALID', 'the CVV is no longer held; send it again');
    const card = this.#check.card({ id: token.id, card: token.card, vault: token.vault }, cvv);
    if (!card) return failed('PROCESSING_ERROR', 'the card could not be read from the vault');
    const reference = tokenCvvAuthorizeReference(token.id, cvvAuthorize.attempt ?? 1);
    const request: AuthorizeRequest = {
      reference,
      amount: CVV_AUTHORIZE_AMOUNT,
      currency: cvvAuthorize.currency ?? CVV_AUTHORIZE_DEFAULT_CURRENCY,
      capture: false,
      paymentMethod: { type: 'card', card },
      threeDs: { mode: 'skip' },
    };
    const checked = await this.#check.authorize(
      processor,
      request,
      { tokenId: token.id, operation: 'token CVV authorization' },
      `token ${token.id}: the processor has not authorized its CVV yet`,
    );
    if (checked.kind === 'refused') return failed('PROCESSING_ERROR', 'the processor refused the request');
    if (checked.kind === 'found') return this.#ofPayment(processor, reference, checked.payment);
    const answer = checked.answer;
    switch (answer.outcome) {
      case 'approved':
        return this.#release(processor, reference, answer.processorReference);
      case 'declined':
        return { status: 'failed', processorReference: answer.processorReference, error: answer.error };
      // not asked for (3-D Secure skipped): nobody would complete it, so it is let go and failed
      case 'three_ds_required':
        await this.#check.release(processor, reference, answer.processorReference);
        return {
          status: 'failed',
          processorReference: answer.processorReference,
          error: paymentError('THREE_DS_COULD_NOT_BE_COMPLETED', 'the issuer requires 3-D Secure'),
        };
    }
  }

  async #ofPayment(
    processor: PaymentProcessor,
    reference: string,
    payment: ProcessorPayment,
  ): Promise<Outcome> {
    const processorReference = payment.processorReference;
    switch (payment.status) {
      // only this service voids a CVV authorization (after it was approved): voided is approved too
      case 'authorized':
      case 'captured':
      case 'voided':
        return this.#release(processor, reference, processorReference);
      case 'pending_authentication':
      case 'awaiting_payment':
        await this.#check.release(processor, reference, processorReference);
        return {
          status: 'failed',
          processorReference,
          error: paymentError('THREE_DS_COULD_NOT_BE_COMPLETED', 'the issuer requires 3-D Secure'),
        };
      case 'declined':
      case 'expired':
        return {
          status: 'failed',
          processorReference,
          error: payment.error ?? paymentError('CARD_REJECTED'),
        };
    }
  }

  /** The CVV is authorized: the hold is voided (keyed by the reference), the token current. */
  async #release(
    processor: PaymentProcessor,
    reference: string,
    processorReference: string,
  ): Promise<Outcome> {
    await this.#check.release(processor, reference, processorReference);
    return { status: 'current', processorReference };
  }
}

function nextCvvAuthorize(cvvAuthorize: StoredTokenCvvAuthorize, outcome: Outcome): StoredTokenCvvAuthorize {
  return {
    ...cvvAuthorize,
    status: outcome.status,
    processor_reference: outcome.processorReference,
    // the account it went to is the operator's to see, not the merchant's API clients' (decision 0079)
    credentials_id: null,
    error: outcome.status === 'failed' ? outcome.error : null,
    date: new Date().toISOString(),
  };
}

function failed(name: 'PROCESSING_ERROR' | 'CARD_CVV_INVALID', detail: string): Outcome {
  return { status: 'failed', processorReference: null, error: paymentError(name, detail) };
}
