import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type GatewayConfig } from '@kessai/config';
import { checkoutLinkSecret } from '@kessai/auth';
import {
  CheckoutLinksRepository,
  CheckoutPaymentMailsRepository,
  StoresRepository,
  TransactionTokensRepository,
  type CheckoutLink,
} from '@kessai/db';
import { randomUUID } from 'node:crypto';
import { DateTime, Duration } from 'luxon';
import {
  BusinessRuleError,
  DomainError,
  NotFoundError,
  PermissionError,
  ValidationError,
} from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { ChargesService } from '@kessai/payments';
import { SubscriptionsService } from '@kessai/subscriptions';
import {
  paymentInstructions,
  presentCharge,
  presentIssuerToken,
  presentThreeDsIssuerToken,
  type DeferredInstructionsPayload,
  type PaymentInstructions,
} from '@kessai/presenters';
import { effectiveConfiguration } from '@kessai/store-configuration';
import { z } from 'zod';
import { storeScopeOf, subscriptionScopeOf, tokenStoreOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { createChargeSchema } from '../charges/charge.schemas';
import { parseInput } from '../http/validation';
import { createSubscriptionSchema } from '../subscriptions/subscription.schemas';

/** The metadata key that ties a charge or subscription to the link that paid it. */
export const CHECKOUT_LINK_METADATA_KEY = 'checkout_link_id';

export const createPaymentSchema = z
  .object({
    transaction_token_id: z.string().uuid(),
    // the page's language: a bank transfer's or konbini's instructions are mailed in it
    lang: z.enum(['en', 'ja']).optional(),
  })
  .strict();
/** GET …/payments/{kind}/{id}: the language of a bank transfer's or konbini's instructions. */
export const paymentQuerySchema = z.object({ lang: z.enum(['en', 'ja']).optional() }).passthrough();
const DEFERRED_PAYMENT_TYPES: readonly string[] = ['bank_transfer', 'konbini'];
const paymentKinds = z.enum(['charge', 'subscription']);
const uuid = z.string().uuid();
/**
 * A claim under which nothing was created after this long may be taken over: the process that made
 * it died between the claim and the payment's creation.
 */
const STALE_CLAIM_SECONDS = 120;

/** What the hosted page reads of a payment: enough to show pending → result, and where to go next. */
export interface LinkPaymentView {
  kind: 'charge' | 'subscription';
  id: string;
  status: string;
  error: { code: number | null; message: string | null } | null;
  /** an awaiting payment's page (the issuer's 3-D Secure page, the QR operator's payment page) */
  next_action: { type: 'redirect'; url: string; method: string; payload: unknown } | null;
  /**
   * an awaiting bank transfer's or konbini payment's instructions (the virtual account or the
   * payment code, the amount, the deadline in the store's time zone), in the page's language
   */
  instructions: PaymentInstructions | null;
}

/**
 * The payments a checkout link's own credentials may make (docs/hosted-checkout.md): one charge,
 * or one subscription when the link is a subscription link, on a token the link's page just made,
 * with everything else — store, amount, currency, capture, schedule, metadata — from the link's row.
 * The page's browser sends only the token id. Each payment carries the link's id in its metadata
 * (`checkout_link_id`); the link's credentials read back only the payments that carry it.
 */
@Injectable()
export class LinkPaymentsService {
  constructor(
    private readonly links: CheckoutLinksRepository,
    private readonly tokens: TransactionTokensRepository,
    private readonly mails: CheckoutPaymentMailsRepository,
    private readonly stores: StoresRepository,
    private readonly charges: ChargesService,
    private readonly subscriptions: SubscriptionsService,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async create(
    principal: Principal,
    linkId: string,
    body: unknown,
    baseUrl: string,
    context: Correlation,
  ): Promise<LinkPaymentView> {
    const link = await this.linkOf(principal, linkId);
    const request = parseInput(createPaymentSchema, body);
    // a token-only link pays nothing: the merchant's server charges the token
    const form = await this.links.formSettings(link.formId);
    if (link.tokenOnly || form?.checkout === 'token')
      throw new PermissionError('FORBIDDEN', [{ field: null, reason: 'TOKEN_ONLY_LINK' }]);
    const offered = form?.supportedPaymentMethods ?? [];
    const lang = request.lang ?? 'en';
    const metadata = { ...(link.metadata as Record<string, unknown>), [CHECKOUT_LINK_METADATA_KEY]: link.id };
    const secret = checkoutLinkSecret(link.id, this.config.JWT_SIGNING_KEY);
    // where the issuer's or operator's page sends the consumer back: this link's page, resuming
    const back = (kind: string) =>
      `${baseUrl}/checkout/pay/${link.id}?secret=${encodeURIComponent(secret)}&resume=${kind}`;
    const kind = link.tokenType === 'subscription' ? 'subscription' : 'charge';
    const paymentId = randomUUID();
    // one payment per link: claimed before it is created, under the id it will have
    if (!(await this.links.claimPayment(link.id, kind, paymentId, STALE_CLAIM_SECONDS)))
      throw new BusinessRuleError('TRANSACTION_ALREADY_PROCESSED', [
        { field: null, reason: 'LINK_ALREADY_PAID' },
      ]);
    try {
      await this.createClaimed(principal, link, request.transaction_token_id, paymentId, metadata, back, {
        context,
        offered,
        lang,
      });
    } catch (error) {
      // refused before anything was written: the link may be paid again (an unknown outcome keeps
      // the claim, which the charge or subscription, if it exists, then holds)
      if (error instanceof DomainError) await this.links.releasePayment(link.id, paymentId);
      throw error;
    }
    return kind === 'charge'
      ? this.viewCharge(principal, paymentId, lang)
      : this.viewSubscription(principal, paymentId);
  }

  private async createClaimed(
    principal: Principal,
    link: CheckoutLink,
    tokenId: string,
    paymentId: string,
    metadata: Record<string, unknown>,
    back: (kind: string) => string,
    { context, offered, lang }: { context: Correlation; offered: string[]; lang: 'en' | 'ja' },
  ): Promise<void> {
    if (link.tokenType === 'subscription') {
      const actor = tokenStoreOf(principal);
      const request = parseInput(createSubscriptionSchema, {
        transaction_token_id: tokenId,
        amount: Number(link.amount),
        currency: link.currency,
        period: link.subscriptionPeriod ?? undefined,
        cyclical_period: link.subscriptionCyclicalPeriod ?? undefined,
        initial_amount:
          link.subscriptionInitialAmount === null ? undefined : Number(link.subscriptionInitialAmount),
        subscription_plan:
          link.subscriptionCycles === null
            ? undefined
            : { plan_type: 'fixed_cycles', fixed_cycles: link.subscriptionCycles },
        schedule_settings: scheduleSettingsOf(link),
        metadata,
      });
      await this.subscriptions.create(actor, request, context, paymentId);
      return;
    }
    const token = await this.tokens.findInStore(principal.merchantId, link.storeId, tokenId);
    if (!token) throw new NotFoundError('transaction_token');
    const card = token.paymentType === 'card';
    const deferred = DEFERRED_PAYMENT_TYPES.includes(token.paymentType);
    if (deferred) {
      // paid later, outside: only as the link's page offers it, and with somewhere to send the
      // instructions to
      if (!offered.includes(token.paymentType))
        throw new BusinessRuleError('DISABLED_PAYMENT_TYPE', [
          { field: 'transaction_token_id', reason: 'PAYMENT_TYPE_NOT_OFFERED' },
        ]);
      if (!token.email) throw ValidationError.field('email', 'REQUIRED_VALUE');
      // the mail is recorded before the charge, under the charge's id, so that no crash between the
      // two loses it; a charge that is never created leaves a row nothing sends
      if (this.config.SMTP_URL !== undefined) await this.mails.record(paymentId, link.id, lang);
    }
    const actor = tokenStoreOf(principal);
    const request = parseInput(createChargeSchema, {
      transaction_token_id: token.id,
      amount: Number(link.amount),
      currency: link.currency,
      // a card is authenticated when its issuer asks (3-D Secure); an operator pays on its page
      ...(card
        ? {
            capture: link.chargeAuth !== true,
            ...captureAtOf(link),
            three_ds: { redirect_endpoint: back('charge') },
          }
        : {}),
      ...(deferred ? {} : { redirect: { endpoint: back('charge') } }),
      metadata,
    });
    try {
      await this.charges.create(actor, request, context, paymentId);
    } catch (error) {
      if (deferred && error instanceof DomainError) await this.mails.forget(paymentId);
      throw error;
    }
  }

  async get(
    principal: Principal,
    linkId: string,
    kind: string,
    id: string,
    lang: unknown,
  ): Promise<LinkPaymentView> {
    await this.linkOf(principal, linkId);
    const parsedKind = paymentKinds.safeParse(kind);
    if (!parsedKind.success || !uuid.safeParse(id).success) throw new NotFoundError('payment');
    return parsedKind.data === 'charge'
      ? this.viewCharge(principal, id, lang === 'ja' ? 'ja' : 'en')
      : this.viewSubscription(principal, id);
  }

  private async viewCharge(principal: Principal, id: string, lang: 'en' | 'ja'): Promise<LinkPaymentView> {
    const link = principal.checkoutLink;
    const found = await this.charges.find(storeScopeOf(principal, null, 'charge'), id);
    const charge = presentCharge(found);
    if (!link || (charge.metadata as Record<string, unknown>)[CHECKOUT_LINK_METADATA_KEY] !== link.id)
      throw new NotFoundError('charge');
    let next: LinkPaymentView['next_action'] = null;
    let instructions: PaymentInstructions | null = null;
    // what charge-service stored when the processor gave out the account or code
    const issued = found.issuerToken as {
      payment_type?: string;
      payload?: DeferredInstructionsPayload;
    } | null;
    if (
      charge.status === 'awaiting' &&
      issued?.payment_type &&
      DEFERRED_PAYMENT_TYPES.includes(issued.payment_type)
    ) {
      instructions = await this.instructionsOf(
        principal,
        { ...found, paymentType: issued.payment_type, payload: issued.payload ?? null },
        lang,
      );
    } else if (charge.status === 'awaiting') {
      const storeId = charge.store_id;
      const scope = { merchantId: principal.merchantId, storeId };
      const issuer = await this.charges
        .threeDsIssuerToken(scope, id)
        .then((found) => presentThreeDsIssuerToken(found, found.threeDsIssuerToken))
        .catch(() =>
          this.charges.issuerToken(scope, id).then((found) => presentIssuerToken(found, found.issuerToken)),
        )
        .catch(() => null);
      if (issuer?.issuer_token)
        next = {
          type: 'redirect',
          url: issuer.issuer_token,
          method: issuer.call_method ?? 'http_get',
          payload: issuer.payload,
        };
    }
    return {
      kind: 'charge',
      id,
      status: charge.status,
      error: charge.error ? { code: charge.error.code ?? null, message: charge.error.message ?? null } : null,
      next_action: next,
      instructions,
    };
  }

  /** An awaiting bank transfer's or konbini charge's instructions, as the page and the mail show them. */
  private async instructionsOf(
    principal: Principal,
    charge: {
      storeId: string;
      paymentType: string;
      payload: DeferredInstructionsPayload | null;
      requestedAmount: bigint;
      requestedCurrency: string;
      expiresOn: Date | null;
    },
    lang: 'en' | 'ja',
  ): Promise<PaymentInstructions | null> {
    const scope = { merchantId: principal.merchantId, storeId: charge.storeId };
    const store = await this.stores.findVisibleWithMerchant(scope, charge.storeId);
    if (!charge.payload || !store) return null;
    const configuration = effectiveConfiguration(store.merchant.configuration, store.configuration);
    return paymentInstructions(
      {
        paymentType: charge.paymentType as 'bank_transfer' | 'konbini',
        payload: charge.payload,
        amount: charge.requestedAmount,
        currency: charge.requestedCurrency,
        // the current deadline: an extension moves it
        deadline: charge.expiresOn,
        timeZone: configuration.display_time_zone,
      },
      lang,
    );
  }

  private async viewSubscription(principal: Principal, id: string): Promise<LinkPaymentView> {
    const link = principal.checkoutLink;
    if (!link || principal.storeId === null) throw new NotFoundError('subscription');
    const scope = subscriptionScopeOf(principal, principal.storeId, id);
    const subscription = await this.subscriptions.find(scope, id);
    if ((subscription.metadata as Record<string, unknown>)[CHECKOUT_LINK_METADATA_KEY] !== link.id)
      throw new NotFoundError('subscription');
    return {
      kind: 'subscription',
      id,
      status: subscription.status,
      error: null,
      next_action: null,
      instructions: null,
    };
  }

  /** The credentials' own link, by the id in the path: any other id is 404. */
  private async linkOf(principal: Principal, linkId: string): Promise<CheckoutLink> {
    const own = principal.checkoutLink;
    if (!own || linkId.toLowerCase() !== own.id) throw new NotFoundError('checkout_link');
    const link = await this.links.findInScope(principal, own.id);
    if (!link) throw new NotFoundError('checkout_link');
    return link;
  }
}

/**
 * An authorization-only link's capture: on its `charge_capture_on`, or `charge_capture_in` from now;
 * otherwise the merchant captures it.
 */
function captureAtOf(link: CheckoutLink): { capture_at?: string } {
  if (link.chargeAuth !== true) return {};
  if (link.chargeCaptureOn) return { capture_at: link.chargeCaptureOn.toISOString() };
  if (link.chargeCaptureIn) {
    const at = DateTime.utc().plus(Duration.fromISO(link.chargeCaptureIn));
    if (at.isValid) return { capture_at: at.toJSDate().toISOString() };
  }
  return {};
}

function scheduleSettingsOf(link: CheckoutLink) {
  const settings: Record<string, unknown> = {};
  if (link.subscriptionStartOn) settings.start_on = link.subscriptionStartOn.toISOString().slice(0, 10);
  if (link.subscriptionPreserveEndOfMonth !== null)
    settings.preserve_end_of_month = link.subscriptionPreserveEndOfMonth;
  if (link.subscriptionRetryInterval !== null) settings.retry_interval = link.subscriptionRetryInterval;
  return Object.keys(settings).length > 0 ? settings : undefined;
}
