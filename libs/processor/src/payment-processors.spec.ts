import { ConfigError, loadConfig } from '@kessai/config';
import { HttpPaymentProcessor } from './http/http-payment-processor';
import { KomojuPaymentProcessor } from './komoju/komoju-payment-processor';
import { PaymentProcessors } from './payment-processors';
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
});
