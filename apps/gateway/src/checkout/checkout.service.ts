import { Inject, Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { APP_CONFIG, type GatewayConfig } from '@kessai/config';
import { checkoutLinkSecret, checkoutLinkSecretMatches, signCheckoutLink } from '@kessai/auth';
import {
  CheckoutFormsRepository,
  CheckoutLinksRepository,
  CheckoutProductsRepository,
  StoresRepository,
  type AccessScope,
  type CheckoutLink,
} from '@kessai/db';
import { BusinessRuleError, isUuid, NotFoundError, ValidationError, type FieldError } from '@kessai/domain';
import {
  presentCheckoutEmail,
  presentCheckoutForm,
  presentCheckoutLink,
  presentCheckoutProduct,
  presentLinkProduct,
} from '@kessai/presenters';
import { DEFAULT_ZONE_ID } from '@kessai/schedule';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import {
  checkoutInfoQuerySchema,
  createLinkEmailSchema,
  createTemporaryLinkSchema,
  type CreateTemporaryLinkRequest,
} from './checkout.schemas';

/**
 * The hosted checkout resources (api-reference §5.11, docs/hosted-checkout.md): form designs and
 * products (written by the operator, read within the caller's scope), links created by the
 * merchant's server, the public checkout info of a link (its secret is the credential), and the
 * emails that carried a link. Another merchant's resource and a missing one answer the same 404.
 */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly forms: CheckoutFormsRepository,
    private readonly products: CheckoutProductsRepository,
    private readonly links: CheckoutLinksRepository,
    private readonly stores: StoresRepository,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async getForm(principal: Principal, id: string) {
    const form = isUuid(id) ? await this.forms.findInScope(principal, id.toLowerCase()) : null;
    if (!form) throw new NotFoundError('checkout_form');
    return presentCheckoutForm(form);
  }

  async getProduct(principal: Principal, id: string) {
    const product = isUuid(id) ? await this.products.findInScope(principal, id.toLowerCase()) : null;
    if (!product) throw new NotFoundError('checkout_product');
    return presentCheckoutProduct(product);
  }

  async getProductByCode(principal: Principal, code: string) {
    // a code is at most 100 characters, and Postgres keeps no U+0000 (the path is not nul-guarded)
    const plausible = code.length <= 100 && !code.includes('\u0000');
    const product = plausible ? await this.products.findByCode(principal, code) : null;
    if (!product) throw new NotFoundError('checkout_product');
    return presentCheckoutProduct(product);
  }

  async getLink(principal: Principal, id: string) {
    return this.present(await this.findLink(principal, id));
  }

  /** The products a link sells, in its order: a list of one page (`has_more` false). */
  async listLinkProducts(principal: Principal, linkId: string) {
    const link = await this.findLink(principal, linkId);
    const products = await this.links.products(link.id);
    return { items: products.map(presentLinkProduct), has_more: false as const };
  }

  /**
   * A link for one payment, created by the merchant's server (its secret-bearing app token): the
   * amount, currency, store and form are fixed here and nothing the consumer sends changes them.
   */
  async createTemporaryLink(principal: Principal, body: unknown) {
    const request = parseInput(createTemporaryLinkSchema, body);
    const now = new Date();
    refuseThePast(request, now);
    if (request.merchant_id !== undefined && request.merchant_id !== principal.merchantId)
      throw new NotFoundError('merchant');
    const storeId = request.store_id ?? principal.storeId;
    if (storeId === null) throw ValidationError.field('store_id', 'REQUIRED_VALUE');
    const store = await this.stores.findVisible(principal, storeId);
    if (!store) throw new NotFoundError('store');
    const scope: AccessScope = { merchantId: store.merchantId, storeId: store.id };
    const form = await this.forms.findInScope(scope, request.form_id);
    if (!form) throw new NotFoundError('checkout_form');
    if (form.mode !== principal.mode)
      throw new BusinessRuleError('PROCESSING_MODE_MISMATCH', [
        { field: 'form_id', reason: 'PROCESSING_MODE_MISMATCH' },
      ]);
    const products = await this.linkProducts(store.id, request);
    const link = await this.links.create(
      {
        merchantId: store.merchantId,
        storeId: store.id,
        formId: form.id,
        mode: principal.mode,
        description: request.description ?? null,
        enabled: request.enabled,
        expiry: request.expiry ?? null,
        amount: BigInt(request.amount),
        currency: request.currency,
        tokenType: request.token_type,
        tokenOnly: request.token_only,
        hideCvv: request.hide_cvv ?? null,
        hidePrefilledEmail: request.hide_prefilled_email ?? null,
        destination: request.destination ?? null,
        cvvAuthorize: request.cvv_authorize ?? null,
        chargeAuth: request.charge_auth ?? null,
        chargeCaptureOn: request.charge_capture_on ?? null,
        chargeCaptureIn: request.charge_capture_in ?? null,
        allowCardInstallments:
          request.token_type === 'subscription' ? null : (request.allow_card_installments ?? false),
        subscriptionPeriod: request.subscription_period ?? null,
        subscriptionCyclicalPeriod: request.subscription_cyclical_period ?? null,
        subscriptionCycles: request.subscription_cycles ?? null,
        subscriptionInitialAmount:
          request.subscription_initial_amount == null ? null : BigInt(request.subscription_initial_amount),
        subscriptionStartOn: request.subscription_start_on
          ? new Date(`${request.subscription_start_on}T00:00:00Z`)
          : null,
        subscriptionStartIn: request.subscription_start_in ?? null,
        subscriptionStartInMonths: request.subscription_start_in_months ?? null,
        subscriptionStartDayOfMonth: request.subscription_start_day_of_month ?? null,
        subscriptionPreserveEndOfMonth: request.subscription_preserve_end_of_month ?? null,
        subscriptionRetryInterval: request.subscription_retry_interval ?? null,
        metadata: request.metadata ?? {},
      },
      products.map((product) => ({ productId: product.id, quantity: product.quantity })),
    );
    return this.present(link);
  }

  /**
   * GET /checkout/info/{id}?secret=…: what the hosted form shows for a link, `{form, link, products}`,
   * to whoever holds the link's secret (no app token needed). A missing link, a wrong secret and a
   * deleted store answer the same 404; a disabled or expired link 400 NOT_ACTIVE (LINK_DISABLED /
   * LINK_EXPIRED).
   */
  async getInfo(id: string, query: Record<string, unknown>) {
    const { secret } = parseInput(checkoutInfoQuerySchema, query);
    if (!isUuid(id)) throw new NotFoundError('checkout_link');
    const linkId = id.toLowerCase();
    // the secret is checked before the database is asked: a wrong one costs one HMAC
    if (!checkoutLinkSecretMatches(linkId, secret, this.config.JWT_SIGNING_KEY))
      throw new NotFoundError('checkout_link');
    const info = await this.links.findInfo(linkId);
    if (!info || info.storeDeleted) throw new NotFoundError('checkout_link');
    if (!info.enabled) throw new BusinessRuleError('NOT_ACTIVE', [{ field: null, reason: 'LINK_DISABLED' }]);
    if (info.expiry !== null && info.expiry.getTime() <= Date.now())
      throw new BusinessRuleError('NOT_ACTIVE', [{ field: null, reason: 'LINK_EXPIRED' }]);
    return {
      form: presentCheckoutForm(info.form),
      link: this.present(info),
      products: info.products.map(presentLinkProduct),
    };
  }

  async getEmail(principal: Principal, id: string) {
    const email = isUuid(id) ? await this.links.findEmailInScope(principal, id.toLowerCase()) : null;
    if (!email) throw new NotFoundError('checkout_email');
    return presentCheckoutEmail(email);
  }

  /**
   * POST /checkout/links/{id}/emails (Kessai's extension): records that the link is to be sent to a
   * customer. Nothing sends it yet (the link form page it would point to is not built): it stays
   * `pending` (docs/hosted-checkout.md).
   */
  async createEmail(principal: Principal, linkId: string, body: unknown) {
    const link = await this.findLink(principal, linkId);
    const request = parseInput(createLinkEmailSchema, body);
    const email = await this.links.createEmail({
      merchantId: link.merchantId,
      storeId: link.storeId,
      formId: link.formId,
      linkId: link.id,
      email: request.email,
      customerName: request.customer_name ?? null,
      lang: request.lang,
      status: 'pending',
    });
    return presentCheckoutEmail(email);
  }

  private async findLink(scope: AccessScope, id: string): Promise<CheckoutLink> {
    const link = isUuid(id) ? await this.links.findInScope(scope, id.toLowerCase()) : null;
    if (!link) throw new NotFoundError('checkout_link');
    return link;
  }

  private present(link: CheckoutLink) {
    const key = this.config.JWT_SIGNING_KEY;
    return presentCheckoutLink(link, {
      jwt: signCheckoutLink(link, key),
      secret: checkoutLinkSecret(link.id, key),
    });
  }

  /**
   * The products the request names, each the store's and active, in the link's currency; `amount`
   * must be their total (amount × quantity, and each one's shipping fees). 404 for a missing one.
   */
  private async linkProducts(storeId: string, request: CreateTemporaryLinkRequest) {
    const wanted = request.products ?? [];
    if (wanted.length === 0) return [];
    const found = new Map(
      (
        await this.products.findManyInStore(
          storeId,
          wanted.map((p) => p.product_id),
        )
      ).map((p) => [p.id, p]),
    );
    const errors: FieldError[] = [];
    let total = 0n;
    const products = wanted.map((entry, i) => {
      const product = found.get(entry.product_id);
      if (!product || !product.active) throw new NotFoundError('checkout_product');
      if (product.currency !== request.currency)
        errors.push({ field: `products.${i}`, reason: 'INVALID_CURRENCY' });
      total += product.amount * BigInt(entry.quantity) + (product.shippingFees ?? 0n);
      return { id: product.id, quantity: entry.quantity };
    });
    if (errors.length === 0 && total !== BigInt(request.amount))
      errors.push({ field: 'amount', reason: 'INVALID_AMOUNT' });
    if (errors.length > 0) throw new ValidationError(errors);
    return products;
  }
}

/** An expiry, capture date or subscription start already past is refused. */
function refuseThePast(request: CreateTemporaryLinkRequest, now: Date): void {
  const errors: FieldError[] = [];
  if (request.expiry && request.expiry.getTime() <= now.getTime())
    errors.push({ field: 'expiry', reason: 'MUST_BE_FUTURE_TIME' });
  if (request.charge_capture_on && request.charge_capture_on.getTime() <= now.getTime())
    errors.push({ field: 'charge_capture_on', reason: 'MUST_BE_FUTURE_TIME' });
  if (request.subscription_start_on) {
    const start = DateTime.fromISO(request.subscription_start_on, { zone: DEFAULT_ZONE_ID });
    const today = DateTime.fromJSDate(now, { zone: DEFAULT_ZONE_ID }).startOf('day');
    if (!start.isValid || start < today)
      errors.push({ field: 'subscription_start_on', reason: 'INVALID_SUBSCRIPTION_START_ON' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}
