import { Inject, Injectable } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CheckoutPaymentMailsRepository, StoresRepository, type DuePaymentMail } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { paymentInstructionsMail, type DeferredInstructionsPayload } from '@kessai/presenters';
import { PeriodicService } from '@kessai/runtime';
import { effectiveConfiguration } from '@kessai/store-configuration';

const BATCH = 50;
/** How long a claimed mail is held by the process sending it: longer than one SMTP exchange. */
const CLAIM_SECONDS = 120;
/** Sends of one mail before it is given up (`failed`), a little further apart each time. */
const MAX_ATTEMPTS = 12;
const MAX_RETRY_SECONDS = 3_600;
/** A mail whose charge does not exist this long after it was recorded will never have one. */
const ORPHAN_SECONDS = 600;

/** The Message-ID of a charge's instructions mail: one per charge, so a repeated send is the same message. */
export function paymentMailMessageId(chargeId: string): string {
  return `<payment-instructions.${chargeId}@kessai>`;
}

/**
 * Sends the link page's payment instructions mails (docs/hosted-checkout.md, "Bank transfer and
 * konbini"; decision 0034): every PAYMENT_MAIL_INTERVAL_MS, claims the recorded mails whose charge
 * charge-service has processed, and mails each awaiting charge's instructions — the virtual account
 * or the konbini payment code, the amount and the deadline in the store's time zone — to its token's
 * email through SMTP_URL, then marks it sent. A mail whose charge ended first, or whose token has no
 * email, is skipped. Any number of replicas: a mail is claimed by one (SKIP LOCKED, held for
 * CLAIM_SECONDS); a process killed while sending leaves it to be taken again after the hold, so a
 * mail is never lost, and is sent twice only when the process dies between the SMTP server's answer
 * and the row's update (the same Message-ID both times). Without SMTP_URL it does not run.
 */
@Injectable()
export class PaymentInstructionsMailer extends PeriodicService {
  readonly #transport: Transporter | null;
  readonly #from: string;

  constructor(
    private readonly mails: CheckoutPaymentMailsRepository,
    private readonly stores: StoresRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({
      name: 'payment instructions mail',
      intervalMs: config.PAYMENT_MAIL_INTERVAL_MS,
      logger,
      enabled: config.SMTP_URL !== undefined,
    });
    this.#from = config.MAIL_FROM;
    this.#transport = config.SMTP_URL ? createTransport(config.SMTP_URL) : null;
  }

  protected async tick(): Promise<void> {
    await this.sendDue();
  }

  /** One pass; resolves to how many mails it sent. */
  async sendDue(): Promise<number> {
    if (!this.#transport) return 0;
    let sent = 0;
    await this.mails.skipOrphans(ORPHAN_SECONDS);
    for (const mail of await this.mails.claimDue(BATCH, CLAIM_SECONDS)) {
      if (await this.#handle(mail, this.#transport)) sent++;
    }
    return sent;
  }

  async #handle(mail: DuePaymentMail, transport: Transporter): Promise<boolean> {
    const payload = mail.issuerToken?.payload as DeferredInstructionsPayload | undefined;
    const deferred = mail.paymentType === 'bank_transfer' || mail.paymentType === 'konbini';
    // nothing to tell: the charge ended before its instructions were read, or there is nobody to tell
    if (mail.chargeStatus !== 'awaiting' || !deferred || !payload || !mail.email) {
      await this.mails.finish(mail.chargeId, 'skipped');
      return false;
    }
    try {
      const store = await this.stores.findVisibleWithMerchant(
        { merchantId: mail.merchantId, storeId: mail.storeId },
        mail.storeId,
      );
      if (!store) {
        await this.mails.finish(mail.chargeId, 'skipped');
        return false;
      }
      const configuration = effectiveConfiguration(store.merchant.configuration, store.configuration);
      const lang = mail.lang === 'ja' ? 'ja' : 'en';
      const { subject, text } = paymentInstructionsMail(
        {
          paymentType: mail.paymentType as 'bank_transfer' | 'konbini',
          payload,
          amount: mail.amount,
          currency: mail.currency,
          deadline: mail.deadline,
          timeZone: configuration.display_time_zone,
          storeName: store.name,
        },
        lang,
      );
      await transport.sendMail({
        from: this.#from,
        to: mail.email,
        subject,
        text,
        messageId: paymentMailMessageId(mail.chargeId),
        headers: { 'X-Kessai-Charge-Id': mail.chargeId },
      });
      await this.mails.finish(mail.chargeId, 'sent');
      this.logger.info({ chargeId: mail.chargeId }, 'payment instructions mailed');
      return true;
    } catch (error) {
      // the SMTP server's answer may name the address: it is no log's business
      const reason = (error instanceof Error ? error.message : String(error)).replace(
        /[^\s<>@"]+@[^\s<>@"]+/g,
        '<address>',
      );
      if (mail.attempts >= MAX_ATTEMPTS) {
        await this.mails.finish(mail.chargeId, 'failed').catch(() => false);
        this.logger.error({ chargeId: mail.chargeId, reason }, 'payment instructions mail given up');
        return false;
      }
      const retrySeconds = Math.min(MAX_RETRY_SECONDS, 5 * 2 ** mail.attempts);
      await this.mails.postpone(mail.chargeId, retrySeconds, reason).catch(() => undefined);
      this.logger.warn(
        { chargeId: mail.chargeId, reason, retrySeconds },
        'payment instructions mail not sent',
      );
      return false;
    }
  }

  /** Lets the pass in progress finish, then closes the SMTP connections. */
  override async onModuleDestroy(): Promise<void> {
    await super.onModuleDestroy();
    this.#transport?.close();
  }
}
