import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, ConfigError, type GatewayConfig } from '@kessai/config';
import {
  ChargesRepository,
  DeferredPaymentsRepository,
  PayoutsRepository,
  ProcessorAccountsRepository,
  TokenThreeDsRepository,
} from '@kessai/db';
import {
  AuthenticationError,
  ConflictError,
  isUuid,
  NotFoundError,
  parseTokenThreeDsReference,
} from '@kessai/domain';
import {
  InvalidProcessorCallbackError,
  komojuEventToCallback,
  type ProcessorCallback,
  stripeEventToCallback,
  verifyKomojuWebhook,
  verifyProcessorCallback,
  verifyStripeWebhook,
} from '@kessai/processor';
import { LOGGER, type Logger } from '@kessai/observability';
import { ProcessorCredentialsCipher } from '@kessai/vault';

export type HostedProvider = 'komoju' | 'stripe';

/** A hosted processor's webhooks: its name in log lines, its configured secret, its verified event as a notice. */
const HOSTED_WEBHOOKS: Record<
  HostedProvider,
  {
    name: string;
    secretKey: 'KOMOJU_WEBHOOK_SECRET' | 'STRIPE_WEBHOOK_SECRET';
    notice(delivery: {
      rawBody: Buffer | string;
      signatureHeader: string | string[] | undefined;
      secret: string;
    }): ProcessorCallback | null;
  }
> = {
  komoju: {
    name: 'KOMOJU',
    secretKey: 'KOMOJU_WEBHOOK_SECRET',
    notice: (delivery) => komojuEventToCallback(verifyKomojuWebhook(delivery)),
  },
  stripe: {
    name: 'Stripe',
    secretKey: 'STRIPE_WEBHOOK_SECRET',
    notice: (delivery) => stripeEventToCallback(verifyStripeWebhook(delivery)),
  },
};

/**
 * Signed notices from the payment processor (docs/processor-simulator.md, "Callbacks"): an online
 * or QR payment was paid or expired, a 3-D Secure authentication ended (a charge's, or a card
 * token's: token_three_ds_notice_received). The notice is only a nudge:
 * it is recorded as a processor_notice_received command and charge-service asks the processor
 * itself (`status`) before moving the charge, so a repeated, late or forged-but-valid notice cannot
 * change an outcome on its own. A deposit notice for no charge of ours is the exception: its money
 * is recorded as unassigned (the processor's word is all there is of it).
 */
@Injectable()
export class ProcessorCallbacksService {
  readonly #credentials: ProcessorCredentialsCipher;

  constructor(
    private readonly charges: ChargesRepository,
    private readonly tokenThreeDs: TokenThreeDsRepository,
    private readonly deferredPayments: DeferredPaymentsRepository,
    private readonly payouts: PayoutsRepository,
    private readonly processorAccounts: ProcessorAccountsRepository,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.#credentials = new ProcessorCredentialsCipher(config.VAULT_KEYS);
    // live charges on KOMOJU answer through its webhooks: a gateway that could not verify them stops at start
    if (config.PROCESSOR_LIVE === 'komoju' && !config.KOMOJU_WEBHOOK_SECRET)
      throw new ConfigError(['KOMOJU_WEBHOOK_SECRET is required when PROCESSOR_LIVE=komoju']);
    if (config.PROCESSOR_LIVE === 'stripe' && !config.STRIPE_WEBHOOK_SECRET)
      throw new ConfigError(['STRIPE_WEBHOOK_SECRET is required when PROCESSOR_LIVE=stripe']);
  }

  async receive(
    rawBody: Buffer | string | undefined,
    signatureHeader: string | string[] | undefined,
    correlationId: string,
  ): Promise<void> {
    const notice = this.#verified('processor callback refused', () =>
      verifyProcessorCallback({
        rawBody: rawBody ?? '',
        signatureHeader,
        secret: this.config.PROCESSOR_CALLBACK_SECRET,
      }),
    );
    await this.#record(notice, correlationId);
  }

  /**
   * A hosted processor's webhook delivery: verified with the provider's configured secret, or with
   * the one of the processor account its path names (`accountId`), then recorded (#recordHosted) as
   * the simulator's notices are; an event the charge path has no use for (no notice, a card's) is
   * acknowledged and changes nothing. KOMOJU's (docs/connectors.md, "Webhooks"): its
   * X-Komoju-Signature over the raw body with KOMOJU_WEBHOOK_SECRET. Stripe's (docs/connectors.md,
   * "Stripe"): its Stripe-Signature by stripe-node's own check over the raw body with
   * STRIPE_WEBHOOK_SECRET (a timestamp older than five minutes refused).
   */
  async receiveHosted(
    provider: HostedProvider,
    delivery: { rawBody: Buffer | string | undefined; signatureHeader: string | string[] | undefined },
    correlationId: string,
    accountId: string | undefined,
  ): Promise<void> {
    const hosted = HOSTED_WEBHOOKS[provider];
    const secret =
      accountId === undefined
        ? this.config[hosted.secretKey]
        : await this.#accountWebhookSecret(provider, accountId);
    const notice = this.#verified(`${hosted.name} webhook refused`, () => {
      if (!secret) throw new InvalidProcessorCallbackError(`no ${hosted.name} webhook secret is configured`);
      return hosted.notice({
        rawBody: delivery.rawBody ?? '',
        signatureHeader: delivery.signatureHeader,
        secret,
      });
    });
    if (notice) await this.#recordHosted(notice, correlationId);
  }

  /**
   * The webhook secret of the processor account a webhook path names (decision 0055), decrypted for
   * this check only; undefined when the path names no account of that provider, which is refused
   * as a bad signature is. A disabled account's deliveries are still verified: the payments it took
   * still send them.
   */
  async #accountWebhookSecret(provider: HostedProvider, accountId: string): Promise<string | undefined> {
    const account = isUuid(accountId) ? await this.processorAccounts.find(accountId.toLowerCase()) : null;
    if (!account || account.provider !== provider) return undefined;
    return this.#credentials.open(account, account.id).webhookSecret ?? undefined;
  }

  /**
   * A notice's verification: a refused signature (or a missing secret) is logged with the check that
   * failed, never the body or the signature, and answered as bad credentials (401).
   */
  #verified<T>(refusal: string, verify: () => T): T {
    try {
      return verify();
    } catch (error) {
      if (!(error instanceof InvalidProcessorCallbackError)) throw error;
      this.logger.warn({ err: error }, refusal);
      throw new AuthenticationError('INVALID_CREDENTIALS');
    }
  }

  /**
   * The customer's browser back from 3-D Secure at a hosted processor (GET
   * /processor/three_ds/return/:chargeId): a nudge for the charge while it awaits, never proof of
   * anything (charge-service asks the processor), then the merchant's `three_ds.redirect_endpoint`
   * to send the browser on to, or null when the charge names none. A charge that is not ours: 404.
   */
  async receiveThreeDsReturn(
    chargeId: string,
    correlationId: string,
  ): Promise<{ redirectTo: string | null }> {
    const [charge] = isUuid(chargeId) ? await this.charges.findMany([chargeId]) : [];
    if (!charge) throw new NotFoundError('charge');
    if (charge.status === 'awaiting' && charge.threeDsIssuerToken !== null) {
      await this.charges.recordProcessorNotice(
        charge.id,
        { noticeId: `return-${randomUUID()}`, event: 'three_ds', status: 'returned' },
        correlationId,
        { awaitingOnly: true },
      );
    }
    const threeDs = charge.threeDs as { redirect_endpoint?: unknown } | null;
    const endpoint = threeDs?.redirect_endpoint;
    return { redirectTo: typeof endpoint === 'string' && endpoint !== '' ? endpoint : null };
  }

  /**
   * A hosted processor's (KOMOJU's, Stripe's) notice: a card's `three_ds` notice nudges only a charge
   * awaiting its authentication, every other card's outcome being the answer of the call, and is
   * acknowledged either way (the processor sends one for every card payment); the others as the
   * simulator's.
   */
  async #recordHosted(notice: ProcessorCallback, correlationId: string): Promise<void> {
    if (notice.event !== 'three_ds') return this.#record(notice, correlationId);
    if (!isUuid(notice.reference)) return;
    await this.charges.recordProcessorNotice(
      notice.reference,
      { noticeId: notice.notificationId, event: notice.event, status: notice.status },
      correlationId,
      { awaitingOnly: true },
    );
  }

  async #record(notice: ProcessorCallback, correlationId: string): Promise<void> {
    if (notice.event === 'payout') return this.#settlePayout(notice);
    // a card token's 3-D Secure authentication: its reference names the token and the attempt
    const token = parseTokenThreeDsReference(notice.reference);
    if (token) {
      const recorded = await this.tokenThreeDs.recordNotice(
        token.tokenId,
        { noticeId: notice.notificationId, status: notice.status },
        correlationId,
      );
      if (!recorded) throw new NotFoundError('transaction_token');
      return;
    }
    // our reference is the charge id; anything else is not ours (a 404 the processor may retry, harmlessly)
    const recorded =
      isUuid(notice.reference) &&
      (await this.charges.recordProcessorNotice(
        notice.reference,
        { noticeId: notice.notificationId, event: notice.event, status: notice.status },
        correlationId,
      ));
    if (recorded) return;
    // Money for a payment that is no charge of ours (a transfer into an account, a payment of a
    // code, that Kessai did not give out): kept for the operator (admin CLI deposits:stray) rather
    // than refused, since the processor holds the money either way (docs/bank-transfer-and-konbini.md)
    if (notice.event === 'deferred_payment') {
      const isNew = await this.deferredPayments.recordUnassigned({
        processorDepositId: notice.depositId,
        processorReference: notice.processorReference,
        reference: notice.reference,
        amount: BigInt(notice.amount),
        currency: notice.currency,
        receivedOn: notice.occurredOn,
      });
      if (isNew) this.logger.warn({ depositId: notice.depositId }, 'money for no charge recorded');
      return;
    }
    throw new NotFoundError('charge');
  }

  /**
   * The bank paid or failed a transfer (docs/ledger.md, "Paying a transfer"): the signed notice is
   * the bank's word, applied at once with its posting (paid: out of transit; failed: the money back
   * to the stores' available balances). The same notice again is a repeat. A transfer the sender
   * has not marked processing yet (it crashed after the bank took the payout) is 409: the bank
   * retries its notice, and the sender's next run marks it.
   */
  async #settlePayout(notice: Extract<ProcessorCallback, { event: 'payout' }>): Promise<void> {
    if (!isUuid(notice.reference)) throw new NotFoundError('transfer');
    const result = await this.payouts.changeStatus(notice.reference.toLowerCase(), {
      to: notice.status,
      reason: notice.status === 'paid' ? 'paid by the bank' : 'the bank could not pay it',
      errorCode: notice.errorCode,
      errorText: notice.errorCode === null ? null : `the bank refused the payout: ${notice.errorCode}`,
      by: 'bank',
    });
    if (result.outcome === 'not_found') throw new NotFoundError('transfer');
    if (result.outcome === 'refused') {
      this.logger.warn(
        { transferId: notice.reference, status: result.status },
        'payout notice for a transfer not processing',
      );
      throw new ConflictError('CONFLICTED');
    }
    this.logger.info({ transferId: notice.reference, status: notice.status }, 'payout notice');
  }
}
