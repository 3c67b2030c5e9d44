// Failover between processor accounts through the official univapay-node SDK (docs/connectors.md,
// "Failover"; decision 0056): the real gateway and charge-service processes, the KOMOJU and Stripe
// fakes, one merchant whose live stores route cards to one account with another as fallback. A
// charge moves to the fallback only when its account provably executed nothing (connection refused,
// DNS failure, Stripe's 429 rate_limit), never after a timeout, a 5xx or a worker killed mid-call;
// each fake counts the payments it executed for a charge.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { runCli } from '@kessai/admin';
import {
  eventually,
  type FakeKomoju,
  type FakeStripe,
  REAL_CARD_NUMBER,
  sdkCardToken,
  sdkFor,
  startFakeKomoju,
  startFakeStripe,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

type Any = any;

const KOMOJU_KEY = 'sk_live_failover_suite_komoju';
const KOMOJU_HOOK = 'failover-suite-komoju-webhook';
const STRIPE_KEY = 'sk_live_failover_suite_stripe';
const STRIPE_HOOK = 'whsec_failover_suite_stripe_webhook';
const TIMEOUT_MS = 2_000;

let komojuFake: FakeKomoju;
let stripeFake: FakeStripe;
beforeAll(async () => {
  komojuFake = await startFakeKomoju({ secretKey: KOMOJU_KEY, webhookSecret: KOMOJU_HOOK });
  stripeFake = await startFakeStripe({ secretKey: STRIPE_KEY, webhookSecret: STRIPE_HOOK });
});
afterAll(() => Promise.all([komojuFake?.close(), stripeFake?.close()]));

const suite = useSuite({
  variables: () => ({
    KOMOJU_API_URL: komojuFake.url,
    STRIPE_API_URL: stripeFake.url,
    // where a live simulator account's processor would be: a name that never resolves (RFC 6761)
    PROCESSOR_LIVE_URL: 'http://kessai-processor.invalid',
    CHARGE_POLLING_MAX_WAIT_MS: '2000',
  }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'refund-cancel-service'],
  workerVariables: {
    PROCESSOR_TIMEOUT_MS: String(TIMEOUT_MS),
    CHARGE_SWEEP_INTERVAL_MS: '200',
    CHARGE_JOB_LOCK_MS: '1000',
  },
});

const cli = (argv: string[], stdin?: string): Promise<Any> =>
  runCli(argv, {
    env: { ...suite.env.variables, PUBLIC_BASE_URL: suite.url },
    credentialsFile: suite.cliCredentialsFile,
    print: () => undefined,
    ...(stdin !== undefined ? { readStdin: () => Promise.resolve(stdin) } : {}),
  });

const komojuPaymentOf = (chargeId: string) =>
  [...komojuFake.payments.values()].find((payment) => payment.external_order_num === chargeId);

interface RoutedStore {
  id: string;
  sdk: SDK;
}

describe('failover to a route’s fallback account', () => {
  const accounts: Record<'komoju' | 'stripe' | 'simulator', Any> = {} as Any;
  let dnsStore: RoutedStore;
  let stripeStore: RoutedStore;
  let komojuStore: RoutedStore;

  beforeAll(async () => {
    const shop = suite.merchants.shop;
    const merchant = shop.merchant.id;
    await suite.env.admin.setVerified(merchant, true);
    const create = (provider: string, stdin: string) =>
      cli(
        ['processor-account:create', '--merchant', merchant, '--provider', provider, '--mode', 'live'],
        stdin,
      );
    accounts.komoju = await create('komoju', `${KOMOJU_KEY}\n${KOMOJU_HOOK}\n`);
    accounts.stripe = await create('stripe', `${STRIPE_KEY}\n${STRIPE_HOOK}\n`);
    accounts.simulator = await create('simulator', '');

    const routedStore = async (name: string, account: Any, fallback: Any): Promise<RoutedStore> => {
      const { store } = await suite.env.seedStore(shop, name);
      const route = await cli([
        'processor-route:set',
        ...['--store', store.id, '--mode', 'live', '--payment-type', 'card'],
        ...['--account', account.id, '--fallback', fallback.id],
      ]);
      expect(route).toMatchObject({
        processor_account_id: account.id,
        fallback_processor_account_id: fallback.id,
      });
      const token = await suite.env.admin.issueAppToken({
        merchantId: merchant,
        storeId: store.id,
        mode: 'live',
      });
      return { id: store.id, sdk: sdkFor(suite.url, token) };
    };
    dnsStore = await routedStore('Unresolved first', accounts.simulator, accounts.komoju);
    stripeStore = await routedStore('Stripe first', accounts.stripe, accounts.komoju);
    komojuStore = await routedStore('KOMOJU first', accounts.komoju, accounts.stripe);
  });

  const charge = async (store: RoutedStore): Promise<Any> => {
    const token = await sdkCardToken(store.sdk, { cardNumber: REAL_CARD_NUMBER });
    return store.sdk.charges.create({
      transactionTokenId: token.id,
      amount: 1500,
      currency: 'JPY',
    });
  };
  const finalCharge = (store: RoutedStore, id: string) =>
    store.sdk.charges.poll(store.id, id) as Promise<Any>;
  const processing = (id: string) => cli(['charge:processing', '--id', id]);

  /** The merchant's API names no account, neither the routed one nor the fallback. */
  const expectNoAccountIn = async (store: RoutedStore, id: string) => {
    const seen = JSON.stringify(await store.sdk.charges.get(store.id, id));
    for (const account of Object.values(accounts)) expect(seen).not.toContain(account.id);
    expect(seen).not.toMatch(/fail(ed)?_?over|fallback/i);
  };

  it('fails over when the account’s processor name does not resolve (DNS failure)', async () => {
    const created = await charge(dnsStore);
    expect((await finalCharge(dnsStore, created.id)).status).toBe('successful');
    expect(komojuFake.createdFor(created.id)).toBe(1);
    expect(komojuPaymentOf(created.id)).toMatchObject({ status: 'captured', amount: 1500 });
    const seen = await processing(created.id);
    expect(seen).toMatchObject({
      processor_account: { id: accounts.komoju.id, provider: 'komoju' },
      routed_processor_account: { id: accounts.simulator.id, provider: 'simulator' },
      fallback_processor_account: { id: accounts.komoju.id },
      processor_calls_started: 1,
      processor_calls_unexecuted: 1,
      processor_reference: komojuPaymentOf(created.id)!.id,
    });
    expect(seen.failed_over_on).toEqual(expect.any(String));
    await expectNoAccountIn(dnsStore, created.id);
  });

  it('fails over on Stripe’s explicit “not processed” (429 rate_limit), Stripe having created nothing', async () => {
    stripeFake.rateLimitNext(1);
    const created = await charge(stripeStore);
    expect((await finalCharge(stripeStore, created.id)).status).toBe('successful');
    expect(stripeFake.createdFor(created.id)).toBe(0);
    expect(komojuFake.createdFor(created.id)).toBe(1);
    expect(await processing(created.id)).toMatchObject({
      processor_account: { id: accounts.komoju.id },
      routed_processor_account: { id: accounts.stripe.id },
    });

    // its refund goes to the account that took it
    const refund: Any = await stripeStore.sdk.refunds.create(stripeStore.id, created.id, {
      amount: 400,
      currency: 'JPY',
    });
    const refunded: Any = await stripeStore.sdk.refunds.poll(stripeStore.id, created.id, refund.id);
    expect(refunded.status).toBe('successful');
    expect(komojuPaymentOf(created.id)).toMatchObject({ amount_refunded: 400 });
    await expectNoAccountIn(stripeStore, created.id);
  });

  it('stays on its account after a 5xx, retried there into one payment', async () => {
    stripeFake.failNext(1);
    const created = await charge(stripeStore);
    expect((await finalCharge(stripeStore, created.id)).status).toBe('successful');
    expect(stripeFake.createdFor(created.id)).toBe(1);
    expect(komojuFake.createdFor(created.id)).toBe(0);
    const seen = await processing(created.id);
    expect(seen).toMatchObject({
      processor_account: { id: accounts.stripe.id },
      failed_over_on: null,
      processor_calls_unexecuted: 0,
    });
    expect(seen.processor_calls_started).toBeGreaterThanOrEqual(2);
  });

  it('stays on its account after a timeout (the payment was made there), even if refused unexecuted next', async () => {
    // executed, answered after the client gave up; the retries then meet the rate limiter
    stripeFake.delayNext(1, TIMEOUT_MS * 3);
    const created = await charge(stripeStore);
    await eventually(() => stripeFake.createdFor(created.id) === 1, { what: 'the payment at Stripe' });
    stripeFake.rateLimitNext(1);
    expect((await finalCharge(stripeStore, created.id)).status).toBe('successful');
    expect(stripeFake.createdFor(created.id)).toBe(1);
    expect(komojuFake.createdFor(created.id)).toBe(0);
    expect(await processing(created.id)).toMatchObject({
      processor_account: { id: accounts.stripe.id },
      failed_over_on: null,
    });
  });

  it('killed -9 mid-call and restarted: stays on its account, the payment executed once', async () => {
    // the call reaches Stripe and executes; its answer is held past the worker's death
    stripeFake.delayNext(1, 60_000);
    const created = await charge(stripeStore);
    await eventually(() => stripeFake.createdFor(created.id) === 1, { what: 'the payment at Stripe' });
    const [worker] = suite.workers;
    expect(await worker.app.stop('SIGKILL')).toBeNull();

    // the next worker's first call is refused unexecuted: the dead worker's call was not, so no failover
    stripeFake.rateLimitNext(1);
    await suite.startWorker('charge-service');
    expect((await finalCharge(stripeStore, created.id)).status).toBe('successful');
    expect(stripeFake.createdFor(created.id)).toBe(1);
    expect(komojuFake.createdFor(created.id)).toBe(0);
    const seen = await processing(created.id);
    expect(seen).toMatchObject({ processor_account: { id: accounts.stripe.id }, failed_over_on: null });
    expect(seen.processor_calls_started).toBeGreaterThan(seen.processor_calls_unexecuted);
  });

  it('fails over when the account’s processor refuses the connection', async () => {
    // KOMOJU down: its port closed, every connection refused
    await komojuFake.close();
    const created = await charge(komojuStore);
    expect((await finalCharge(komojuStore, created.id)).status).toBe('successful');
    expect(stripeFake.createdFor(created.id)).toBe(1);
    expect(await processing(created.id)).toMatchObject({
      processor_account: { id: accounts.stripe.id, provider: 'stripe' },
      routed_processor_account: { id: accounts.komoju.id },
      processor_calls_started: 1,
      processor_calls_unexecuted: 1,
    });
    await expectNoAccountIn(komojuStore, created.id);
  });
});
