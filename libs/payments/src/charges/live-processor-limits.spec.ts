import {
  bothLimits,
  liveProcessorRefusal,
  processorLimitsOf,
  routedProcessorLimits,
  takesTokenCheck,
} from './live-processor-limits';

describe('the limits of the processor a charge will go to', () => {
  const live = (routes: { currency: string; provider: string; fallbackProvider?: string | null }[]) => ({
    mode: 'live',
    processorRoutes: routes,
  });

  it('refuses what the route’s fallback cannot take, as what its account cannot (decision 0072)', () => {
    const limits = routedProcessorLimits(
      live([{ currency: '*', provider: 'simulator', fallbackProvider: 'komoju' }]),
      'JPY',
      null,
    );
    // KOMOJU's limits: no bank transfer, no chain outside its own, no 3-D Secure asked for
    expect(liveProcessorRefusal(limits, 'bank_transfer', undefined)).toBe('transaction_token_id');
    expect(liveProcessorRefusal(limits, 'konbini', undefined, 'circle_k')).toBe('transaction_token_id');
    expect(liveProcessorRefusal(limits, 'card', 'require')).toBe('three_ds');
    expect(liveProcessorRefusal(limits, 'konbini', undefined, 'lawson')).toBeNull();
    // without the fallback the simulator's account takes all of it
    const alone = routedProcessorLimits(live([{ currency: '*', provider: 'simulator' }]), 'JPY', null);
    expect(liveProcessorRefusal(alone, 'bank_transfer', undefined)).toBeNull();
  });

  it('takes of two providers only what both take; partial capture is the account’s own', () => {
    const both = bothLimits(processorLimitsOf('stripe'), processorLimitsOf('komoju'))!;
    expect(both.paymentTypes).toEqual(['card', 'konbini']);
    expect(both.konbiniStores).toEqual(['family_mart', 'lawson', 'mini_stop', 'seico_mart']);
    expect(both.refusedThreeDsModes).toEqual(['require', 'force']);
    expect(both.partialCapture).toBe(true);
    expect(bothLimits(null, null)).toBeNull();
    expect(bothLimits(null, processorLimitsOf('stripe'))).toEqual(processorLimitsOf('stripe'));
  });

  it('takes at KOMOJU the online brands it takes, in their currencies only (PayPay in yen)', () => {
    const komoju = processorLimitsOf('komoju');
    const jpy = { brand: 'pay_pay_online', currency: 'JPY' };
    expect(liveProcessorRefusal(komoju, 'online', undefined, null, jpy)).toBeNull();
    expect(liveProcessorRefusal(komoju, 'online', undefined, null, { ...jpy, currency: 'usd' })).toBe(
      'currency',
    );
    for (const brand of ['we_chat_online', 'alipay_online', 'constructor', null])
      expect(liveProcessorRefusal(komoju, 'online', undefined, null, { brand, currency: 'JPY' })).toBe(
        'transaction_token_id',
      );
    // QR codes, scanned or shown, are payment types of their own: not taken
    expect(liveProcessorRefusal(komoju, 'qr_scan', undefined)).toBe('transaction_token_id');
    expect(liveProcessorRefusal(komoju, 'qr_merchant', undefined)).toBe('transaction_token_id');
    // Stripe takes none; a fallback to Stripe refuses PayPay too; the simulator takes every brand
    expect(liveProcessorRefusal(processorLimitsOf('stripe'), 'online', undefined, null, jpy)).toBe(
      'transaction_token_id',
    );
    const withFallback = routedProcessorLimits(
      { mode: 'live', processorRoutes: [{ currency: '*', provider: 'komoju', fallbackProvider: 'stripe' }] },
      'JPY',
      null,
    );
    expect(liveProcessorRefusal(withFallback, 'online', undefined, null, jpy)).toBe('transaction_token_id');
    const toSimulator = routedProcessorLimits(
      {
        mode: 'live',
        processorRoutes: [{ currency: '*', provider: 'komoju', fallbackProvider: 'simulator' }],
      },
      'JPY',
      null,
    );
    expect(toSimulator?.onlineBrands).toEqual({ pay_pay_online: ['JPY'] });
    expect(
      liveProcessorRefusal(null, 'online', undefined, null, { brand: 'we_chat_online', currency: 'JPY' }),
    ).toBeNull();
  });

  it('a card token’s own checks: the simulator’s protocol takes both, KOMOJU and Stripe neither (decision 0079)', () => {
    for (const check of ['three_ds', 'cvv_authorize'] as const) {
      expect(takesTokenCheck(null, check)).toBe(true);
      expect(takesTokenCheck(processorLimitsOf('komoju'), check)).toBe(false);
      expect(takesTokenCheck(processorLimitsOf('stripe'), check)).toBe(false);
      expect(takesTokenCheck(bothLimits(processorLimitsOf('stripe'), null), check)).toBe(false);
    }
  });
});
