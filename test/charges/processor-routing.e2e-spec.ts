// Processor accounts and routing per store through the official univapay-node SDK (docs/connectors.md,
// "Routing"; decision 0055): the real gateway, charge-service and refund-cancel-service processes,
// the KOMOJU fake as KOMOJU and the processor simulator, one merchant with two live stores. The
// deployment's default stays PROCESSOR_LIVE=http: only the routes send payments to KOMOJU, with the
// account's own credentials, which the operator's CLI stored encrypted.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { OnlineBrand, PaymentType } from 'univapay-node';
import { createHmac } from 'node:crypto';
import { runCli } from '@kessai/admin';
import {
  APPROVED_TEST_CARD,
  type Credentials,
  eventually,
  type FakeKomoju,
  REAL_CARD_NUMBER,
  luhnValidRuns,
  sdkCardToken,
  sdkError,
  sdkFor,
  sdkOnlineToken,
  startFakeKomoju,
  useSuite,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

type Any = any;

const KEY_BEFORE = 'sk_live_routing_suite_key_before';
const HOOK_BEFORE = 'routing-suite-webhook-before';
const KEY_AFTER = 'sk_live_routing_suite_key_after';
const HOOK_AFTER = 'routing-suite-webhook-after';
const SECRETS = [KEY_BEFORE, HOOK_BEFORE, KEY_AFTER, HOOK_AFTER];
/** The simulator's card whose issuer asks for a 3-D Secure challenge. */
const THREE_DS_CARD = '4000000000003220';

let fake: FakeKomoju;
let simulatorUrl = '';
beforeAll(async () => {
  fake = await startFakeKomoju({ secretKey: KEY_BEFORE, webhookSecret: HOOK_BEFORE });
});
afterAll(() => fake?.close());

const suite = useSuite({
  variables: () => ({
    KOMOJU_API_URL: fake.url,
    // the deployment's live default speaks the simulator's protocol: the simulator here
    PROCESSOR_LIVE_URL: simulatorUrl,
    CHARGE_POLLING_MAX_WAIT_MS: '2000',
  }),
  simulator: async (callbackSecret) => {
    const simulator = await startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 });
    simulatorUrl = simulator.url;
    return simulator;
  },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'refund-cancel-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '2000', CHARGE_SWEEP_INTERVAL_MS: '200', LOG_LEVEL: 'trace' },
});

/** The operator's CLI, credentials piped on standard input. */
const cli = (argv: string[], stdin?: string): Promise<Any> =>
  runCli(argv, {
    env: { ...suite.env.variables, PUBLIC_BASE_URL: suite.url },
    credentialsFile: suite.cliCredentialsFile,
    print: () => undefined,
    ...(stdin !== undefined ? { readStdin: () => Promise.resolve(stdin) } : {}),
  });

const paymentOf = (chargeId: string) =>
  [...fake.payments.values()].find((payment) => payment.external_order_num === chargeId);

describe('processor accounts and routing per store', () => {
  let storeA: string;
  let storeB: string;
  let sdkA: SDK;
  let sdkB: SDK;
  let liveA: Credentials;
  let komoju: Any;
  let simulatorAccount: Any;

  beforeAll(async () => {
    const shop = suite.merchants.shop;
    storeA = shop.store.id;
    liveA = await suite.env.liveStoreToken(shop);
    sdkA = sdkFor(suite.url, liveA);
    const second = await suite.env.seedStore(shop, 'Second Store');
    storeB = second.store.id;
    sdkB = sdkFor(
      suite.url,
      await suite.env.admin.issueAppToken({ merchantId: shop.merchant.id, storeId: storeB, mode: 'live' }),
    );

    const merchant = shop.merchant.id;
    komoju = await cli(
      ['processor-account:create', '--merchant', merchant, '--provider', 'komoju', '--mode', 'live'],
      `${KEY_BEFORE}\n${HOOK_BEFORE}\n`,
    );
    simulatorAccount = await cli(
      ['processor-account:create', '--merchant', merchant, '--provider', 'simulator', '--mode', 'live'],
      '',
    );
    for (const paymentType of ['card', 'konbini'])
      await cli([
        'processor-route:set',
        '--store',
        storeA,
        '--mode',
        'live',
        '--payment-type',
        paymentType,
        '--account',
        komoju.id,
      ]);
    await cli([
      'processor-route:set',
      '--store',
      storeB,
      '--mode',
      'live',
      '--payment-type',
      'card',
      '--account',
      simulatorAccount.id,
    ]);
    fake.webhookUrl = `${suite.url}/processor/komoju/webhooks/${komoju.id}`;
  });

  const poll = (sdk: SDK, storeId: string, id: string, until?: (charge: Any) => boolean) =>
    sdk.charges.poll(
      storeId,
      id,
      undefined,
      undefined,
      until ? { successCondition: until } : undefined,
    ) as Promise<Any>;
  /** A konbini charge of 3000 at `convenienceStore`, through the store's SDK. */
  const konbini = async (sdk: SDK, convenienceStore: string) => {
    const token: Any = await sdk.transactionTokens.create({
      paymentType: PaymentType.KONBINI,
      type: 'one_time',
      email: 'buyer@example.test',
      data: {
        customerName: 'Yamada Taro',
        convenienceStore,
        phoneNumber: { countryCode: '81', localNumber: '9012345678' },
      },
    } as Any);
    return sdk.charges.create({ transactionTokenId: token.id, amount: 3000, currency: 'JPY' });
  };
  const cardCharge = async (sdk: SDK, extra: Record<string, unknown> = {}) => {
    const token = await sdkCardToken(sdk, { cardNumber: REAL_CARD_NUMBER });
    return sdk.charges.create({
      transactionTokenId: token.id,
      amount: 1200,
      currency: 'JPY',
      ...extra,
    }) as Promise<Any>;
  };

  it('charges and refunds a live store’s card at the KOMOJU account it is routed to', async () => {
    const created = await cardCharge(sdkA);
    const charged = await poll(sdkA, storeA, created.id);
    expect(charged.status).toBe('successful');
    const payment = paymentOf(created.id);
    expect(payment).toMatchObject({ status: 'captured', amount: 1200, currency: 'JPY' });
    expect(fake.createdFor(created.id)).toBe(1);

    // the operator sees the account and KOMOJU's payment id; the merchant's API shows neither
    expect(await cli(['charge:processing', '--id', created.id])).toMatchObject({
      id: created.id,
      store_id: storeA,
      processor_account: { id: komoju.id, provider: 'komoju', status: 'active' },
      processor_reference: payment!.id,
    });
    const seen = JSON.stringify(await sdkA.charges.get(storeA, created.id));
    expect(seen).not.toContain(komoju.id);
    expect(seen).not.toContain(payment!.id);

    const refund: Any = await sdkA.refunds.create(storeA, created.id, {
      amount: 500,
      currency: 'JPY',
    });
    expect(((await sdkA.refunds.poll(storeA, created.id, refund.id)) as Any).status).toBe('successful');
    expect(paymentOf(created.id)).toMatchObject({ amount_refunded: 500 });
  });

  it('refuses a partial capture of a charge routed to KOMOJU at once, as KOMOJU cannot do it', async () => {
    const created = await cardCharge(sdkA, { capture: false });
    expect((await poll(sdkA, storeA, created.id)).status).toBe('authorized');
    const captures = fake.executed.capture;
    const res = await suite.gateway.as(liveA).request(`/stores/${storeA}/charges/${created.id}/capture`, {
      method: 'POST',
      json: { amount: 600, currency: 'JPY' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', code: 'PARTIAL_CAPTURE_NOT_SUPPORTED' });
    expect((await sdkA.charges.get(storeA, created.id)).status).toBe('authorized');
    expect(fake.executed.capture).toBe(captures);
  });

  it('leaves a second store of the same merchant, routed to the simulator, off KOMOJU', async () => {
    const executed = fake.executed.create;
    const created = await cardCharge(sdkB);
    expect((await poll(sdkB, storeB, created.id)).status).toBe('successful');
    expect(fake.createdFor(created.id)).toBe(0);
    expect(fake.executed.create).toBe(executed);
    expect(await cli(['charge:processing', '--id', created.id])).toMatchObject({
      processor_account: { id: simulatorAccount.id, provider: 'simulator' },
    });

    // no route for the payment type or mode: the mode's default, as before any route existed
    const testMode = await cardCharge(suite.sdk.shop);
    expect((await poll(suite.sdk.shop, storeA, testMode.id)).status).toBe('successful');
    expect(fake.createdFor(testMode.id)).toBe(0);
    expect(await cli(['charge:processing', '--id', testMode.id])).toMatchObject({ processor_account: null });
  });

  it('keeps a held charge on its account after the route moves and the credentials rotate, and captures it there', async () => {
    const created = await cardCharge(sdkA, { capture: false });
    expect((await poll(sdkA, storeA, created.id)).status).toBe('authorized');
    expect(paymentOf(created.id)?.status).toBe('authorized');

    // the store's cards now go to the simulator; KOMOJU's key is rolled and the old one refused
    await cli([
      'processor-route:set',
      '--store',
      storeA,
      '--mode',
      'live',
      '--payment-type',
      'card',
      '--account',
      simulatorAccount.id,
    ]);
    await cli(['processor-account:rotate', '--id', komoju.id], `${KEY_AFTER}\n${HOOK_AFTER}\n`);
    fake.secretKey = KEY_AFTER;
    fake.webhookSecret = HOOK_AFTER;

    const capture = await suite.gateway.as(liveA).request(`/stores/${storeA}/charges/${created.id}/capture`, {
      method: 'POST',
      json: { amount: 1200, currency: 'JPY' },
    });
    expect(capture.status).toBe(200);
    expect((await poll(sdkA, storeA, created.id, (c) => c.status !== 'authorized')).status).toBe(
      'successful',
    );
    expect(paymentOf(created.id)?.status).toBe('captured');

    const next = await cardCharge(sdkA);
    expect((await poll(sdkA, storeA, next.id)).status).toBe('successful');
    expect(fake.createdFor(next.id)).toBe(0);
    await cli([
      'processor-route:set',
      '--store',
      storeA,
      '--mode',
      'live',
      '--payment-type',
      'card',
      '--account',
      komoju.id,
    ]);
  });

  it('refuses at creation, by the route’s account, what its provider cannot take', async () => {
    // the deployment's live default (the simulator's protocol) takes all of it: only the routes refuse
    await cli([
      ...['processor-route:set', '--store', storeA, '--mode', 'live'],
      ...['--payment-type', 'online', '--account', komoju.id],
    ]);
    const executed = fake.executed.create;
    const refusal = { code: 'NOT_SUPPORTED_BY_PROCESSOR' };
    // a konbini chain KOMOJU does not take, an online brand it does not take (WeChat Pay), PayPay in
    // another currency than yen, a 3-D Secure KOMOJU cannot be asked for
    expect(await sdkError(konbini(sdkA, 'circle_k'))).toMatchObject({
      ...refusal,
      errors: [{ field: 'transaction_token_id', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    const weChat = await sdkOnlineToken(sdkA, OnlineBrand.WE_CHAT_ONLINE);
    expect(
      await sdkError(sdkA.charges.create({ transactionTokenId: weChat.id, amount: 1200, currency: 'JPY' })),
    ).toMatchObject({
      ...refusal,
      errors: [{ field: 'transaction_token_id', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    const payPay = await sdkOnlineToken(sdkA);
    expect(
      await sdkError(sdkA.charges.create({ transactionTokenId: payPay.id, amount: 1200, currency: 'USD' })),
    ).toMatchObject({ ...refusal, errors: [{ field: 'currency', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }] });
    expect(await sdkError(cardCharge(sdkA, { threeDs: { mode: 'require' } }))).toMatchObject({
      ...refusal,
      errors: [{ field: 'three_ds', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    expect(fake.executed.create).toBe(executed);

    // the second store's card route is the simulator's, which takes a required 3-D Secure, and its
    // konbini go to the live default: accepted
    expect((await cardCharge(sdkB, { threeDs: { mode: 'require' } })).id).toEqual(expect.any(String));
    expect((await konbini(sdkB, 'circle_k')).id).toEqual(expect.any(String));
    expect(fake.executed.create).toBe(executed);
  });

  it('refuses at creation what the route’s fallback cannot take, as what its account cannot (decision 0072)', async () => {
    // the second store's konbini go to the simulator's account, which takes every chain; with
    // KOMOJU as the fallback a failover could bring them there, so a chain KOMOJU lacks is refused
    const route = ['--store', storeB, '--mode', 'live', '--payment-type', 'konbini'];
    await cli(['processor-route:set', ...route, '--account', simulatorAccount.id, '--fallback', komoju.id]);
    expect(await sdkError(konbini(sdkB, 'circle_k'))).toMatchObject({
      code: 'NOT_SUPPORTED_BY_PROCESSOR',
      errors: [{ field: 'transaction_token_id', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    // a chain both take is accepted
    expect((await konbini(sdkB, 'lawson')).id).toEqual(expect.any(String));
    // the same route without its fallback takes the chain again
    await cli(['processor-route:set', ...route, '--account', simulatorAccount.id]);
    expect((await konbini(sdkB, 'circle_k')).id).toEqual(expect.any(String));
    await cli(['processor-route:clear', ...route]);
  });

  it('completes a routed konbini payment from the account’s webhook, verified with its secret', async () => {
    const token: Any = await sdkA.transactionTokens.create({
      paymentType: PaymentType.KONBINI,
      type: 'one_time',
      email: 'buyer@example.test',
      data: {
        customerName: 'Yamada Taro',
        convenienceStore: 'lawson',
        phoneNumber: { countryCode: '81', localNumber: '9012345678' },
      },
    } as Any);
    const created: Any = await sdkA.charges.create({
      transactionTokenId: token.id,
      amount: 3000,
      currency: 'JPY',
    });
    expect((await poll(sdkA, storeA, created.id)).status).toBe('awaiting');
    await fake.payKonbini(paymentOf(created.id)!.id);
    expect((await poll(sdkA, storeA, created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
    const delivery = fake.deliveries.find((d) => d.body.includes(paymentOf(created.id)!.id))!;
    expect(delivery.status).toBe(204);

    const post = (path: string, secret: string) =>
      suite.gateway.request(path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-komoju-signature': createHmac('sha256', secret).update(delivery.body).digest('hex'),
        },
        body: delivery.body,
      });
    const path = `/processor/komoju/webhooks/${komoju.id}`;
    expect((await post(path, HOOK_AFTER)).status).toBe(204);
    // the secret before the rotation, another account's path, or the deployment's path (no
    // KOMOJU_WEBHOOK_SECRET here): refused as bad credentials
    for (const [target, secret] of [
      [path, HOOK_BEFORE],
      [`/processor/komoju/webhooks/${simulatorAccount.id}`, HOOK_AFTER],
      ['/processor/komoju/webhooks/00000000-0000-4000-8000-000000000000', HOOK_AFTER],
      ['/processor/komoju/webhooks/nope', HOOK_AFTER],
      ['/processor/komoju/webhooks', HOOK_AFTER],
    ]) {
      const res = await post(target, secret);
      expect([target, res.status, res.body]).toEqual([
        target,
        401,
        expect.objectContaining({ status: 'error', code: 'INVALID_CREDENTIALS' }),
      ]);
    }
  });

  it('prefers a currency’s own route to the store’s `*` one, until it is cleared', async () => {
    const route = ['--store', storeA, '--mode', 'live', '--payment-type', 'card', '--currency', 'JPY'];
    await cli(['processor-route:set', ...route, '--account', simulatorAccount.id]);
    expect(await cli(['processor-route:list', '--store', storeA])).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ payment_type: 'card', currency: '*', processor_account_id: komoju.id }),
        expect.objectContaining({
          payment_type: 'card',
          currency: 'JPY',
          processor_account_id: simulatorAccount.id,
        }),
      ]),
    );
    const jpy = await cardCharge(sdkA);
    expect((await poll(sdkA, storeA, jpy.id)).status).toBe('successful');
    expect(fake.createdFor(jpy.id)).toBe(0);
    expect(await cli(['charge:processing', '--id', jpy.id])).toMatchObject({
      processor_account: { id: simulatorAccount.id },
    });

    expect(await cli(['processor-route:clear', ...route])).toMatchObject({ currency: 'JPY', cleared: true });
    await expect(cli(['processor-route:clear', ...route])).rejects.toThrow(/no such route/);
    const next = await cardCharge(sdkA);
    expect((await poll(sdkA, storeA, next.id)).status).toBe('successful');
    expect(fake.createdFor(next.id)).toBe(1);
  });

  it('verifies a Stripe account’s webhooks with its own signing secret on its path', async () => {
    const stripe = await cli(
      [
        'processor-account:create',
        '--merchant',
        suite.merchants.shop.merchant.id,
        '--provider',
        'stripe',
        '--mode',
        'live',
      ],
      'sk_live_routing_suite_stripe\nwhsec_routing_suite_stripe_secret\n',
    );
    // an event the charge path has no use for: acknowledged, nothing changes
    const body = JSON.stringify({
      id: 'evt_routing_suite',
      object: 'event',
      type: 'customer.created',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'cus_routing_suite', object: 'customer' } },
    });
    const post = (path: string, secret: string) => {
      const at = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', secret).update(`${at}.${body}`).digest('hex');
      return suite.gateway.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': `t=${at},v1=${signature}` },
        body,
      });
    };
    expect(
      (await post(`/processor/stripe/webhooks/${stripe.id}`, 'whsec_routing_suite_stripe_secret')).status,
    ).toBe(204);
    for (const [path, secret] of [
      [`/processor/stripe/webhooks/${stripe.id}`, 'whsec_another_signing_secret'],
      [`/processor/stripe/webhooks/${komoju.id}`, HOOK_AFTER],
      ['/processor/stripe/webhooks', 'whsec_routing_suite_stripe_secret'],
    ]) {
      expect([path, (await post(path, secret)).status]).toEqual([path, 401]);
    }
    SECRETS.push('sk_live_routing_suite_stripe', 'whsec_routing_suite_stripe_secret');
  });

  describe('a card token’s own checks (decision 0079)', () => {
    /** A recurring card token asking for a CVV authorization and/or 3-D Secure, through the store's SDK. */
    const checkedToken = (
      sdk: SDK,
      checks: { cvvAuthorize?: boolean; threeDs?: boolean },
      cardNumber = REAL_CARD_NUMBER,
    ) =>
      sdkCardToken(sdk, {
        cardNumber,
        type: 'recurring',
        extra: {
          ...(checks.threeDs ? { threeDs: { mode: 'normal' } } : {}),
          ...(checks.cvvAuthorize
            ? {
                data: {
                  cardholder: 'Taro Yamada',
                  cardNumber,
                  expMonth: 12,
                  expYear: new Date().getUTCFullYear() + 1,
                  cvv: '123',
                  cvvAuthorize: { enabled: true, currency: 'JPY' },
                },
              }
            : {}),
        },
      }) as Promise<Any>;
    const storedChecks = async (tokenId: string): Promise<Any> =>
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } })).data;
    const tokenOnceChecked = (sdk: SDK, storeId: string, tokenId: string) =>
      eventually(
        async () => {
          const token: Any = await sdk.transactionTokens.get(storeId, tokenId);
          const { cvvAuthorize, threeDs } = token.data;
          const cvvDone = !cvvAuthorize?.enabled || cvvAuthorize.status !== 'pending';
          const threeDsDone = !threeDs?.enabled || !['pending', 'awaiting'].includes(threeDs.status);
          return cvvDone && threeDsDone ? token : null;
        },
        { timeoutMs: 10_000, what: `token ${tokenId} checked` },
      );

    it('keep the account an attempt started at: completed there after the route moved; a new attempt refused', async () => {
      // test mode: the store's test cards routed to a test account of the simulator's protocol
      const merchant = suite.merchants.shop.merchant.id;
      const testSimulator = await cli(
        ['processor-account:create', '--merchant', merchant, '--provider', 'simulator', '--mode', 'test'],
        '',
      );
      const testKomoju = await cli(
        ['processor-account:create', '--merchant', merchant, '--provider', 'komoju', '--mode', 'test'],
        `${KEY_BEFORE}\n${HOOK_BEFORE}\n`,
      );
      const route = ['--store', storeA, '--mode', 'test', '--payment-type', 'card'];
      await cli(['processor-route:set', ...route, '--account', testSimulator.id]);
      const sdk = suite.sdk.shop;
      const threeDsToken = () =>
        sdkCardToken(sdk, {
          cardNumber: THREE_DS_CARD,
          type: 'recurring',
          extra: { threeDs: { mode: 'normal', redirectEndpoint: 'https://shop.example.test/3ds-done' } },
        }) as Promise<Any>;
      const awaiting = (id: string) =>
        eventually(
          async () => {
            const token: Any = await sdk.transactionTokens.get(storeA, id);
            return token.data.threeDs?.status === 'awaiting' ? token : null;
          },
          { timeoutMs: 10_000, what: `token ${id} awaiting` },
        );
      const complete = async (id: string, result: 'authenticated' | 'failed') => {
        const issuer: Any = await sdk.transactionTokens.threeDsIssuerToken(storeA, id);
        const answer = await fetch(issuer.issuerToken, {
          method: 'POST',
          body: new URLSearchParams({ ...(issuer.payload ?? {}), result }),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          redirect: 'manual',
        });
        expect(answer.status).toBeLessThan(400);
      };
      const first = await threeDsToken();
      const second = await threeDsToken();
      await awaiting(first.id);
      await awaiting(second.id);

      // the store's cards now go to KOMOJU, which cannot take a token's 3-D Secure
      await cli(['processor-route:set', ...route, '--account', testKomoju.id]);
      const executed = fake.executed.create;
      await complete(first.id, 'authenticated');
      await complete(second.id, 'failed');
      const done = await tokenOnceChecked(sdk, storeA, first.id);
      expect(done.data.threeDs).toMatchObject({ status: 'successful' });
      expect((await tokenOnceChecked(sdk, storeA, second.id)).data.threeDs).toMatchObject({
        status: 'failed',
      });
      // the hold was looked up and voided where it was made, never at KOMOJU
      const reference = `${first.id}.three_ds.1`;
      expect(operationStats(suite.simulator.stats(), 'void', `${reference}.void`).executions).toBe(1);
      expect(fake.executed.create).toBe(executed);
      expect(await cli(['token:processing', '--id', first.id])).toMatchObject({
        three_ds: { status: 'successful', processor_account: { id: testSimulator.id } },
      });

      // a new attempt goes where the cards now go: refused, before anything is written or sent
      expect(await sdkError(sdk.transactionTokens.enableThreeDs(storeA, second.id))).toMatchObject({
        code: 'NOT_SUPPORTED_BY_PROCESSOR',
        errors: [{ field: 'three_ds', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
      });
      expect(((await sdk.transactionTokens.get(storeA, second.id)) as Any).data.threeDs).toMatchObject({
        status: 'failed',
      });
      expect(await sdkError(threeDsToken())).toMatchObject({ code: 'NOT_SUPPORTED_BY_PROCESSOR' });
      expect(fake.executed.create).toBe(executed);
      await cli(['processor-route:clear', ...route]);
    });

    it('are refused at creation for a store whose cards go to KOMOJU, and nothing is sent there', async () => {
      const executed = fake.executed.create;
      const refused = (field: string) => ({
        code: 'NOT_SUPPORTED_BY_PROCESSOR',
        errors: [{ field, reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
      });
      expect(await sdkError(checkedToken(sdkA, { cvvAuthorize: true }))).toMatchObject(
        refused('data.cvv_authorize'),
      );
      expect(await sdkError(checkedToken(sdkA, { threeDs: true }))).toMatchObject(refused('three_ds'));
      expect(fake.executed.create).toBe(executed);
      // a token asking for neither is made as ever
      expect((await checkedToken(sdkA, {})).id).toEqual(expect.any(String));
    });

    it('go to the account the store’s cards go to, recorded on the token, voided there', async () => {
      const executed = fake.executed.create;
      const token = await checkedToken(sdkB, { cvvAuthorize: true, threeDs: true });
      const checked = await tokenOnceChecked(sdkB, storeB, token.id);
      expect(checked.data.cvvAuthorize).toMatchObject({
        enabled: true,
        status: 'current',
        credentialsId: null,
      });
      expect(checked.data.threeDs).toMatchObject({ enabled: true, status: 'successful' });
      // each hold was made once at the simulator's protocol and voided there; none at KOMOJU
      const stats = suite.simulator.stats();
      for (const reference of [`${token.id}.cvv_authorize.1`, `${token.id}.three_ds.1`]) {
        expect(operationStats(stats, 'authorize', reference).executions).toBe(1);
        expect(operationStats(stats, 'void', `${reference}.void`).executions).toBe(1);
      }
      expect(fake.executed.create).toBe(executed);
      // the account is the token's record, the operator's, never the merchant's API's
      expect(await storedChecks(token.id)).toMatchObject({
        cvv_authorize: { processor_account_id: simulatorAccount.id },
        three_ds: { processor_account_id: simulatorAccount.id },
      });
      const account = { id: simulatorAccount.id, provider: 'simulator', status: 'active' };
      expect(await cli(['token:processing', '--id', token.id])).toMatchObject({
        id: token.id,
        store_id: storeB,
        three_ds: { status: 'successful', attempt: 1, processor_account: account },
        cvv_authorize: { status: 'current', attempt: 1, processor_account: account },
      });
      expect(JSON.stringify(await sdkB.transactionTokens.get(storeB, token.id))).not.toContain(
        simulatorAccount.id,
      );

      // a store without a card route keeps the mode's default: the test-mode simulator
      const testMode = await checkedToken(suite.sdk.shop, { cvvAuthorize: true }, APPROVED_TEST_CARD);
      expect((await tokenOnceChecked(suite.sdk.shop, storeA, testMode.id)).data.cvvAuthorize.status).toBe(
        'current',
      );
      expect(await storedChecks(testMode.id)).toMatchObject({
        cvv_authorize: { processor_account_id: null },
      });
      expect(await cli(['token:processing', '--id', testMode.id])).toMatchObject({
        three_ds: null,
        cvv_authorize: { status: 'current', processor_account: null },
      });
    });
  });

  it('disabling the account sends the store’s new charges to the mode’s default', async () => {
    await cli(['processor-account:disable', '--id', komoju.id]);
    const created = await cardCharge(sdkA);
    expect((await poll(sdkA, storeA, created.id)).status).toBe('successful');
    expect(fake.createdFor(created.id)).toBe(0);
    expect(await cli(['charge:processing', '--id', created.id])).toMatchObject({ processor_account: null });
    await expect(
      cli([
        'processor-route:set',
        '--store',
        storeB,
        '--mode',
        'live',
        '--payment-type',
        'card',
        '--account',
        komoju.id,
      ]),
    ).rejects.toThrow(/disabled/);
  });

  describe('the credentials at rest', () => {
    it('are nowhere in the database in plaintext, nor in the workers’ logs', async () => {
      const tables: { name: string }[] = await suite.env.prisma.$queryRawUnsafe(
        `SELECT table_name::text AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
      );
      expect(tables.map((t) => t.name)).toContain('processor_accounts');
      for (const { name } of tables) {
        const rows: { row: string }[] = await suite.env.prisma.$queryRawUnsafe(
          `SELECT t::text AS row FROM "${name}" t`,
        );
        const text = rows.map((r) => r.row).join('\n');
        for (const secret of SECRETS) {
          expect([name, text.includes(secret)]).toEqual([name, false]);
          expect([name, text.includes(Buffer.from(secret).toString('hex'))]).toEqual([name, false]);
        }
      }
      const logs = suite.workers.map((worker) => worker.app.lines.join('\n')).join('\n');
      expect(logs).toContain('charge processed');
      expect(luhnValidRuns(logs)).toEqual([]);
      for (const secret of SECRETS) expect(logs).not.toContain(secret);
      expect(logs).not.toContain(Buffer.from(`${KEY_AFTER}:`).toString('base64'));
    });
  });
});
