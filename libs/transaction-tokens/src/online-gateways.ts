import { BusinessRuleError, ValidationError } from '@kessai/domain';

/**
 * The Alipay+ wallets a customer may choose (the SDK's AlipayPlusOnlineBrand): each is an online
 * brand Kessai takes on a token (`data.brand`) and its test-mode processor, the simulator, pays
 * (docs/processor-simulator.md). Display names are the wallets' own.
 */
export const ALIPAY_PLUS_WALLETS: readonly { brand: string; displayName: string }[] = [
  { brand: 'tinaba', displayName: 'Tinaba' },
  { brand: 'naver_pay', displayName: 'Naver Pay' },
  { brand: 'toss_pay', displayName: 'Toss Pay' },
  { brand: 'maya', displayName: 'Maya' },
  { brand: 'grab_sg', displayName: 'GrabPay' },
  { brand: 'kredivo_id', displayName: 'Kredivo' },
  { brand: 'k_plus', displayName: 'K PLUS' },
  { brand: 'big_pay_my', displayName: 'BigPay (Malaysia)' },
  { brand: 'big_pay_sg', displayName: 'BigPay (Singapore)' },
  { brand: 'big_pay_th', displayName: 'BigPay (Thailand)' },
  { brand: 'kaspi_kz', displayName: 'Kaspi.kz' },
  { brand: 'zalopay', displayName: 'ZaloPay' },
  { brand: 'bluecode', displayName: 'Bluecode' },
  { brand: 'naya_pay', displayName: 'NayaPay' },
  { brand: 'scb_planet_plus', displayName: 'SCB PLANET+' },
  { brand: 'humo', displayName: 'HUMO' },
  { brand: 'momo', displayName: 'MoMo' },
];

/** What checkoutInfo.gateway answers for Alipay+: the service and the wallets under it. */
export interface OnlineGateway {
  service: 'alipay_plus_online';
  serviceName: string;
  wallets: readonly { brand: string; displayName: string }[];
}

/**
 * checkoutInfo.gateway (decision 0058): the wallets behind an online brand that is a gateway of
 * several. Alipay+ in test mode lists ALIPAY_PLUS_WALLETS (the store's online payments on); live
 * mode has no processor that takes them, and WeChat's in-browser payment needs Kessai's own WeChat
 * application (its `app_id`, an `open_id` from WeChat's authorization) which no processor of Kessai's
 * provides: 400 NOT_SUPPORTED_BY_PROCESSOR, as for every brand that is no gateway.
 */
export function onlineGateway(
  brand: string,
  mode: 'test' | 'live',
  online: { enabled: boolean },
): OnlineGateway {
  if (!online.enabled) {
    throw new BusinessRuleError('ONLINE_PROCESSING_DISABLED', [
      { field: 'brand', reason: 'ONLINE_PROCESSING_DISABLED' },
    ]);
  }
  if (brand !== 'alipay_plus_online' || mode !== 'test') {
    throw new BusinessRuleError('NOT_SUPPORTED_BY_PROCESSOR', [
      { field: 'brand', reason: 'NOT_SUPPORTED_BY_PROCESSOR' },
    ]);
  }
  return { service: 'alipay_plus_online', serviceName: 'Alipay+', wallets: ALIPAY_PLUS_WALLETS };
}

/** call_method values that need the customer's device (`os_type`), as the SDK says. */
export function checkGatewayCallMethod(callMethod: string, osType: string | undefined): void {
  if (['app', 'sdk', 'http_get_mobile'].includes(callMethod) && osType === undefined)
    throw ValidationError.field('os_type', 'REQUIRED_VALUE');
}
