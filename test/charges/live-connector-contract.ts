// One scenario table for live-mode charges on a hosted processor (KOMOJU, Stripe) through the
// official univapay-node SDK: the real gateway, charge-service and refund-cancel-service processes,
// BullMQ, Postgres, Redis, and the provider's fake over HTTP (libs/testing: the only fake, the
// provider itself). Each connector's e2e spec calls describeLiveConnector with its entry: a third
// connector gets every scenario by one more entry.
import type SDK from 'univapay-node';
import { type OnlineBrand, PaymentType } from 'univapay-node';
import {
  type Credentials,
  eventually,
  luhnValidRuns,
  outboxEventsOf,
  REAL_CARD_NUMBER,
  sdkCardToken,
  sdkError,
  sdkFor,
  sdkOnlineToken,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

type Any = any;

/** The provider's record of a charge's payment, in the port's words. */
export interface ProviderPayment {
  status: 'captured' | 'authorized' | 'voided' | 'declined' | 'pending';
  amount: number;
  /** upper case */
  currency: string;
  capturedAmount: number;
  refundedAmount: number;
}

/** A webhook the fake delivered: its body and the gateway's answer. */
export interface ProviderDelivery {
  body: string;
  status: number | null;
}

export interface LiveConnector<F> {
  /** KOMOJU, Stripe: in the tests' names */
  name: string;
  start(): Promise<F>;
  close(fake: F): Promise<void>;
  /** the gateway's and workers' variables for this connector (PROCESSOR_LIVE, its URL and secrets) */
  variables(fake: F): Record<string, string>;
  /** where the provider's webhooks go on the gateway */
  webhookPath: string;
  /** undefined: the provider sends no webhooks (they never arrive) */
  setWebhookUrl(fake: F, url: string | undefined): void;
  /** what no log line may carry */
  secrets: string[];
  payment(fake: F, chargeId: string): ProviderPayment | undefined;
  /** payments the provider executed under the charge's reference */
  createdFor(fake: F, chargeId: string): number;
  /** POSTs creating a payment that carried the charge id as their idempotency key */
  creationAttempts(fake: F, chargeId: string): number;
  executed(fake: F): { create: number; capture: number };
  failNext(fake: F): void;
  /** the next `count` (1) answers are sent `ms` late, their requests executed at once */
  delayNext(fake: F, ms: number, count?: number): void;
  /** test cards the provider declines, with the SDK code and message the charge fails with */
  declines: readonly (readonly [string, number, string])[];
  /** whether a declined card leaves a payment at the provider (Stripe's unpaid PaymentIntent) */
  declinesKeepPayment: boolean;
  partialCapture: boolean;
  threeDs: {
    /** a card the provider asks to authenticate */
    card: string;
    /** whether a charge may ask for 3-D Secure itself (mode require) */
    requests: boolean;
    authentications(fake: F, chargeId: string): number;
  };
  konbini: {
    /** checks the provider's konbini payment as created (its store, the customer's email…) */
    expectCreated(fake: F, chargeId: string): void;
    pay(fake: F, chargeId: string): Promise<void> | void;
    /** the delivery that told the gateway the konbini was paid */
    paidDelivery(fake: F, chargeId: string): ProviderDelivery | undefined;
    /** the headers of the same delivery signed again now, as the provider redelivers */
    resigned(body: string): Record<string, string>;
  };
  /** null: the provider takes no bank transfer, refused at creation */
  bankTransfer: {
    /** the virtual account the provider gave the charge's payment, in the SDK token's words */
    account(fake: F, chargeId: string): Record<string, string>;
    /** a transfer of `amount` arrives in it: the provider's signed notice follows */
    deposit(fake: F, chargeId: string, amount: number): Promise<void> | void;
    /** whether a transfer of less than the amount is applied (and noticed) as it arrives */
    partialFunding: boolean;
    /** the provider's deliveries about the charge's payment being funded, oldest first */
    fundedDeliveries(fake: F, chargeId: string): ProviderDelivery[];
  } | null;
  /** null: the provider takes no online payment, refused at creation */
  online: {
    /** an online brand it takes, paid on its page (the issuer token): POST result=authenticated pays, failed refuses */
    brand: OnlineBrand;
    /** an online brand it does not take, refused at creation */
    refusedBrand: OnlineBrand;
    /** nobody paid in time: the provider expires the payment and says so by its signed webhook */
    expire(fake: F, chargeId: string): Promise<void> | void;
    /** the delivery that told the gateway the online payment was paid */
    paidDelivery(fake: F, chargeId: string): ProviderDelivery | undefined;
  } | null;
  deliveries(fake: F): ProviderDelivery[];
  /** headers of a delivery signed with another secret */
  forged(body: string): Record<string, string>;
}

const REDIRECT_ENDPOINT = 'https://shop.example.test/back';

export function describeLiveConnector<F>(connector: LiveConnector<F>): void {
  let fake: F;
  // before the suite's own hooks: the processes are started with the fake's URL
  beforeAll(async () => {
    fake = await connector.start();
  });
  afterAll(() => (fake ? connector.close(fake) : undefined));

  const suite = useSuite({
    variables: () => ({ ...connector.variables(fake), CHARGE_POLLING_MAX_WAIT_MS: '2000' }),
    gateway: createGatewayApp,
    merchants: { shop: { pci: true } },
    workers: ['charge-service', 'refund-cancel-service'],
    // the customer's browser comes back from 3-D Secure to the gateway (PUBLIC_BASE_URL)
    callbacks: true,
    workerVariables: {
      PROCESSOR_TIMEOUT_MS: '2000',
      CHARGE_SWEEP_INTERVAL_MS: '200',
      // a killed charge-service's jobs are taken over within seconds (the crash scenario)
      CHARGE_JOB_LOCK_MS: '1000',
      LOG_LEVEL: 'trace',
    },
  });

  let live: Credentials;
  let sdk: SDK;
  beforeAll(async () => {
    connector.setWebhookUrl(fake, `${suite.url}${connector.webhookPath}`);
    live = await suite.env.liveStoreToken(suite.merchants.shop);
    sdk = sdkFor(suite.url, live);
  });

  const storeId = () => suite.merchants.shop.store.id;
  const poll = (id: string, until?: (charge: Any) => boolean) =>
    sdk.charges.poll(
      storeId(),
      id,
      undefined,
      undefined,
      until ? { successCondition: until } : undefined,
    ) as Promise<Any>;
  const cardCharge = async (cardNumber: string, extra: Record<string, unknown> = {}) => {
    const token = await sdkCardToken(sdk, { cardNumber });
    const params: Any = { transactionTokenId: token.id, amount: 1200, currency: 'JPY', ...extra };
    return sdk.charges.create(params) as Promise<Any>;
  };
  const capture = (chargeId: string, amount: number) =>
    suite.gateway.as(live).request(`/stores/${storeId()}/charges/${chargeId}/capture`, {
      method: 'POST',
      json: { amount, currency: 'JPY' },
    });
  const payment = (chargeId: string) => connector.payment(fake, chargeId);
  /** A one-time token of `paymentType` with `data`. */
  const deferredToken = (paymentType: PaymentType, data: Record<string, unknown>): Promise<Any> =>
    sdk.transactionTokens.create({ paymentType, type: 'one_time', email: 'buyer@example.test', data } as Any);
  /** A charge of 3000 on the token. */
  const chargeOf = (token: Any): Promise<Any> =>
    sdk.charges.create({ transactionTokenId: token.id, amount: 3000, currency: 'JPY' });
  /**
   * The delivery that paid a charge of 3000 was acknowledged; the provider redelivers it as it was,
   * signed anew: acknowledged, nothing moves twice.
   */
  const paidOnceOnRedelivery = async (chargeId: string, delivery: ProviderDelivery) => {
    expect(delivery.status).toBe(204);
    const again = await suite.gateway.request(connector.webhookPath, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...connector.konbini.resigned(delivery.body) },
      body: delivery.body,
    });
    expect(again.status).toBe(204);
    expect(await sdk.charges.get(storeId(), chargeId)).toMatchObject({
      status: 'successful',
      chargedAmount: 3000,
    });
  };

  describe(`live charges on ${connector.name}`, () => {
    it(`charges a card once at ${connector.name}, our charge id its idempotency key and reference`, async () => {
      const created = await cardCharge(REAL_CARD_NUMBER);
      expect((await poll(created.id)).status).toBe('successful');
      expect(payment(created.id)).toMatchObject({
        status: 'captured',
        amount: 1200,
        currency: 'JPY',
        capturedAmount: 1200,
      });
      expect(connector.createdFor(fake, created.id)).toBe(1);
      expect(connector.creationAttempts(fake, created.id)).toBe(1);
    });

    it(`holds a card, then captures it at ${connector.name}`, async () => {
      const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
      expect((await poll(created.id)).status).toBe('authorized');
      expect(payment(created.id)?.status).toBe('authorized');
      expect((await capture(created.id, 1200)).status).toBe(200);
      expect((await poll(created.id, (c) => c.status !== 'authorized')).status).toBe('successful');
      expect(payment(created.id)).toMatchObject({ status: 'captured', capturedAmount: 1200 });
    });

    if (connector.partialCapture) {
      it(`captures part of a held card at ${connector.name}`, async () => {
        const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
        expect((await poll(created.id)).status).toBe('authorized');
        expect((await capture(created.id, 600)).status).toBe(200);
        const done = await poll(created.id, (c) => c.status !== 'authorized');
        expect(done).toMatchObject({ status: 'successful', chargedAmount: 600 });
        expect(payment(created.id)).toMatchObject({ status: 'captured', capturedAmount: 600 });
      });
    } else {
      it(`refuses a partial capture with PARTIAL_CAPTURE_NOT_SUPPORTED, never sending it to ${connector.name}`, async () => {
        const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
        expect((await poll(created.id)).status).toBe('authorized');
        const captures = connector.executed(fake).capture;
        const res = await capture(created.id, 600);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 'error', code: 'PARTIAL_CAPTURE_NOT_SUPPORTED' });
        expect((await sdk.charges.get(storeId(), created.id)).status).toBe('authorized');
        expect(connector.executed(fake).capture).toBe(captures);
      });
    }

    it(`cancels a held card: the payment is voided at ${connector.name}`, async () => {
      const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
      expect((await poll(created.id)).status).toBe('authorized');
      const cancel: Any = await sdk.cancels.create(storeId(), created.id, {});
      const done: Any = await sdk.cancels.poll(storeId(), created.id, cancel.id);
      expect(done.status).toBe('successful');
      expect((await poll(created.id, (c) => c.status !== 'authorized')).status).toBe('canceled');
      expect(payment(created.id)?.status).toBe('voided');
    });

    it(`refunds part of a charge at ${connector.name}`, async () => {
      const created = await cardCharge(REAL_CARD_NUMBER);
      expect((await poll(created.id)).status).toBe('successful');
      const refund: Any = await sdk.refunds.create(storeId(), created.id, { amount: 500, currency: 'JPY' });
      const done: Any = await sdk.refunds.poll(storeId(), created.id, refund.id);
      expect(done.status).toBe('successful');
      expect(payment(created.id)).toMatchObject({ status: 'captured', refundedAmount: 500 });
    });

    it.each(connector.declines)(
      `fails the declined card %s with the SDK code of ${connector.name}’s decline`,
      async (number, code, message) => {
        const created = await cardCharge(number);
        const done = await poll(created.id);
        expect(done.status).toBe('failed');
        expect(done.error).toMatchObject({ code, message });
        expect(payment(created.id)?.status).toBe(connector.declinesKeepPayment ? 'declined' : undefined);
      },
    );

    const refusedOnline = connector.online ? `an online brand it does not take` : 'an online payment';
    const refusedAtCreation = connector.threeDs.requests
      ? refusedOnline
      : `${refusedOnline}, a required 3-D Secure`;
    it(`refuses at creation what ${connector.name} cannot take: ${refusedAtCreation}`, async () => {
      const created = connector.executed(fake).create;
      const online = await sdkOnlineToken(sdk, connector.online?.refusedBrand);
      const refused = await sdkError(
        sdk.charges.create({ transactionTokenId: online.id, amount: 1200, currency: 'JPY' }),
      );
      expect(refused).toMatchObject({ code: 'NOT_SUPPORTED_BY_PROCESSOR' });
      if (!connector.threeDs.requests) {
        const card = await sdkCardToken(sdk, { cardNumber: REAL_CARD_NUMBER });
        const threeDs = await sdkError(
          sdk.charges.create({
            transactionTokenId: card.id,
            amount: 1200,
            currency: 'JPY',
            threeDs: { mode: 'require', redirectEndpoint: REDIRECT_ENDPOINT },
          } as Any),
        );
        expect(threeDs).toMatchObject({ code: 'NOT_SUPPORTED_BY_PROCESSOR' });
      }
      expect(connector.executed(fake).create).toBe(created);
    });

    it(`refuses a card token’s own 3-D Secure and CVV authorization at creation: ${connector.name}, the live default, cannot hold them`, async () => {
      // decision 0079: each is a hold of 1, voided, which goes to the store's card account (here the
      // live default) or nowhere
      const created = connector.executed(fake).create;
      const refusedOn = (field: string) => ({
        code: 'NOT_SUPPORTED_BY_PROCESSOR',
        errors: [{ field, reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
      });
      const checked = (extra: Record<string, unknown>) =>
        sdkCardToken(sdk, { cardNumber: REAL_CARD_NUMBER, type: 'recurring', extra });
      expect(
        await sdkError(checked({ threeDs: { mode: 'normal', redirectEndpoint: REDIRECT_ENDPOINT } })),
      ).toMatchObject(refusedOn('three_ds'));
      const card = {
        cardholder: 'Taro Yamada',
        cardNumber: REAL_CARD_NUMBER,
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 1,
        cvv: '123',
        cvvAuthorize: { enabled: true, currency: 'JPY' },
      };
      expect(await sdkError(checked({ data: card }))).toMatchObject(refusedOn('data.cvv_authorize'));
      expect(connector.executed(fake).create).toBe(created);
    });

    it(`retries a ${connector.name} outage with the same key: one payment`, async () => {
      connector.failNext(fake);
      const created = await cardCharge(REAL_CARD_NUMBER);
      expect((await poll(created.id)).status).toBe('successful');
      expect(connector.creationAttempts(fake, created.id)).toBeGreaterThanOrEqual(2);
      expect(connector.createdFor(fake, created.id)).toBe(1);
    });

    it(`answers a ${connector.name} that replies after the worker gave up: the retry gets the replay, one payment`, async () => {
      // executed at once, answered after three times the workers' PROCESSOR_TIMEOUT_MS
      connector.delayNext(fake, 6_000);
      const created = await cardCharge(REAL_CARD_NUMBER);
      expect((await poll(created.id)).status).toBe('successful');
      expect(connector.creationAttempts(fake, created.id)).toBeGreaterThanOrEqual(2);
      expect(connector.createdFor(fake, created.id)).toBe(1);
      expect(payment(created.id)).toMatchObject({ status: 'captured', capturedAmount: 1200 });
    });

    it(`completes a konbini payment when ${connector.name}’s signed webhook says it was paid, once on a redelivery`, async () => {
      const token = await deferredToken(PaymentType.KONBINI, {
        customerName: 'Yamada Taro',
        convenienceStore: 'lawson',
        phoneNumber: { countryCode: '81', localNumber: '9012345678' },
      });
      const created = await chargeOf(token);
      expect((await poll(created.id)).status).toBe('awaiting');
      expect(payment(created.id)?.status).toBe('pending');
      connector.konbini.expectCreated(fake, created.id);
      await connector.konbini.pay(fake, created.id);
      expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
      await paidOnceOnRedelivery(created.id, connector.konbini.paidDelivery(fake, created.id)!);
    });

    const bankTransfer = connector.bankTransfer;
    if (bankTransfer) {
      it(`gives ${connector.name}’s virtual account on the SDK's token; paid by its signed notice, once on a redelivery`, async () => {
        const token = await deferredToken(PaymentType.BANK_TRANSFER, { brand: 'aozora_bank' });
        const created = await chargeOf(token);
        expect((await poll(created.id)).status).toBe('awaiting');
        expect(payment(created.id)?.status).toBe('pending');
        // the account reaches the token's fields as the simulator's does
        const withAccount: Any = await sdk.transactionTokens.get(storeId(), token.id);
        expect(withAccount.data).toEqual({ brand: 'aozora_bank', ...bankTransfer.account(fake, created.id) });
        if (bankTransfer.partialFunding) {
          // less than the amount: the store's rule (exact) is not met, the charge waits for the rest
          await bankTransfer.deposit(fake, created.id, 1000);
          await eventually(() => {
            expect(bankTransfer.fundedDeliveries(fake, created.id).map((d) => d.status)).toEqual([204]);
            return true;
          });
          // charge-service read the transfer from the provider: recorded, unmatched
          const first = await eventually(
            () => suite.env.prisma.chargeDeposit.findFirst({ where: { chargeId: created.id } }),
            { what: 'the first transfer recorded' },
          );
          expect(first).toMatchObject({ amount: 1000n, matched: false });
          expect((await sdk.charges.get(storeId(), created.id)).status).toBe('awaiting');
          await bankTransfer.deposit(fake, created.id, 2000);
        } else {
          await bankTransfer.deposit(fake, created.id, 3000);
        }
        expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
        await paidOnceOnRedelivery(created.id, bankTransfer.fundedDeliveries(fake, created.id).at(-1)!);
        expect(connector.createdFor(fake, created.id)).toBe(1);
        const deposits = await suite.env.prisma.chargeDeposit.findMany({
          where: { chargeId: created.id },
          orderBy: { receivedOn: 'asc' },
        });
        const amounts = bankTransfer.partialFunding ? [1000n, 2000n] : [3000n];
        expect(deposits.map((deposit) => deposit.amount).sort()).toEqual(amounts.sort());
      });
    } else {
      it(`refuses a bank transfer at creation: ${connector.name} takes none here`, async () => {
        const created = connector.executed(fake).create;
        const refused = await sdkError(
          chargeOf(await deferredToken(PaymentType.BANK_TRANSFER, { brand: 'aozora_bank' })),
        );
        expect(refused).toMatchObject({ code: 'NOT_SUPPORTED_BY_PROCESSOR' });
        expect(connector.executed(fake).create).toBe(created);
      });
    }

    it(`acknowledges ${connector.name}’s signed webhooks, and refuses one signed with another secret`, async () => {
      const delivered = connector.deliveries(fake).filter((d) => d.status !== null);
      expect(delivered.length).toBeGreaterThan(0);
      expect(new Set(delivered.map((d) => d.status))).toEqual(new Set([204]));
      const body = connector.deliveries(fake)[0].body;
      const res = await suite.gateway.request(connector.webhookPath, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...connector.forged(body) },
        body,
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ status: 'error', code: 'INVALID_CREDENTIALS' });
    });
  });

  describe(`3-D Secure on ${connector.name}`, () => {
    /** The customer at the provider's page, then back through our return route: where the browser lands. */
    const authenticate = async (chargeId: string, result: 'authenticated' | 'failed') => {
      const issuer: Any = await sdk.charges.threeDsIssuerToken(storeId(), chargeId);
      expect(issuer).toMatchObject({ callMethod: 'http_get', paymentType: 'card' });
      const atProvider = await fetch(issuer.issuerToken, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ result }).toString(),
        redirect: 'manual',
      });
      await atProvider.text();
      expect(atProvider.status).toBe(302);
      const returnUrl = atProvider.headers.get('location')!;
      expect(returnUrl.startsWith(`${suite.url}/processor/three_ds/return/${chargeId}`)).toBe(true);
      const back = await fetch(returnUrl, { redirect: 'manual' });
      await back.text();
      return { returnUrl, status: back.status, location: back.headers.get('location') };
    };
    const finishedEvents = async (chargeId: string) =>
      (await outboxEventsOf(suite.env, chargeId)).filter((e) => e.eventType === 'charge_finished').length;

    it.each([
      [true, 'successful', 'captured'],
      [false, 'authorized', 'authorized'],
    ] as const)(
      'capture %s: redirected to the provider, back through our return route to the merchant, %s once',
      async (captureNow, status, providerStatus) => {
        const created = await cardCharge(connector.threeDs.card, {
          capture: captureNow,
          threeDs: { mode: 'normal', redirectEndpoint: REDIRECT_ENDPOINT },
        });
        expect((await poll(created.id)).status).toBe('awaiting');
        expect(payment(created.id)?.status).toBe('pending');
        const back = await authenticate(created.id, 'authenticated');
        expect(back).toMatchObject({ status: 303, location: REDIRECT_ENDPOINT });
        const done = await poll(created.id, (c) => c.status !== 'awaiting');
        expect(done.status).toBe(status);
        expect(payment(created.id)?.status).toBe(providerStatus);
        // the browser's return again, and the provider's webhook again: nothing moves twice
        const again = await fetch(back.returnUrl, { redirect: 'manual' });
        await again.text();
        expect(again.status).toBe(303);
        expect((await sdk.charges.get(storeId(), created.id)).status).toBe(status);
        expect(connector.threeDs.authentications(fake, created.id)).toBe(1);
        expect(connector.createdFor(fake, created.id)).toBe(1);
        if (captureNow) expect(await finishedEvents(created.id)).toBe(1);
      },
    );

    it('a failed authentication fails the charge THREE_DS_COULD_NOT_BE_COMPLETED', async () => {
      const created = await cardCharge(connector.threeDs.card, {
        threeDs: { mode: 'normal', redirectEndpoint: REDIRECT_ENDPOINT },
      });
      expect((await poll(created.id)).status).toBe('awaiting');
      expect(await authenticate(created.id, 'failed')).toMatchObject({ status: 303 });
      const done = await poll(created.id, (c) => c.status !== 'awaiting');
      expect(done).toMatchObject({ status: 'failed', error: { code: 358 } });
      expect(await finishedEvents(created.id)).toBe(1);
    });

    it('the provider’s signed notice alone finishes it: a customer who never comes back', async () => {
      const created = await cardCharge(connector.threeDs.card);
      expect((await poll(created.id)).status).toBe('awaiting');
      const issuer: Any = await sdk.charges.threeDsIssuerToken(storeId(), created.id);
      const atProvider = await fetch(issuer.issuerToken, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'result=authenticated',
        redirect: 'manual',
      });
      await atProvider.text();
      expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
      // a return without a redirect endpoint on the charge: a page of its own
      const back = await fetch(atProvider.headers.get('location')!);
      expect(back.status).toBe(200);
      expect(await back.text()).toContain('Authentication finished');
    });

    it('the customer’s return alone finishes it: a webhook that never arrives', async () => {
      const created = await cardCharge(connector.threeDs.card, {
        threeDs: { mode: 'normal', redirectEndpoint: REDIRECT_ENDPOINT },
      });
      expect((await poll(created.id)).status).toBe('awaiting');
      connector.setWebhookUrl(fake, undefined);
      try {
        expect(await authenticate(created.id, 'authenticated')).toMatchObject({ status: 303 });
        expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
      } finally {
        connector.setWebhookUrl(fake, `${suite.url}${connector.webhookPath}`);
      }
    });

    if (connector.threeDs.requests) {
      it('a charge asking for 3-D Secure (mode require) sends an ordinary card to authenticate', async () => {
        const created = await cardCharge(REAL_CARD_NUMBER, {
          threeDs: { mode: 'require', redirectEndpoint: REDIRECT_ENDPOINT },
        });
        expect((await poll(created.id)).status).toBe('awaiting');
        expect(await authenticate(created.id, 'authenticated')).toMatchObject({
          location: REDIRECT_ENDPOINT,
        });
        expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
      });
    }

    it('answers 404 for a return naming no charge of ours', async () => {
      for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        const res = await fetch(`${suite.url}/processor/three_ds/return/${id}`, { redirect: 'manual' });
        expect(res.status).toBe(404);
        await res.text();
      }
    });
  });

  describe(`charge-service killed during ${connector.name} calls`, () => {
    it(`kill -9 with payments executed at ${connector.name} and their answers on the way: each payment once, every charge successful`, async () => {
      const COUNT = 6;
      const before = connector.executed(fake).create;
      // executed at once, answered after the kill: the dead worker never learns the outcome
      connector.delayNext(fake, 1_500, COUNT);
      const charges: Any[] = [];
      for (let i = 0; i < COUNT; i++) charges.push(await cardCharge(REAL_CARD_NUMBER));
      await eventually(() => connector.createdFor(fake, charges[0].id) === 1, {
        timeoutMs: 60_000,
        intervalMs: 5,
        what: `the first payment executed at ${connector.name}`,
      });
      const chargeService = suite.workers[0].app;
      expect(await chargeService.stop('SIGKILL')).toBeNull();
      await suite.startWorker('charge-service');

      for (const charge of charges) {
        expect((await poll(charge.id)).status).toBe('successful');
        expect(connector.createdFor(fake, charge.id)).toBe(1);
        expect(payment(charge.id)).toMatchObject({ status: 'captured', capturedAmount: 1200 });
      }
      expect(connector.executed(fake).create - before).toBe(COUNT);
    }, 120_000); // a worker killed and one booted from source: slower than the default on a busy machine
  });

  const online = connector.online;
  if (online) {
    describe(`online payments on ${connector.name}`, () => {
      /** An awaiting online charge of 3000 whose customer comes back to REDIRECT_ENDPOINT. */
      const awaitingOnline = async () => {
        const token = await sdkOnlineToken(sdk, online.brand);
        const created: Any = await sdk.charges.create({
          transactionTokenId: token.id,
          amount: 3000,
          currency: 'JPY',
          redirect: { endpoint: REDIRECT_ENDPOINT },
        });
        expect((await poll(created.id)).status).toBe('awaiting');
        expect(payment(created.id)?.status).toBe('pending');
        return created as { id: string };
      };
      /** The customer at the provider's page (the charge's issuer token): where the browser is sent next. */
      const atProvider = async (chargeId: string, result: 'authenticated' | 'failed') => {
        const issuer: Any = await sdk.charges.getIssuerToken(storeId(), chargeId);
        const page = await fetch(issuer.issuerToken, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ result }).toString(),
          redirect: 'manual',
        });
        await page.text();
        expect(page.status).toBe(302);
        return page.headers.get('location');
      };
      const finishedEvents = async (chargeId: string) =>
        (await outboxEventsOf(suite.env, chargeId)).filter((e) => e.eventType === 'charge_finished').length;
      const pay = async (chargeId: string) => {
        expect(await atProvider(chargeId, 'authenticated')).toBe(REDIRECT_ENDPOINT);
        const done = await poll(chargeId, (c) => c.status !== 'awaiting');
        expect(done).toMatchObject({ status: 'successful', chargedAmount: 3000 });
      };

      it(`awaits with ${connector.name}’s page as the issuer token; paid there, successful by the signed webhook, once on a redelivery`, async () => {
        const created = await awaitingOnline();
        const issuer: Any = await sdk.charges.getIssuerToken(storeId(), created.id);
        expect(issuer).toMatchObject({
          issuerToken: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
          callMethod: 'http_get',
          paymentType: 'online',
        });
        const page = await fetch(issuer.issuerToken);
        expect(page.status).toBe(200);
        await page.text();
        await pay(created.id);
        expect(payment(created.id)).toMatchObject({ status: 'captured', capturedAmount: 3000 });
        await paidOnceOnRedelivery(created.id, online.paidDelivery(fake, created.id)!);
        // the customer on the page again (the charge has no issuer token once paid): nothing more
        // happens there or here
        const again = await fetch(issuer.issuerToken, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'result=authenticated',
          redirect: 'manual',
        });
        await again.text();
        expect(again.headers.get('location')).toBe(REDIRECT_ENDPOINT);
        expect(await finishedEvents(created.id)).toBe(1);
        expect(connector.createdFor(fake, created.id)).toBe(1);
        expect(connector.creationAttempts(fake, created.id)).toBe(1);
      });

      it(`fails PAYMENT_WALLET_REJECTED when the wallet refuses it at ${connector.name}`, async () => {
        const created = await awaitingOnline();
        await atProvider(created.id, 'failed');
        const done = await poll(created.id, (c) => c.status !== 'awaiting');
        expect(done).toMatchObject({ status: 'failed', error: { code: 340 } });
        expect(await finishedEvents(created.id)).toBe(1);
      });

      it(`fails CONFIRMATION_PERIOD_EXPIRED when ${connector.name} expires it unpaid`, async () => {
        const created = await awaitingOnline();
        await online.expire(fake, created.id);
        const done = await poll(created.id, (c) => c.status !== 'awaiting');
        expect(done).toMatchObject({ status: 'failed', error: { code: 327 } });
        expect(await finishedEvents(created.id)).toBe(1);
      });

      it(`refunds part of a paid online payment at ${connector.name}`, async () => {
        const created = await awaitingOnline();
        await pay(created.id);
        const refund: Any = await sdk.refunds.create(storeId(), created.id, { amount: 500, currency: 'JPY' });
        const done: Any = await sdk.refunds.poll(storeId(), created.id, refund.id);
        expect(done.status).toBe('successful');
        expect(payment(created.id)).toMatchObject({ status: 'captured', refundedAmount: 500 });
        expect((await sdk.charges.get(storeId(), created.id)).status).toBe('successful');
      });

      it(`cancels an online payment the customer has not paid: voided at ${connector.name}`, async () => {
        const created = await awaitingOnline();
        const cancel: Any = await sdk.cancels.create(storeId(), created.id, {});
        const done: Any = await sdk.cancels.poll(storeId(), created.id, cancel.id);
        expect(done.status).toBe('successful');
        expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('canceled');
        expect(payment(created.id)?.status).toBe('voided');
      });

      it('paid while charge-service is killed -9: the notice waits, the restarted worker reads the payment and finishes it', async () => {
        const created = await awaitingOnline();
        const running = suite.workers.filter(
          (w) =>
            w.app.child.exitCode === null &&
            w.app.child.signalCode === null &&
            w.app.lines.some((line) => line.includes('"msg":"charge-service started"')),
        );
        expect(running).toHaveLength(1);
        expect(await running[0].app.stop('SIGKILL')).toBeNull();
        expect(await atProvider(created.id, 'authenticated')).toBe(REDIRECT_ENDPOINT);
        expect(online.paidDelivery(fake, created.id)?.status).toBe(204);
        expect((await sdk.charges.get(storeId(), created.id)).status).toBe('awaiting');
        await suite.startWorker('charge-service');
        expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
        expect(await finishedEvents(created.id)).toBe(1);
        expect(connector.createdFor(fake, created.id)).toBe(1);
      }, 120_000); // as the kill -9 above: a worker booted from source
    });
  }

  // charge-service decrypts card numbers and holds the provider's secret key; refund-cancel-service
  // holds the key too: everything they logged while the charges above ran (retries included)
  describe('the workers’ logs', () => {
    it(`never carry a card number, a CVV or ${connector.name}’s secrets`, () => {
      const text = suite.workers.map((worker) => worker.app.lines.join('\n')).join('\n');
      expect(text).toContain('"msg":"processor call failed transiently; retrying"');
      expect(luhnValidRuns(text)).toEqual([]);
      expect(text).not.toMatch(/cvv"?\s*[:=]\s*"?\d/i);
      for (const secret of connector.secrets) expect(text).not.toContain(secret);
    });
  });
}
