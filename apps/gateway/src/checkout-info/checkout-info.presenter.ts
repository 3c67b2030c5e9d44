import { DETECTABLE_CARD_BRANDS } from '@kessai/cards';
import {
  KNOWN_CURRENCIES,
  PAYMENT_TYPE_DESCRIPTORS,
  type ChargeablePaymentType,
  type DeferredPaymentType,
} from '@kessai/domain';
import {
  presentBankTransferConfiguration,
  presentInstallmentsConfiguration,
  presentCardConfiguration,
  readableCheckoutColors,
  type StoreConfiguration,
} from '@kessai/store-configuration';
import { PAIDY_TEST_PUBLIC_KEY } from '@kessai/processor';
import { RECOGNISED_QR_BRANDS, type OnlineGateway } from '@kessai/transaction-tokens';
import {
  BANK_TRANSFER_BRANDS,
  CONVENIENCE_STORES,
  ONLINE_BRANDS,
} from '../transaction-tokens/transaction-token.schemas';

interface SupportedBrand {
  brand: string;
  payment_type: ChargeablePaymentType;
  support_auth_capture: boolean;
  requires_full_name: boolean;
  support_dynamic_descriptor: boolean;
  requires_cvv: boolean;
  countries_allowed: null;
  supported_currencies: readonly string[];
  cvv_auth: boolean;
  installment_capable: boolean;
  card_brand?: string;
  online_brand?: string;
}

/** A brand of `paymentType`: a later capture and a descriptor as its payment type allows. */
const brand = (
  name: string,
  paymentType: SupportedBrand['payment_type'],
  traits: Pick<SupportedBrand, 'requires_cvv'>,
): SupportedBrand => ({
  brand: name,
  payment_type: paymentType,
  support_auth_capture: PAYMENT_TYPE_DESCRIPTORS[paymentType].authCapture,
  support_dynamic_descriptor: PAYMENT_TYPE_DESCRIPTORS[paymentType].dynamicDescriptor,
  requires_full_name: false,
  countries_allowed: null,
  // Kessai takes every active ISO 4217 currency for every brand
  supported_currencies: KNOWN_CURRENCIES,
  cvv_auth: false,
  installment_capable: false,
  ...traits,
});

/**
 * What the store accepts, by brand: card brands unless forbidden (capture later, descriptor, CVV),
 * scanned QR codes as one `qr_scan` entry while an operator Kessai recognises a code of is not
 * forbidden (descriptor; the SDK's brand type holds no QR operator, so the payment type stands for
 * them, and `qr_scan_configuration.forbidden_qr_scan_gateways` says which are refused: decision
 * 0070), and the operators of online payments (whole payments, no descriptor), the banks of bank
 * transfers and the convenience stores of konbini payments (yen only); a payment type switched off
 * offers nothing.
 */
export function supportedBrands(config: StoreConfiguration): SupportedBrand[] {
  const brands: SupportedBrand[] = [];
  if (config.card_configuration.enabled) {
    const forbidden: readonly string[] = config.card_configuration.forbidden_card_brands;
    for (const card of DETECTABLE_CARD_BRANDS.filter((b) => !forbidden.includes(b))) {
      brands.push({
        ...brand(card, 'card', { requires_cvv: true }),
        card_brand: card,
      });
    }
  }
  if (config.qr_scan_configuration.enabled) {
    const forbidden: readonly string[] = config.qr_scan_configuration.forbidden_qr_scan_gateways;
    if (RECOGNISED_QR_BRANDS.some((b) => !forbidden.includes(b)))
      brands.push(brand('qr_scan', 'qr_scan', { requires_cvv: false }));
  }
  if (config.online_configuration.enabled) {
    for (const online of ONLINE_BRANDS.filter((b) => b !== 'alipay_connect_online')) {
      brands.push({
        ...brand(online, 'online', { requires_cvv: false }),
        online_brand: online,
      });
    }
  }
  // paid later, outside, in yen (docs/bank-transfer-and-konbini.md): the bank of each brand, the
  // convenience stores of the konbini network
  const deferred = (name: string, paymentType: DeferredPaymentType): SupportedBrand => ({
    ...brand(name, paymentType, { requires_cvv: false }),
    supported_currencies: ['JPY'],
  });
  if (config.bank_transfer_configuration.enabled)
    for (const bank of BANK_TRANSFER_BRANDS) brands.push(deferred(bank, 'bank_transfer'));
  if (config.convenience_configuration.enabled)
    for (const store of CONVENIENCE_STORES) brands.push(deferred(store, 'konbini'));
  return brands;
}

/**
 * The payment types the store takes that are a brand of their own (the SDK's SupportedBrand.brand
 * holds them as PaymentType values and "paidy"), in test mode only: live mode refuses their tokens
 * with NOT_SUPPORTED_BY_PROCESSOR (decisions 0064, 0067, 0068), and what a live store cannot take is
 * not offered (decision 0077 lists them; 0067 had left Apple Pay out). Apple Pay is a card payment
 * (switched by card_configuration.enabled: a hold and a later capture, a descriptor; the device's
 * cryptogram, no CVV); Paidy (paidy_configuration.enabled) authorizes and captures, without a
 * descriptor; a merchant-presented QR code (qr_merchant_configuration.enabled) is taken whole by
 * the operator. Kessai's hosted pages offer none of them (a button needs the wallet's own
 * integration), which is why they are not part of supportedBrands.
 */
export function walletBrands(config: StoreConfiguration, mode: 'test' | 'live'): SupportedBrand[] {
  if (mode !== 'test') return [];
  const brands: SupportedBrand[] = [];
  if (config.card_configuration.enabled)
    brands.push(brand('apple_pay', 'apple_pay', { requires_cvv: false }));
  if (config.paidy_configuration.enabled) brands.push(brand('paidy', 'paidy', { requires_cvv: false }));
  if (config.qr_merchant_configuration.enabled)
    brands.push(brand('qr_merchant', 'qr_merchant', { requires_cvv: false }));
  return brands;
}

/**
 * CheckoutInfo (api-reference §5.9): what the hosted checkout needs to know of a store. `logoImage`
 * is the URL the gateway serves the store's logo at; without one `logo_image` is left out (the SDK
 * types it `logoImage?: string`; it was `null` before decision 0070).
 */
export function presentCheckoutInfo(
  store: { name: string; merchant: { pciDssCompliant: boolean } },
  mode: 'test' | 'live',
  config: StoreConfiguration,
  logoImage: string | null,
) {
  return {
    mode,
    recurring_token_privilege: config.recurring_token_configuration.recurring_type,
    name: store.name,
    // with the SDK's nested keys, as /me and stores show them (issue 30, gap 2)
    card_configuration: presentCardConfiguration(config, {
      directCardTokens: store.merchant.pciDssCompliant,
    }),
    qr_scan_configuration: config.qr_scan_configuration,
    online_configuration: config.online_configuration,
    // the store's own: enabled as its configuration says, with its deadline and matching rules
    bank_transfer_configuration: presentBankTransferConfiguration(config),
    convenience_configuration: config.convenience_configuration,
    paidy_configuration: config.paidy_configuration,
    // Paidy Checkout's key: the simulator's Paidy in test mode; live mode has no Paidy (decision 0068)
    paidy_public_key: mode === 'test' ? PAIDY_TEST_PUBLIC_KEY : null,
    recurring_card_charge_cvv_confirmation: { enabled: false, threshold: [] },
    installments_configuration: presentInstallmentsConfiguration(config),
    ...(logoImage === null ? {} : { logo_image: logoImage }),
    // as the hosted pages show them: Kessai's defaults if a pair became unreadable (decision 0021)
    theme: { colors: readableCheckoutColors(config.checkout_colors) },
    supported_brands: [...supportedBrands(config), ...walletBrands(config, mode)],
  };
}

/** checkoutInfo.gateway's answer (the SDK's AlipayPlusOnlineCheckoutInfoBrandItem). */
export function presentCheckoutGateway(gateway: OnlineGateway) {
  return {
    service: gateway.service,
    service_name: gateway.serviceName,
    brands: gateway.wallets.map((wallet) => ({
      brand_name: wallet.brand,
      brand_display_name: wallet.displayName,
      extras: {},
    })),
  };
}
