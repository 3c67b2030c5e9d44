import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type GatewayConfig } from '@kessai/config';
import { checkoutLinkSecretMatches, signCheckoutLink } from '@kessai/auth';
import {
  CheckoutLinksRepository,
  StoreLogosRepository,
  StoresRepository,
  type CheckoutLinkInfo,
} from '@kessai/db';
import { isUuid, logoPath, NotFoundError } from '@kessai/domain';
import { convenienceStoreName } from '@kessai/presenters';
import { effectiveConfiguration, type StoreConfiguration } from '@kessai/store-configuration';
import { AppTokenAuthenticator } from '../auth/app-token-authenticator';
import { supportedBrands } from '../checkout-info/checkout-info.presenter';
import {
  checkoutPage,
  frameAncestorSources,
  messagesFor,
  onlineBrandName,
  PAGE_ONLINE_BRANDS,
  pageHeaders,
  pickLang,
  refusalPage,
  type KonbiniChoice,
  type Lang,
  type PaymentMethod,
} from './hosted-pages';
import { pageTheme } from './page-theme';

export interface RenderedPage {
  status: number;
  headers: Record<string, string>;
  html: string;
}

/**
 * What the link's row fixes: a link page URL carrying one of these (`&amount=1`) was altered, and is
 * refused rather than shown with the row's values. Other extra keys (an issuer's or operator's
 * return parameters) are ignored.
 */
const LINK_FIXED_KEY =
  /^(amount|amount_formatted|currency|store_id|merchant_id|form_id|link_id|mode|token_type|token_only|metadata|capture|charge_.*|subscription_.*|description|expiry|enabled|products)$/;
const FRAME_QUERY_KEYS = new Set(['app_id', 'lang', 'token_type', 'display']);
const TOKEN_TYPES = ['one_time', 'recurring', 'subscription'];

const ASSETS: Record<string, string> = {
  'checkout.js': 'text/javascript; charset=utf-8',
  'checkout.css': 'text/css; charset=utf-8',
  'widget.js': 'text/javascript; charset=utf-8',
};

/**
 * Renders the hosted pages (docs/hosted-checkout.md). The link page shows what the link's row says —
 * store, amount, currency — whatever the URL carries besides the link's id and secret; a wrong
 * secret, an unknown link, a disabled or expired one, or a URL with anything added is refused with
 * a page that says why. The frame page is rendered for a valid store app token only, framable only
 * by that token's domains.
 */
@Injectable()
export class HostedPagesService {
  readonly #assets = new Map<string, Buffer>();

  constructor(
    private readonly links: CheckoutLinksRepository,
    private readonly stores: StoresRepository,
    private readonly logos: StoreLogosRepository,
    private readonly authenticator: AppTokenAuthenticator,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {
    for (const name of Object.keys(ASSETS))
      this.#assets.set(name, readFileSync(join(__dirname, 'assets', name)));
  }

  asset(name: string): { status: number; headers: Record<string, string>; body: Buffer | string } {
    const body = this.#assets.get(name);
    const type = ASSETS[name];
    if (!body || !type)
      return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'not found' };
    return {
      status: 200,
      headers: {
        'content-type': type,
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=300',
        // widget.js is loaded by merchants' pages
        'cross-origin-resource-policy': 'cross-origin',
      },
      body,
    };
  }

  /**
   * A store's logo at the URL naming its digest (decision 0021): served as the type its magic bytes
   * said, never sniffed, cached for good (a new logo is a new URL); 404 NOT_FOUND in the error
   * envelope for an older digest or a deleted store.
   */
  async logo(
    storeId: string,
    digest: string,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer | string }> {
    const found =
      isUuid(storeId) && /^[0-9a-f]{64}$/.test(digest)
        ? await this.logos.findServable(storeId.toLowerCase(), digest)
        : null;
    if (!found) throw new NotFoundError('logo');
    return {
      status: 200,
      headers: {
        'content-type': found.contentType,
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=31536000, immutable',
        etag: `"${found.digest}"`,
        // opened on its own it is an image, never a document that could run anything
        'content-security-policy': "default-src 'none'; sandbox",
        // /checkout_info's users show it on their own pages
        'cross-origin-resource-policy': 'cross-origin',
      },
      body: Buffer.from(found.image),
    };
  }

  /**
   * The store's logo on its pages, with the store's name as its alt text; null without one. The
   * store's row was read with its logo's digest: no query of its own.
   */
  private logoOf(store: {
    id: string;
    name: string;
    logo: { digest: string } | null;
  }): { src: string; alt: string } | null {
    return store.logo === null ? null : { src: logoPath(store.id, store.logo.digest), alt: store.name };
  }

  async linkPage(
    id: string,
    query: Record<string, unknown>,
    acceptLanguage: string | undefined,
  ): Promise<RenderedPage> {
    const queryLang = pickLang(query.lang, null, acceptLanguage);
    const refuse = (status: number, lang: Lang, message: (m: ReturnType<typeof messagesFor>) => string) => ({
      status,
      headers: pageHeaders([]),
      html: refusalPage(lang, message(messagesFor(lang))),
    });
    const secret = query.secret;
    if (typeof secret !== 'string' || !isUuid(id)) return refuse(404, queryLang, (m) => m.linkNotFound);
    const linkId = id.toLowerCase();
    const key = this.config.JWT_SIGNING_KEY;
    if (!checkoutLinkSecretMatches(linkId, secret, key)) return refuse(404, queryLang, (m) => m.linkNotFound);
    if (Object.keys(query).some((k) => LINK_FIXED_KEY.test(k.toLowerCase())))
      return refuse(400, queryLang, (m) => m.linkTampered);
    const info = await this.links.findInfo(linkId);
    if (!info || info.storeDeleted) return refuse(404, queryLang, (m) => m.linkNotFound);
    const lang = pickLang(query.lang, info.form.locale, acceptLanguage);
    if (!info.enabled) return refuse(410, lang, (m) => m.linkDisabled);
    if (info.expiry !== null && info.expiry.getTime() <= Date.now())
      return refuse(410, lang, (m) => m.linkExpired);
    const store = await this.stores.findVisibleWithMerchant(
      { merchantId: info.merchantId, storeId: info.storeId },
      info.storeId,
    );
    if (!store) return refuse(404, lang, (m) => m.linkNotFound);
    const configuration = effectiveConfiguration(store.merchant.configuration, store.configuration);
    const otherLang = lang === 'ja' ? 'en' : 'ja';
    const theme = pageTheme(configuration.checkout_colors);
    const methods = methodsOf(info, configuration, lang);
    const html = checkoutPage({
      lang,
      kind: 'link',
      storeName: info.form.displayStoreName ? store.name : null,
      logo: info.form.displayStoreLogo ? this.logoOf(store) : null,
      themeCss: theme.css,
      title: info.form.title,
      description: info.description ?? info.form.description,
      amount: { minor: info.amount, currency: info.currency },
      testMode: info.mode !== 'live',
      methods,
      konbiniStores: konbiniStoresOf(configuration, lang),
      mailsInstructions: this.config.SMTP_URL !== undefined,
      requireEmail: info.form.requireEmail,
      showCvv: true,
      submitText: info.form.submitButtonText,
      otherLangHref: `/checkout/pay/${linkId}?secret=${encodeURIComponent(secret)}&lang=${otherLang}`,
      config: {
        linkId,
        credential: `${secret}.${signCheckoutLink(info, key)}`,
        tokenType: info.tokenType,
        // the link makes a token only: the merchant's server charges it (its return URL names it)
        tokenOnly: tokenOnly(info),
        subscription: info.tokenType === 'subscription',
        resume: typeof query.resume === 'string',
        successUrl: info.form.successRedirectUrl,
        failureUrl: info.form.failureRedirectUrl,
        // a bank transfer's bank: the test bank in test mode
        bankBrand: info.mode === 'live' ? 'aozora_bank' : 'bank_test_brand',
        // the link's bank transfer or konbini charge made before: the page shows its instructions
        // again (it is never paid twice: the link is claimed for it)
        payment: await this.deferredPaymentOf(info),
      },
    });
    return { status: 200, headers: pageHeaders([], [theme.cspSource]), html };
  }

  /**
   * The bank transfer or konbini charge the link's page made, while it is not failed: its
   * instructions are what a consumer coming back wants to see. Null for any other payment.
   */
  private async deferredPaymentOf(info: CheckoutLinkInfo): Promise<{ kind: 'charge'; id: string } | null> {
    if (info.paymentKind !== 'charge' || info.paymentId === null) return null;
    const charge = await this.links.deferredChargeOf(info.id, info.paymentId);
    return charge ? { kind: 'charge', id: charge.id } : null;
  }

  async framePage(query: Record<string, unknown>, acceptLanguage: string | undefined): Promise<RenderedPage> {
    const lang = pickLang(query.lang, null, acceptLanguage);
    const refuse = (status: number): RenderedPage => ({
      status,
      headers: pageHeaders([]),
      html: refusalPage(lang, messagesFor(lang).frameRefused, true),
    });
    const appId = query.app_id;
    if (typeof appId !== 'string' || appId.split('.').length !== 3) return refuse(401);
    if (Object.keys(query).some((k) => !FRAME_QUERY_KEYS.has(k))) return refuse(400);
    const tokenType = query.token_type ?? 'one_time';
    if (typeof tokenType !== 'string' || !TOKEN_TYPES.includes(tokenType)) return refuse(400);
    let principal;
    try {
      principal = await this.authenticator.authenticate(`Bearer ${appId}`);
    } catch {
      return refuse(401);
    }
    if (principal.kind !== 'app_token' || principal.storeId === null) return refuse(401);
    const ancestors = frameAncestorSources(principal.domains);
    if (ancestors.length === 0) return refuse(403);
    const store = await this.stores.findVisibleWithMerchant(principal, principal.storeId);
    if (!store) return refuse(401);
    const otherLang = lang === 'ja' ? 'en' : 'ja';
    const theme = pageTheme(
      effectiveConfiguration(store.merchant.configuration, store.configuration).checkout_colors,
    );
    const params = new URLSearchParams({ app_id: appId, token_type: tokenType, lang: otherLang });
    if (typeof query.display === 'string')
      params.set('display', query.display === 'overlay' ? 'overlay' : 'inline');
    const html = checkoutPage({
      lang,
      kind: 'frame',
      storeName: store.name,
      logo: this.logoOf(store),
      themeCss: theme.css,
      title: null,
      description: null,
      amount: null,
      testMode: principal.mode !== 'live',
      methods: [{ id: 'card', label: messagesFor(lang).card }],
      requireEmail: true,
      showCvv: true,
      submitText: null,
      otherLangHref: `/checkout/frame?${params.toString()}`,
      config: { appId, tokenType, display: query.display === 'overlay' ? 'overlay' : 'inline' },
    });
    return { status: 200, headers: pageHeaders(ancestors, [theme.cspSource]), html };
  }
}

/**
 * What the link's page offers: a card, the online (QR operator) brands, bank transfer and konbini —
 * each when the form names it and the store takes it. An operator's, a bank's or a konbini's payment
 * is one payment in yen (bank transfer and konbini): not for a subscription or a token-only link.
 */
function methodsOf(info: CheckoutLinkInfo, configuration: StoreConfiguration, lang: Lang): PaymentMethod[] {
  const wanted = info.form.supportedPaymentMethods;
  const brands = supportedBrands(configuration);
  const methods: PaymentMethod[] = [];
  if ((wanted.length === 0 || wanted.includes('card')) && brands.some((b) => b.payment_type === 'card'))
    methods.push({ id: 'card', label: messagesFor(lang).card });
  // an operator's payment is one payment: a subscription's later charges need a card, and a token
  // alone (token only) is a card's
  if (wanted.includes('online') && info.tokenType === 'one_time' && !tokenOnly(info)) {
    for (const brand of brands)
      if (brand.payment_type === 'online' && PAGE_ONLINE_BRANDS.includes(brand.brand))
        methods.push({ id: brand.brand, label: onlineBrandName(brand.brand) });
  }
  const oneYenPayment = info.tokenType === 'one_time' && !tokenOnly(info) && info.currency === 'JPY';
  if (oneYenPayment && wanted.includes('bank_transfer') && configuration.bank_transfer_configuration.enabled)
    methods.push({ id: 'bank_transfer', label: messagesFor(lang).bankTransfer });
  if (oneYenPayment && wanted.includes('konbini') && konbiniStoresOf(configuration, lang).length > 0)
    methods.push({ id: 'konbini', label: messagesFor(lang).konbini });
  return methods;
}

/** The convenience stores the store takes konbini payments at (all of them while konbini is on). */
function konbiniStoresOf(configuration: StoreConfiguration, lang: Lang): KonbiniChoice[] {
  return supportedBrands(configuration)
    .filter((brand) => brand.payment_type === 'konbini')
    .map((brand) => ({ id: brand.brand, label: convenienceStoreName(brand.brand, lang) }));
}

/** A link (or its form) that makes a token only, which the merchant's server then charges. */
function tokenOnly(info: CheckoutLinkInfo): boolean {
  return info.tokenOnly || info.form.checkout === 'token';
}
