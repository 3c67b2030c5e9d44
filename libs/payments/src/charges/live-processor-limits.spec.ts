import {
  bothLimits,
  liveProcessorRefusal,
  processorLimitsOf,
  routedProcessorLimits,
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
});
