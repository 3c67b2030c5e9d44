import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import {
  threeDsRead,
  TokenThreeDsRepository,
  type StoredTokenThreeDs,
  type TokenThreeDsRead,
  type TokenToAuthenticate,
} from '@kessai/db';
import {
  TOKEN_THREE_DS_AMOUNT,
  TOKEN_THREE_DS_CURRENCY,
  tokenThreeDsReference,
  type TokenThreeDsStatus,
} from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import {
  type AuthorizeRequest,
  paymentError,
  type PaymentErrorDetails,
  type PaymentProcessor,
  PaymentProcessors,
  type ProcessorPayment,
  type ThreeDsMode,
} from '@kessai/processor';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import { RetryLaterError } from './retry-later';
import { TokenCheck } from './token-check';

type Outcome =
  | {
      status: 'awaiting';
      processorReference: string;
      issuerToken: Record<string, unknown>;
      /** when it is voided and failed if the cardholder has not completed it */
      expiresOn: Date;
    }
  | { status: 'successful'; processorReference: string }
  | { status: 'failed' | 'error'; processorReference: string | null; error: PaymentErrorDetails };

/**
 * authenticate_token: a card token's 3-D Secure, once, at tokenization (docs/transaction-tokens.md,
 * "3-D Secure"). Pending: an authorization of the smallest amount, capture false, under the token's
 * 3-D Secure mode, keyed by the attempt's reference (token id + attempt), at the processor account
 * the attempt was routed to (its store's card route in yen, else the mode's default: decision 0079)
 * for every call of the attempt; a challenge leaves the
 * token awaiting with the issuer page, an approval is voided and the token successful, a decline
 * fails it. Awaiting: the processor is asked how the authentication ended (after its signed notice)
 * and the hold voided; one nobody completed within CHARGE_AWAITING_EXPIRY_SECONDS (the sweeper's job)
 * is voided and failed, as an awaiting charge is. A disabled token's authentication is not started,
 * but one already awaiting is still settled (its hold released, or expired). Every change is
 * conditional on the status, attempt and expiry marker read, so a job run twice writes once; the
 * processor executes each reference (and each void key) once.
 */
@Injectable()
export class TokenAuthenticationService {
  readonly #expirySeconds: number;
  readonly #check: TokenCheck;

  constructor(
    private readonly tokens: TokenThreeDsRepository,
    private readonly processors: PaymentProcessors,
    vault: CardVault,
    private readonly cvvs: PendingCvvStore,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#expirySeconds = config.CHARGE_AWAITING_EXPIRY_SECONDS;
    this.#check = new TokenCheck(processors, vault, logger, {
      operation: 'token 3-D Secure',
      hold: 'authentication',
    });
  }

  async authenticateToken(tokenId: string, causeEventId: string | null = null): Promise<void> {
    const token = await this.tokens.findToAuthenticate(tokenId, this.#expirySeconds);
    const threeDs = token?.threeDs;
    if (!token || !threeDs) return;
    // disabled: nothing is started; an authentication already awaiting is still settled, and a
    // failed one's late hold still released
    if (!threeDs.enabled && threeDs.status !== 'awaiting' && threeDs.status !== 'failed') return;
    // what the processor did is recorded whatever the merchant switched meanwhile (`enabled` is
    // kept as stored, not compared): a disable during the call must not leave its hold unrecorded
    const read: TokenThreeDsRead = { ...threeDsRead(threeDs), enabled: null };
    let outcome: Outcome | null;
    switch (threeDs.status) {
      case 'pending':
        outcome = await this.#start(token, threeDs);
        break;
      case 'awaiting':
        outcome = await this.#lookUp(token, threeDs, read, causeEventId);
        break;
      // final: nothing left to do (a repeated job, a notice after the outcome) — but a hold the
      // cardholder completed after the token failed (its expiry's void refused) is released
      case 'failed':
        if (threeDs.processor_reference) await this.#releaseLate(token, threeDs);
        return;
      case 'successful':
      case 'error':
        return;
    }
    if (!outcome) return;
    const recorded = await this.tokens.update(token.id, read, nextThreeDs(threeDs, outcome), {
      requested: false,
      causeEventId,
    });
    this.logger.info({ tokenId, status: outcome.status, recorded }, 'token 3-D Secure moved');
  }

  async #start(token: TokenToAuthenticate, threeDs: StoredTokenThreeDs): Promise<Outcome | null> {
    const processor = await this.processors.forTokenCheck(token.mode, threeDs.processor_account_id);
    if (!processor) return errored('no live processor is configured');
    if (!token.vault || !token.card) return errored('the card is missing from the vault');
    const reference = tokenThreeDsReference(token.id, threeDs.attempt);
    // read, not claimed: the CVV stays for the token's first charge
    const card = this.#check.card(
      { id: token.id, card: token.card, vault: token.vault },
      await this.cvvs.read(token.id),
    );
    if (!card) return errored('the card could not be read from the vault');
    const request: AuthorizeRequest = {
      reference,
      amount: TOKEN_THREE_DS_AMOUNT,
      currency: TOKEN_THREE_DS_CURRENCY,
      capture: false,
      paymentMethod: { type: 'card', card },
      threeDs: {
        mode: threeDs.mode as ThreeDsMode,
        redirectEndpoint: threeDs.redirect_endpoint ?? undefined,
        callbackUrl: this.processors.callbackUrl,
      },
    };
    const checked = await this.#check.authorize(
      processor,
      request,
      { tokenId: token.id, operation: 'token 3-D Secure' },
      `token ${token.id}: the processor has not authenticated it yet`,
    );
    if (checked.kind === 'refused') return errored('the processor refused the request');
    if (checked.kind === 'found') {
      // waiting for the cardholder: a retried request answers with the challenge again
      if (checked.payment.status === 'pending_authentication')
        throw new RetryLaterError(`token ${token.id}: retrying for the issuer page`);
      return this.#ofPayment(processor, reference, checked.payment);
    }
    const answer = checked.answer;
    switch (answer.outcome) {
      case 'three_ds_required':
        return {
          status: 'awaiting',
          expiresOn: new Date(Date.now() + this.#expirySeconds * 1000),
          processorReference: answer.processorReference,
          issuerToken: {
            issuer_token: answer.threeDs.issuerToken,
            call_method: answer.threeDs.callMethod,
            payload: answer.threeDs.payload,
            payment_type: 'card',
            content_type: answer.threeDs.contentType,
          },
        };
      case 'approved':
        return this.#release(processor, reference, answer.processorReference);
      case 'declined':
        return { status: 'failed', processorReference: answer.processorReference, error: answer.error };
    }
  }

  /**
   * Awaiting: what the processor's record says; while the cardholder has not acted, nothing — unless
   * the authentication is past its deadline (Postgres' clock, as the sweeper's), when the hold is
   * voided and the token failed (358 THREE_DS_COULD_NOT_BE_COMPLETED). The decision is written
   * before the void (`expiring`, conditional like every change, so that a notice's job which read
   * the token before it records nothing after it): from then on a voided payment reads as expired,
   * also for a run after a crash between the void and the record. A void refused (the cardholder
   * completed, and the processor keeps completed authentications) leaves the processor's record to
   * decide; refused otherwise, the token fails all the same (warned). `read` becomes what the final
   * record is conditional on.
   */
  async #lookUp(
    token: TokenToAuthenticate,
    threeDs: StoredTokenThreeDs,
    read: TokenThreeDsRead,
    causeEventId: string | null,
  ): Promise<Outcome | null> {
    const expired: Outcome = { status: 'failed', processorReference: null, error: expiryError() };
    const processor = await this.processors.forTokenCheck(token.mode, threeDs.processor_account_id);
    // no processor for its mode any more: nothing can be asked or voided, and nothing to wait for
    if (!processor) return token.threeDsExpired ? expired : null;
    const reference = tokenThreeDsReference(token.id, threeDs.attempt);
    const context = { tokenId: token.id, operation: 'token 3-D Secure lookup' };
    const found = await this.processors.retrying(() => processor.status(reference), this.logger, context);
    // unknown to the processor: nothing is held, and the cardholder has no page to finish
    if (!found.found) return token.threeDsExpired ? expired : null;
    const outcome = await this.#ofPayment(processor, reference, found.payment, read.expiring);
    if (outcome || !token.threeDsExpired) return outcome;
    if (!read.expiring) {
      const marked = await this.tokens.update(
        token.id,
        read,
        // the deadline is stored with the decision: the one it had, or (awaiting since before
        // deadlines were stored) now, the moment it was found expired
        { ...threeDs, expiring: true, expires_on: threeDs.expires_on ?? new Date().toISOString() },
        { requested: false, causeEventId },
      );
      // moved meanwhile (completed, enabled again): not this run's to expire
      if (!marked) return null;
      read.expiring = true;
    }
    const voided = await this.processors.retrying(
      () =>
        processor.void({
          processorReference: found.payment.processorReference,
          idempotencyKey: `${reference}.expiry`,
        }),
      this.logger,
      { ...context, operation: 'token 3-D Secure expiry void' },
    );
    if (voided.outcome === 'voided')
      return { ...expired, processorReference: found.payment.processorReference };
    const again = await this.processors.retrying(() => processor.status(reference), this.logger, context);
    const decided = again.found ? await this.#ofPayment(processor, reference, again.payment, true) : null;
    if (decided) return decided;
    // refused, and still not completed: the token fails all the same (nothing can be charged on an
    // authentication nobody finished), rather than wait for a void that does not come
    this.logger.warn(
      { tokenId: token.id, code: voided.error.code },
      'an expired token 3-D Secure could not be voided',
    );
    return { ...expired, processorReference: found.payment.processorReference };
  }

  /**
   * What the processor's record of the authentication means; null while the cardholder has not
   * acted. `expiring`: this service asked for the expiry's void, so a voided payment is expired.
   */
  async #ofPayment(
    processor: PaymentProcessor,
    reference: string,
    payment: ProcessorPayment,
    expiring = false,
  ): Promise<Outcome | null> {
    const processorReference = payment.processorReference;
    switch (payment.status) {
      case 'pending_authentication':
      case 'awaiting_payment':
        return null;
      case 'authorized':
      case 'captured':
        return this.#release(processor, reference, processorReference);
      // only this service voids a token's authentication: after it succeeded, or when it expired
      case 'voided':
        return expiring
          ? { status: 'failed', processorReference, error: expiryError() }
          : { status: 'successful', processorReference };
      case 'declined':
      case 'expired':
        return {
          status: 'failed',
          processorReference,
          error: payment.error ?? paymentError('THREE_DS_COULD_NOT_BE_COMPLETED'),
        };
    }
  }

  /**
   * A failed token whose authentication the processor holds authorized after all (the cardholder
   * finished after the expiry's void was refused): the hold is voided, keyed as a release; the token
   * stays failed (the merchant was told so).
   */
  async #releaseLate(token: TokenToAuthenticate, threeDs: StoredTokenThreeDs): Promise<void> {
    const processor = await this.processors.forTokenCheck(token.mode, threeDs.processor_account_id);
    if (!processor) return;
    const reference = tokenThreeDsReference(token.id, threeDs.attempt);
    const context = { tokenId: token.id, operation: 'token 3-D Secure late lookup' };
    const found = await this.processors.retrying(() => processor.status(reference), this.logger, context);
    if (!found.found || (found.payment.status !== 'authorized' && found.payment.status !== 'captured'))
      return;
    this.logger.warn(
      { tokenId: token.id },
      'a failed token 3-D Secure was completed late: its hold is voided',
    );
    await this.#release(processor, reference, found.payment.processorReference);
  }

  /** The card is authenticated: the hold is voided (keyed by the reference), the token successful. */
  async #release(
    processor: PaymentProcessor,
    reference: string,
    processorReference: string,
  ): Promise<Outcome> {
    await this.#check.release(processor, reference, processorReference);
    return { status: 'successful', processorReference };
  }
}

function nextThreeDs(threeDs: StoredTokenThreeDs, outcome: Outcome): StoredTokenThreeDs {
  const status: TokenThreeDsStatus = outcome.status;
  return {
    ...threeDs,
    status,
    processor_reference: outcome.processorReference,
    issuer_token: outcome.status === 'awaiting' ? outcome.issuerToken : null,
    expires_on: outcome.status === 'awaiting' ? outcome.expiresOn.toISOString() : null,
    expiring: null,
    error: outcome.status === 'failed' || outcome.status === 'error' ? outcome.error : null,
  };
}

/** An authentication the cardholder did not complete in time (as an expired awaiting 3-D Secure charge). */
function expiryError(): PaymentErrorDetails {
  return paymentError(
    'THREE_DS_COULD_NOT_BE_COMPLETED',
    'the cardholder did not complete authentication in time',
  );
}

function errored(detail: string): Outcome {
  return { status: 'error', processorReference: null, error: paymentError('PROCESSING_ERROR', detail) };
}
