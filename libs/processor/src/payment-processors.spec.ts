import { ConfigError, loadConfig } from '@kessai/config';
import { HttpPaymentProcessor } from './http/http-payment-processor';
import { KomojuPaymentProcessor } from './komoju/komoju-payment-processor';
import { PaymentProcessors } from './payment-processors';
import type { ProcessorAccountSource, RoutedProcessorAccount } from './processor-accounts';
import { StripePaymentProcessor } from './stripe/stripe-payment-processor';

const env = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/kessai',
  REDIS_URL: 'redis://127.0.0.1:6379',
  JWT_SIGNING_KEY: 'x'.repeat(32),
  IDEMPOTENCY_KEY_SECRET: 'i'.repeat(32),
  VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  VAULT_FINGERPRINT_SECRET: 'f'.repeat(32),
  PROCESSOR_CALLBACK_SECRET: 'p'.repeat(32),
  CONSOLE_SESSION_SECRET: 'c'.repeat(32),
};

describe('PaymentProcessors', () => {
  it('sends test mode to the simulator and live mode to the configured provider', () => {
    const stripe = new PaymentProcessors(
      loadConfig({ ...env, PROCESSOR_LIVE: 'stripe', STRIPE_SECRET_KEY: 'sk_live_x' }),
    );
    expect(stripe.forMode('test')).toBeInstanceOf(HttpPaymentProcessor);
    expect(stripe.forMode('live')).toBeInstanceOf(StripePaymentProcessor);
    const komoju = new PaymentProcessors(
      loadConfig({ ...env, PROCESSOR_LIVE: 'komoju', KOMOJU_SECRET_KEY: 'sk_live_x' }),
    );
    expect(komoju.forMode('live')).toBeInstanceOf(KomojuPaymentProcessor);
    expect(new PaymentProcessors(loadConfig(env)).forMode('live')).toBeNull();
  });

  it('stops at start without the live provider’s secret key, naming it and no value', () => {
    const build = () => new PaymentProcessors(loadConfig({ ...env, PROCESSOR_LIVE: 'stripe' }));
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/STRIPE_SECRET_KEY is required when PROCESSOR_LIVE=stripe/);
  });

  it('builds the 3-D Secure return route on PUBLIC_BASE_URL (the browser’s), not the callback base', () => {
    const processors = new PaymentProcessors(
      loadConfig({
        ...env,
        PUBLIC_BASE_URL: 'https://pay.example.com/',
        PROCESSOR_CALLBACK_BASE_URL: 'http://gateway.internal:3000',
      }),
    );
    expect(processors.threeDsReturnUrl('c1')).toBe('https://pay.example.com/processor/three_ds/return/c1');
    expect(processors.callbackUrl).toBe('http://gateway.internal:3000/processor/callbacks');
    expect(new PaymentProcessors(loadConfig({ ...env, PORT: '3210' })).threeDsReturnUrl('c2')).toBe(
      'http://127.0.0.1:3210/processor/three_ds/return/c2',
    );
  });

  describe('forCharge', () => {
    const account = (over: Partial<RoutedProcessorAccount> = {}): RoutedProcessorAccount => ({
      id: 'a1',
      provider: 'komoju',
      mode: 'live',
      version: 'k1:iv1',
      credentials: () => ({ secretKey: 'sk_live_account', webhookSecret: 'account-webhook-secret' }),
      ...over,
    });
    const source = (accounts: Record<string, RoutedProcessorAccount>): ProcessorAccountSource => ({
      accountOfCharge: (chargeId) => Promise.resolve(accounts[chargeId] ?? null),
    });

    it('sends a routed charge to its account’s provider and any other to its mode’s default', async () => {
      const processors = new PaymentProcessors(
        loadConfig(env),
        source({
          komoju: account(),
          stripe: account({ id: 'a2', provider: 'stripe' }),
          simulator: account({ id: 'a3', provider: 'simulator', mode: 'test' }),
          liveSimulator: account({ id: 'a4', provider: 'simulator', mode: 'live' }),
        }),
      );
      expect(await processors.forCharge('komoju', 'live')).toBeInstanceOf(KomojuPaymentProcessor);
      expect(await processors.forCharge('stripe', 'live')).toBeInstanceOf(StripePaymentProcessor);
      expect(await processors.forCharge('simulator', 'test')).toBeInstanceOf(HttpPaymentProcessor);
      // a live simulator account without PROCESSOR_LIVE_URL has nowhere to go
      expect(await processors.forCharge('liveSimulator', 'live')).toBeNull();
      expect(await processors.forCharge('unrouted', 'test')).toBe(processors.forMode('test'));
      expect(await processors.forCharge('unrouted', 'live')).toBeNull();
    });

    it('keeps an account’s adapter until its credentials change, opening them once per change', async () => {
      let opened = 0;
      let current = account({
        credentials: () => {
          opened++;
          return { secretKey: 'sk_1', webhookSecret: null };
        },
      });
      const processors = new PaymentProcessors(loadConfig(env), {
        accountOfCharge: () => Promise.resolve(current),
      });
      const first = await processors.forCharge('c1', 'live');
      expect(await processors.forCharge('c2', 'live')).toBe(first);
      expect(opened).toBe(1);
      current = { ...current, version: 'k1:iv2' };
      const rotated = await processors.forCharge('c1', 'live');
      expect(rotated).toBeInstanceOf(KomojuPaymentProcessor);
      expect(rotated).not.toBe(first);
      expect(opened).toBe(2);
    });
  });
});
