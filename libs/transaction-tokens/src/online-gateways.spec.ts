import { AlipayPlusOnlineBrand } from 'univapay-node';
import { ALIPAY_PLUS_WALLETS, checkGatewayCallMethod, onlineGateway } from './online-gateways';

describe('checkoutInfo.gateway', () => {
  it("lists every Alipay+ wallet of the SDK's enum once, in test mode", () => {
    const gateway = onlineGateway('alipay_plus_online', 'test', { enabled: true });
    expect(gateway.service).toBe('alipay_plus_online');
    expect(gateway.wallets.map((w) => w.brand).sort()).toEqual(Object.values(AlipayPlusOnlineBrand).sort());
    expect(new Set(ALIPAY_PLUS_WALLETS.map((w) => w.brand)).size).toBe(ALIPAY_PLUS_WALLETS.length);
  });

  it.each([
    ['we_chat_online', 'test', true, 'NOT_SUPPORTED_BY_PROCESSOR'],
    ['pay_pay_online', 'test', true, 'NOT_SUPPORTED_BY_PROCESSOR'],
    ['alipay_plus_online', 'live', true, 'NOT_SUPPORTED_BY_PROCESSOR'],
    ['alipay_plus_online', 'test', false, 'ONLINE_PROCESSING_DISABLED'],
  ] as const)('refuses %s in %s mode (online on: %s) with %s', (brand, mode, enabled, code) => {
    expect(() => onlineGateway(brand, mode, { enabled })).toThrow(expect.objectContaining({ code }));
  });

  it('needs os_type where the SDK says the customer’s device matters', () => {
    for (const method of ['app', 'sdk', 'http_get_mobile'])
      expect(() => checkGatewayCallMethod(method, undefined)).toThrow(
        expect.objectContaining({ errors: [{ field: 'os_type', reason: 'REQUIRED_VALUE' }] }),
      );
    expect(() => checkGatewayCallMethod('app', 'ios')).not.toThrow();
    expect(() => checkGatewayCallMethod('http_get', undefined)).not.toThrow();
  });
});
