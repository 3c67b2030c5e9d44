// The whole charge path as a merchant sees it through the official univapay-node SDK: the real
// gateway, a real charge-service process, BullMQ, Postgres, Redis, and the processor simulator over
// HTTP (the only fake: the outside world).
process.env.POLLING_INTERVAL = '100';

import { CHARGE_FINISHED } from '@kessai/contracts';
import {
  APPROVED_TEST_CARD,
  cardNumberEndingIn,
  luhnValidRuns,
  ordinaryCardNumber,
  sdkCardToken,
  sdkError,
  sdkOnlineToken,
  useSuite,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) =>
    startProcessorSimulator({ callbackSecret, timeoutHoldMs: 5_000, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: {}, plain: {} },
  workers: ['charge-service'],
  callbacks: true,
  workerVariables: {
    PROCESSOR_TIMEOUT_MS: '1000',
    CHARGE_SWEEP_INTERVAL_MS: '200',
    // everything it can log, for the card data scan at the end
    LOG_LEVEL: 'trace',
  },
});

const sdk = () => suite.sdk.shop;
const cardToken = (cardNumber: string, type: 'one_time' | 'recurring' = 'one_time') =>
  sdkCardToken(sdk(), { cardNumber, type });
const onlineToken = () => sdkOnlineToken(sdk());

async function charge(tokenId: string, extra: Record<string, unknown> = {}) {
  return sdk().charges.create({
    transactionTokenId: tokenId,
    amount: 1200,
    currency: 'JPY',
    ...extra,
  });
}

const poll = (chargeId: string, until?: (charge: any) => boolean) =>
  sdk().charges.poll(
    suite.merchants.shop.store.id,
    chargeId,
    undefined,
    undefined,
    until ? { successCondition: until } : undefined,
  ) as Promise<any>;

const finishedEvents = (chargeId: string) =>
  suite.env.prisma.outboxEvent.count({ where: { aggregateId: chargeId, eventType: CHARGE_FINISHED } });

describe('charges through the univapay-node SDK', () => {
  it('token → charge (201 pending) → charges.poll → successful, with one charge_finished event', async () => {
    const token = await cardToken(APPROVED_TEST_CARD);
    const created: any = await charge(token.id, { metadata: { order_id: 'A-1' } });
    expect(created).toMatchObject({
      storeId: suite.merchants.shop.store.id,
      transactionTokenId: token.id,
      transactionTokenType: 'one_time',
      requestedAmount: 1200,
      requestedCurrency: 'JPY',
      status: 'pending',
      mode: 'test',
      metadata: { order_id: 'A-1' },
    });
    const done = await poll(created.id);
    expect(done).toMatchObject({
      id: created.id,
      status: 'successful',
      chargedAmount: 1200,
      chargedCurrency: 'JPY',
      error: null,
    });
    expect(await finishedEvents(created.id)).toBe(1);
  });

  it.each([
    ['4111111111111111', 'failed', 306],
    ['4000000000009995', 'failed', 330],
    ['4000000000000069', 'failed', 304],
    ['4000000000000127', 'failed', 305],
    ['4242424242424242', 'successful', null],
    ['4012888888881881', 'successful', null],
    ['4000000000040503', 'successful', null], // 503 twice, then approved: retried with backoff
    ['4000000000000408', 'successful', null], // answer held past the timeout: retry with the same reference
  ])('card %s → %s (error %s), the processor executing it once', async (cardNumber, status, code) => {
    const created: any = await charge((await cardToken(cardNumber)).id);
    const done = await poll(created.id);
    expect(done.status).toBe(status);
    if (code === null) expect(done.error).toBeNull();
    else expect(done.error).toMatchObject({ code });
    expect(operationStats(suite.simulator.stats(), 'authorize', created.id).executions).toBe(1);
    expect(await finishedEvents(created.id)).toBe(1);
  });

  // UnivaPay's test mode: a valid number outside the catalogue is taken and follows its last four digits
  it.each([
    { ending: '1111', number: cardNumberEndingIn('1111'), status: 'failed', code: 306 },
    {
      ending: '1111 (jcb)',
      number: cardNumberEndingIn('1111', { prefix: '3530' }),
      status: 'failed',
      code: 306,
    },
    {
      ending: '4242',
      number: cardNumberEndingIn('4242', { prefix: '5425' }),
      status: 'successful',
      code: null,
    },
    { ending: '1881', number: cardNumberEndingIn('1881'), status: 'successful', code: null },
    { ending: 'anything else', number: ordinaryCardNumber(), status: 'successful', code: null },
  ])(
    'a number outside the catalogue ending $ending: token created, charge $status (error $code)',
    async ({ number, status, code }) => {
      const token = await cardToken(number);
      expect(token.data).toMatchObject({ card: { lastFour: number.slice(-4) } });
      const created: any = await charge(token.id);
      const done = await poll(created.id);
      expect(done.status).toBe(status);
      if (code === null) expect(done.error).toBeNull();
      else
        expect(done.error).toEqual({
          code,
          message: 'CARD_REJECTED',
          detail: expect.any(String),
          details: done.error.detail,
        });
      expect(operationStats(suite.simulator.stats(), 'authorize', created.id).executions).toBe(1);
    },
  );

  it('authorize (capture: false), then a partial capture through sdk.captures', async () => {
    const created: any = await charge((await cardToken(APPROVED_TEST_CARD)).id, {
      capture: false,
      amount: 5000,
    });
    const authorized = await poll(created.id);
    expect(authorized).toMatchObject({ status: 'authorized', captureStatus: 'authorized' });

    await sdk().captures.create(suite.merchants.shop.store.id, created.id, { amount: 3000, currency: 'JPY' });
    const captured = await poll(created.id, (c) => c.status !== 'authorized');
    expect(captured).toMatchObject({ status: 'successful', captureStatus: 'captured', chargedAmount: 3000 });
  });

  it('authorize, then a full capture', async () => {
    const created: any = await charge((await cardToken(APPROVED_TEST_CARD)).id, { capture: false });
    await poll(created.id);
    await sdk().captures.create(suite.merchants.shop.store.id, created.id, { amount: 1200, currency: 'JPY' });
    const captured = await poll(created.id, (c) => c.status !== 'authorized');
    expect(captured).toMatchObject({ status: 'successful', chargedAmount: 1200 });
  });

  it('online: awaiting → issuer token URL → paid on the operator page → successful', async () => {
    const token = await onlineToken();
    const created: any = await charge(token.id);
    const awaiting = await poll(created.id);
    expect(awaiting.status).toBe('awaiting');

    const issuer: any = await sdk().charges.getIssuerToken(suite.merchants.shop.store.id, created.id);
    expect(issuer.issuerToken).toMatch(new RegExp(`^${suite.simulator.url}/operator/pay/`));
    expect(issuer.callMethod).toBe('http_get');

    const page = await fetch(issuer.issuerToken);
    expect(page.status).toBe(200);
    const paid = await fetch(issuer.issuerToken, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBeLessThan(400);

    const done = await poll(created.id, (c) => c.status !== 'awaiting');
    expect(done).toMatchObject({ status: 'successful', chargedAmount: 1200 });
    expect(await finishedEvents(created.id)).toBe(1);
  });

  it('online with a descriptor: NOT_SUPPORTED_BY_PROCESSOR, or dropped with ignoreDescriptorOnError', async () => {
    const token = await onlineToken();
    const refused = await sdkError(charge(token.id, { descriptor: 'KESSAI SHOP' }));
    expect(refused).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    const created: any = await charge(token.id, { descriptor: 'KESSAI SHOP', ignoreDescriptorOnError: true });
    expect(created).toMatchObject({ status: 'pending', descriptor: '' });
    expect((await poll(created.id)).status).toBe('awaiting');
  });

  it('3-D Secure: awaiting → issuer page → authenticated → successful', async () => {
    const created: any = await charge((await cardToken('4000000000003220')).id);
    expect((await poll(created.id)).status).toBe('awaiting');
    const issuer: any = await sdk().charges.threeDsIssuerToken(suite.merchants.shop.store.id, created.id);
    expect(typeof issuer.issuerToken).toBe('string');
    const form = new URLSearchParams({ ...(issuer.payload ?? {}), result: 'authenticated' });
    const answer = await fetch(issuer.issuerToken, {
      method: 'POST',
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(answer.status).toBeLessThan(400);
    const done = await poll(created.id, (c) => c.status !== 'awaiting');
    expect(done.status).toBe('successful');
  });

  it('duplicate rule: the same recurring card and amount within 30 s fails with 311, not after', async () => {
    const token = await cardToken(APPROVED_TEST_CARD, 'recurring');
    const first: any = await charge(token.id);
    const second: any = await charge(token.id);
    expect(second).toMatchObject({ status: 'failed', error: { code: 311 } });
    const otherAmount: any = await charge(token.id, { amount: 1300 });
    expect(otherAmount.status).toBe('pending');
    expect((await poll(first.id)).status).toBe('successful');

    // 31 s later (moved back in the database rather than waited for)
    await suite.env.prisma.$executeRaw`
      UPDATE charges SET created_on = created_on - interval '31 seconds'
      WHERE transaction_token_id = ${token.id}::uuid`;
    const later: any = await charge(token.id);
    expect(later.status).toBe('pending');
    expect((await poll(later.id)).status).toBe('successful');
  });

  it('a one_time token is charged once; reuse is a clear error', async () => {
    const token = await cardToken(APPROVED_TEST_CARD);
    await charge(token.id);
    const error = await sdkError(charge(token.id));
    expect(error.code).toBe('TRANSACTION_ALREADY_PROCESSED');
  });

  it('PCI DSS gate: a non-compliant merchant cannot send card data with its secret token', async () => {
    const error = await sdkError(sdkCardToken(suite.sdk.plain));
    expect(error.code).toBe('DIRECT_CARD_TOKEN_CREATION_DISABLED');
  });

  it('another merchant can neither read nor capture the charge', async () => {
    const created: any = await charge((await cardToken(APPROVED_TEST_CARD)).id, { capture: false });
    await poll(created.id);
    const other = suite.sdk.foreign;
    expect((await sdkError(other.charges.get(suite.merchants.shop.store.id, created.id))).code).toBe(
      'NOT_FOUND',
    );
    expect((await sdkError(other.charges.get(suite.merchants.foreign.store.id, created.id))).code).toBe(
      'NOT_FOUND',
    );
    expect(
      (
        await sdkError(
          other.captures.create(suite.merchants.shop.store.id, created.id, { amount: 1200, currency: 'JPY' }),
        )
      ).code,
    ).toBe('NOT_FOUND');
    const still: any = await sdk().charges.get(suite.merchants.shop.store.id, created.id);
    expect(still.status).toBe('authorized');
  });
});

// charge-service is the one process that decrypts card numbers and reads CVVs: everything it logged
// while the charges above ran (approvals, declines, 5xx and timeout retries, 3-D Secure, captures)
describe("charge-service's log", () => {
  it('never carries a card number, nor a CVV beside its name', () => {
    const text = suite.workers[0].app.lines.join('\n');
    // the scan reads real output: each processed charge, and the retried processor calls
    expect(text).toContain('"msg":"charge processed"');
    expect(text).toContain('"msg":"processor call failed transiently; retrying"');
    expect(text).toContain('"msg":"capture done"');
    expect(luhnValidRuns(text)).toEqual([]);
    expect(text).not.toMatch(/cvv"?\s*[:=]\s*"?\d/i);
  });
});
