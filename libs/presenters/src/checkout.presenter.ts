import type { CheckoutEmail, CheckoutForm, CheckoutLink, CheckoutProduct, LinkProduct } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import { optionalField } from './optional-field';
import { calendarDateOf } from './scheduled-payment.presenter';

/**
 * The hosted checkout resources (api-reference §5.11; docs/hosted-checkout.md), field for field as
 * the SDK's types name them (ECFormItem, ECFormLinkItem, LinkProductListItem, ProductItem,
 * EmailItem). Amounts are minor units. A field the SDK types as `T | null` is `null` without a value;
 * one it types as optional only is left out (optionalField).
 */

const amountOf = (amount: bigint | null) => (amount === null ? null : Number(amount));

/** A form design: what the hosted form collects and how it looks (the SDK's ECFormItem). */
export function presentCheckoutForm(form: CheckoutForm) {
  return {
    id: form.id,
    merchant_id: form.merchantId,
    store_id: form.storeId,
    name: form.name,
    mode: form.mode,
    app_id: form.appTokenId,
    checkout: form.checkout,
    payment_type: form.paymentType,
    token_type: form.tokenType,
    usage_limit: form.usageLimit,
    // Kessai keeps no UnivaPay customer ids
    univapay_customer_id: null,
    capture: form.capture,
    capture_at: null,
    only_direct_currency: form.onlyDirectCurrency,
    supported_payment_methods: form.supportedPaymentMethods,
    cvv_authorize: form.cvvAuthorize,
    confirmation_required: form.confirmationRequired,
    title: form.title,
    description: form.description,
    header: form.header,
    locale: form.locale,
    dark: form.dark,
    submit_button_text: form.submitButtonText,
    show_cvv: form.showCvv,
    display_store_name: form.displayStoreName,
    display_store_logo: form.displayStoreLogo,
    hide_privacy_link: form.hidePrivacyLink,
    header_color: form.headerColor,
    button_color: form.buttonColor,
    background_color: form.backgroundColor,
    require_name: form.requireName,
    require_name_kana: form.requireNameKana,
    require_email: form.requireEmail,
    require_billing_address: form.requireBillingAddress,
    require_phone_number: form.requirePhoneNumber,
    address: form.address,
    // a form design prefills no consumer: these come from the consumer, on the form
    email: null,
    shipping_address_line1: null,
    shipping_address_line2: null,
    shipping_address_city: null,
    shipping_address_state: null,
    shipping_address_zip: null,
    shipping_address_country_code: null,
    buyer_name: null,
    buyer_name_transliteration: null,
    buyer_date_of_birth: null,
    custom_fields: form.customFields,
    custom_fields_titles: form.customFieldsTitles,
    order_summary_titles: form.orderSummaryTitles,
    success_redirect_url: form.successRedirectUrl,
    failure_redirect_url: form.failureRedirectUrl,
    pending_redirect_url: form.pendingRedirectUrl,
    descriptor: form.descriptor,
    ignore_descriptor_on_error: form.ignoreDescriptorOnError,
    metadata: form.metadata ?? {},
    created_on: form.createdOn.toISOString(),
    updated_on: form.updatedOn.toISOString(),
  };
}

/** Whether a link may be paid now: enabled and not expired. */
export function checkoutLinkActive(
  link: Pick<CheckoutLink, 'enabled' | 'expiry'>,
  now = new Date(),
): boolean {
  return link.enabled && (link.expiry === null || link.expiry.getTime() > now.getTime());
}

/**
 * A link (the SDK's ECFormLinkItem) with its own credentials, which the caller derives
 * (libs/auth checkout-link.ts): `active` is false once it is disabled or expired.
 */
export function presentCheckoutLink(
  link: CheckoutLink,
  credentials: { jwt: string; secret: string },
  now = new Date(),
) {
  const amount = Number(link.amount);
  return {
    id: link.id,
    merchant_id: link.merchantId,
    store_id: link.storeId,
    form_id: link.formId,
    mode: link.mode,
    description: link.description,
    enabled: link.enabled,
    active: checkoutLinkActive(link, now),
    expiry: link.expiry?.toISOString() ?? null,
    jwt: credentials.jwt,
    secret: credentials.secret,
    amount,
    amount_formatted: String(formatAmount(amount, link.currency)),
    currency: link.currency,
    token_type: link.tokenType,
    token_only: link.tokenOnly,
    allow_card_installments: link.allowCardInstallments,
    ...optionalField('hide_cvv', link.hideCvv),
    ...optionalField('hide_prefilled_email', link.hidePrefilledEmail),
    ...optionalField('destination', link.destination),
    ...optionalField('cvv_authorize', link.cvvAuthorize),
    ...optionalField('charge_auth', link.chargeAuth),
    ...optionalField('charge_capture_on', link.chargeCaptureOn?.toISOString()),
    ...optionalField('charge_capture_in', link.chargeCaptureIn),
    ...optionalField('subscription_period', link.subscriptionPeriod),
    ...optionalField('subscription_cyclical_period', link.subscriptionCyclicalPeriod),
    ...optionalField('subscription_cycles', link.subscriptionCycles),
    ...optionalField('subscription_initial_amount', amountOf(link.subscriptionInitialAmount)),
    ...optionalField(
      'subscription_start_on',
      link.subscriptionStartOn ? calendarDateOf(link.subscriptionStartOn) : null,
    ),
    ...optionalField('subscription_start_in', link.subscriptionStartIn),
    ...optionalField('subscription_start_in_months', link.subscriptionStartInMonths),
    ...optionalField('subscription_start_day_of_month', link.subscriptionStartDayOfMonth),
    ...optionalField('subscription_preserve_end_of_month', link.subscriptionPreserveEndOfMonth),
    ...optionalField('subscription_retry_interval', link.subscriptionRetryInterval),
    metadata: link.metadata ?? {},
    created_on: link.createdOn.toISOString(),
    updated_on: link.updatedOn.toISOString(),
  };
}

function productFields(product: CheckoutProduct) {
  return {
    id: product.id,
    merchant_id: product.merchantId,
    store_id: product.storeId,
    code: product.code,
    name: product.name,
    description: product.description,
    amount: Number(product.amount),
    currency: product.currency,
    shipping_fees: amountOf(product.shippingFees),
    token_type: product.tokenType,
    ...optionalField('subscription_period', product.subscriptionPeriod),
    ...optionalField('subscription_cyclical_period', product.subscriptionCyclicalPeriod),
    ...optionalField('subscription_cycles', product.subscriptionCycles),
    ...optionalField('subscription_initial_amount', amountOf(product.subscriptionInitialAmount)),
    ...optionalField('subscription_retry_interval', product.subscriptionRetryInterval),
    ...optionalField('subscription_preserve_end_of_month', product.subscriptionPreserveEndOfMonth),
    metadata: product.metadata ?? {},
    created_on: product.createdOn.toISOString(),
    updated_on: product.updatedOn.toISOString(),
  };
}

/** A product (the SDK's ProductItem; GET /checkout/products/{id}). Kessai has no platforms: `platform_id` null. */
export function presentCheckoutProduct(product: CheckoutProduct) {
  return { ...productFields(product), platform_id: null, active: product.active };
}

/** A product as a link sells it (the SDK's LinkProductListItem): with its quantity on the link. */
export function presentLinkProduct(product: LinkProduct) {
  return { ...productFields(product), quantity: product.quantity };
}

/** An email that carried a link to a customer (the SDK's EmailItem). */
export function presentCheckoutEmail(email: CheckoutEmail) {
  return {
    id: email.id,
    merchant_id: email.merchantId,
    store_id: email.storeId,
    form_id: email.formId,
    link_id: email.linkId,
    email: email.email,
    ...optionalField('customer_name', email.customerName),
    lang: email.lang,
    status: email.status,
    created_on: email.createdOn.toISOString(),
    updated_on: email.updatedOn.toISOString(),
  };
}
