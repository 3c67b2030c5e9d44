// A card token's CVV authorization (issue 30, gap 7; docs/transaction-tokens.md, "CVV authorization")
// through the official univapay-node SDK: the real gateway, charge-service and webhook-service
// processes, BullMQ, Postgres, Redis and the processor simulator over HTTP. The smallest amount is
// authorized with the token's CVV and voided; the token is then `current` (chargeable) or `failed`
// (refused with CVV_AUTHORIZATION_NOT_COMPLETED), and each status change is announced as
// token_cvv_auth_updated.
import { PaymentType, SubscriptionPeriod, TransactionTokenType, WebHookTrigger } from 'univapay-node';
import { TOKEN_CVV_AUTH_REQUESTED, TOKEN_CVV_AUTH_UPDATED } from '@kessai/contracts';
import {
  APPROVED_TEST_CARD,
  eventually,
  sdkCardToken,
  sdkError,
  useSuite,
  verifiedWebhook,
  WebhookReceiver,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

/** The simulator's card whose CVV check fails (CARD_CVV_INVALID). */
const CVV_FAILS_CARD = '4000000000000127';
const NEXT_YEAR = new Date().getUTCFullYear() + 1;

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'refund-cancel-service', 'webhook-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_JITTER: '0' },
});
let receiver: WebhookReceiver;
let secret: string;

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

function cvvAuthorizedToken(cardNumber: string) {
  return sdk().transactionTokens.create({
    paymentType: PaymentType.CARD,
    type: TransactionTokenType.RECURRING,
    email: 'buyer@example.test',
    data: {
      cardholder: 'Taro Yamada',
      cardNumber,
      expMonth: 12,
      expYear: NEXT_YEAR,
      cvv: '123',
      cvvAuthorize: { enabled: true, currency: 'JPY' } as never,
    },
  }) as Promise<any>;
}

const getToken = (id: string) => sdk().transactionTokens.get(storeId(), id) as Promise<any>;

/** The token once its CVV authorization is `status` (charge-service works asynchronously). */
const tokenWithStatus = (id: string, status: string) =>
  eventually(
    async () => {
      const token = await getToken(id);
      return token.data.cvvAuthorize?.status === status ? token : null;
    },
    { timeoutMs: 10_000, what: `token ${id} CVV authorization ${status}` },
  );

const charge = (tokenId: string) =>
  sdk().charges.create({ transactionTokenId: tokenId, amount: 1500, currency: 'JPY' }) as Promise<any>;

/** The token_cvv_auth_updated deliveries of a token, verified, as the statuses they carry. */
const announced = (tokenId: string) =>
  receiver
    .of('/cvv')
    .map((request) => verifiedWebhook(secret, request))
    .filter((delivery) => delivery.event === TOKEN_CVV_AUTH_UPDATED && delivery.data.id === tokenId)
    .map((delivery) => (delivery.data as any).data.cvv_authorize.status);

/**
 * Puts a `current` token back to `pending` under the next attempt as a PATCH enabled: true does,
 * last changed an hour ago, without the job that change would have queued: the job was lost (Redis
 * flushed). `requested`: the lost job's event is written as well (it comes back beside the sweep's).
 */
async function pendingWithLostJob(tokenId: string, attempt: number, requested = false) {
  await suite.env.prisma.$executeRaw`
    UPDATE transaction_tokens
       SET data = jsonb_set(jsonb_set(data, '{cvv_authorize,status}', '"pending"'),
                            '{cvv_authorize,attempt}', to_jsonb(${attempt}::int)),
           updated_on = now() - interval '1 hour'
     WHERE id = ${tokenId}::uuid`;
  if (!requested) return;
  await suite.env.prisma.$executeRaw`
    INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload)
    SELECT merchant_id, store_id, 'transaction_token', id, ${TOKEN_CVV_AUTH_REQUESTED},
           jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'attempt', ${attempt}::int)
      FROM transaction_tokens WHERE id = ${tokenId}::uuid`;
}

const outboxOf = (tokenId: string, eventType: string) =>
  suite.env.prisma.outboxEvent.findMany({
    where: { aggregateId: tokenId, eventType },
    orderBy: { sequence: 'asc' },
  });

beforeAll(async () => {
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());
  // the trigger is accepted now that its fact exists
  const webhook: any = await sdk().webHooks.create(
    { triggers: [WebHookTrigger.TOKEN_CVV_AUTH_UPDATED], url: `${receiver.url}/cvv` },
    undefined,
    storeId(),
  );
  secret = webhook.signingSecret;
}, 60_000);

describe('token CVV authorization through the univapay-node SDK', () => {
  it('create with cvv_authorize → the smallest amount held and voided → current → charged and refunded', async () => {
    const token = await cvvAuthorizedToken(APPROVED_TEST_CARD);
    expect(['pending', 'current']).toContain(token.data.cvvAuthorize.status);
    expect(token.data.cvvAuthorize).toMatchObject({ enabled: true, currency: 'JPY', credentialsId: null });

    const done = await tokenWithStatus(token.id, 'current');
    expect(done.data.cvvAuthorize).toEqual({
      enabled: true,
      status: 'current',
      credentialsId: null,
      currency: 'JPY',
    });
    // one authorization of 1 yen, held (capture false), and its void, once each
    const reference = `${token.id}.cvv_authorize.1`;
    const stats = suite.simulator.stats();
    expect(operationStats(stats, 'authorize', reference).executions).toBe(1);
    expect(operationStats(stats, 'void', `${reference}.void`).executions).toBe(1);
    expect(await outboxOf(token.id, TOKEN_CVV_AUTH_REQUESTED)).toHaveLength(1);

    // the CVV stayed for the first charge, which goes through
    const created = await charge(token.id);
    const charged: any = await sdk().charges.poll(storeId(), created.id);
    expect(charged.status).toBe('successful');
    const refund: any = await sdk().refunds.create(storeId(), created.id, { amount: 1500, currency: 'JPY' });
    expect(((await sdk().refunds.poll(storeId(), created.id, refund.id)) as any).status).toBe('successful');

    await eventually(() => (announced(token.id).includes('current') ? true : null), {
      timeoutMs: 10_000,
      what: 'token_cvv_auth_updated delivered',
    });
    expect(announced(token.id)).toEqual(['current']);
  });

  it('a CVV the issuer refuses fails the authorization, and the token cannot be charged', async () => {
    const token = await cvvAuthorizedToken(CVV_FAILS_CARD);
    await tokenWithStatus(token.id, 'failed');
    expect(await sdkError(charge(token.id))).toMatchObject({
      httpCode: 400,
      code: 'CVV_AUTHORIZATION_NOT_COMPLETED',
      errors: [{ field: 'transaction_token_id', reason: 'CVV_AUTHORIZATION_NOT_COMPLETED' }],
    });
    const [updated] = await outboxOf(token.id, TOKEN_CVV_AUTH_UPDATED);
    expect(updated.payload).toEqual({
      transaction_token_id: token.id,
      store_id: storeId(),
      status: 'failed',
      enabled: true,
    });
    // the merchant switches it off: the token is an ordinary card token again
    const off: any = await sdk().transactionTokens.update(storeId(), token.id, {
      data: { cvvAuthorize: { enabled: false } },
    });
    expect(off.data.cvvAuthorize).toMatchObject({ enabled: false, status: 'inactive' });
    // accepted now; the issuer still refuses the card's CVV on the charge itself
    const created = await charge(token.id);
    expect(((await sdk().charges.poll(storeId(), created.id)) as any).status).toBe('failed');
  });

  it('enabled later by PATCH: a new attempt with the pending CVV; asking again changes nothing', async () => {
    const token: any = await sdkCardToken(sdk(), { type: 'recurring' });
    expect(token.data.cvvAuthorize).toMatchObject({ enabled: false, status: 'inactive' });
    const on: any = await sdk().transactionTokens.update(storeId(), token.id, {
      data: { cvvAuthorize: { enabled: true } },
    });
    expect(on.data.cvvAuthorize.enabled).toBe(true);
    await tokenWithStatus(token.id, 'current');
    const again: any = await sdk().transactionTokens.update(storeId(), token.id, {
      data: { cvvAuthorize: { enabled: true } },
    });
    expect(again.data.cvvAuthorize.status).toBe('current');
    expect(await outboxOf(token.id, TOKEN_CVV_AUTH_REQUESTED)).toHaveLength(1);
    expect(
      operationStats(suite.simulator.stats(), 'authorize', `${token.id}.cvv_authorize.1`).executions,
    ).toBe(1);
  });

  it('a pending authorization whose job was lost is swept: authorized once, even beside the lost job', async () => {
    const token = await cvvAuthorizedToken(APPROVED_TEST_CARD);
    await tokenWithStatus(token.id, 'current');
    // attempt 2 pending past TOKEN_CVV_AUTHORIZE_STALE_SECONDS, no job queued for it
    await pendingWithLostJob(token.id, 2);
    expect((await getToken(token.id)).data.cvvAuthorize.status).toBe('pending');

    // charge-service's sweeper gives it its job again: held and voided under the attempt's reference
    await tokenWithStatus(token.id, 'current');
    const reference = `${token.id}.cvv_authorize.2`;
    expect(operationStats(suite.simulator.stats(), 'authorize', reference).executions).toBe(1);
    expect(operationStats(suite.simulator.stats(), 'void', `${reference}.void`).executions).toBe(1);

    // attempt 3: the lost job comes back beside the sweep's; the hold is still made once
    await pendingWithLostJob(token.id, 3, true);
    await tokenWithStatus(token.id, 'current');
    const third = `${token.id}.cvv_authorize.3`;
    expect(operationStats(suite.simulator.stats(), 'authorize', third).executions).toBe(1);
    expect(operationStats(suite.simulator.stats(), 'void', `${third}.void`).executions).toBe(1);
    // the token is chargeable again
    const created = await charge(token.id);
    expect(((await sdk().charges.poll(storeId(), created.id)) as any).status).toBe('successful');
  });

  it('a swept authorization whose CVV is no longer held fails the token instead of hanging', async () => {
    const token = await cvvAuthorizedToken(APPROVED_TEST_CARD);
    await tokenWithStatus(token.id, 'current');
    // the first charge takes the pending CVV out of Redis, as its TTL running out would
    const created = await charge(token.id);
    expect(((await sdk().charges.poll(storeId(), created.id)) as any).status).toBe('successful');
    await pendingWithLostJob(token.id, 2);

    await tokenWithStatus(token.id, 'failed');
    const stored = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: token.id } });
    expect((stored.data as any).cvv_authorize.error).toMatchObject({
      detail: 'the CVV is no longer held; send it again',
    });
    // nothing was sent to the processor for it, and a charge is refused until the merchant acts
    expect(
      operationStats(suite.simulator.stats(), 'authorize', `${token.id}.cvv_authorize.2`).executions,
    ).toBe(0);
    expect((await sdkError(charge(token.id))).code).toBe('CVV_AUTHORIZATION_NOT_COMPLETED');
  });

  it('a subscription waits for the CVV authorization: refused while pending or failed, created once current', async () => {
    const subscribe = (tokenId: string) =>
      sdk().subscriptions.create({
        transactionTokenId: tokenId,
        amount: 1000,
        currency: 'JPY',
        period: SubscriptionPeriod.MONTHLY,
      }) as Promise<any>;
    const refusal = {
      httpCode: 400,
      code: 'CVV_AUTHORIZATION_NOT_COMPLETED',
      errors: [{ field: 'transaction_token_id', reason: 'CVV_AUTHORIZATION_NOT_COMPLETED' }],
    };
    const failed = await cvvAuthorizedToken(CVV_FAILS_CARD);
    await tokenWithStatus(failed.id, 'failed');
    expect(await sdkError(subscribe(failed.id))).toMatchObject(refusal);

    const token = await cvvAuthorizedToken(APPROVED_TEST_CARD);
    await tokenWithStatus(token.id, 'current');
    // a new attempt under way (changed just now: not stale, so the sweeper leaves it pending)
    await suite.env.prisma.$executeRaw`
      UPDATE transaction_tokens
         SET data = jsonb_set(jsonb_set(data, '{cvv_authorize,status}', '"pending"'), '{cvv_authorize,attempt}', '2'),
             updated_on = now()
       WHERE id = ${token.id}::uuid`;
    expect(await sdkError(subscribe(token.id))).toMatchObject(refusal);
    expect(await suite.env.prisma.subscription.count({ where: { transactionTokenId: token.id } })).toBe(0);

    // the authorization done (as the job would leave it), the subscription is created
    await suite.env.prisma.$executeRaw`
      UPDATE transaction_tokens SET data = jsonb_set(data, '{cvv_authorize,status}', '"current"')
       WHERE id = ${token.id}::uuid`;
    const subscription = await subscribe(token.id);
    expect(subscription.transactionTokenId).toBe(token.id);
  });

  it('enabled by PATCH with a new CVV after the first charge used the old one', async () => {
    const token: any = await sdkCardToken(sdk(), { type: 'recurring' });
    const created = await charge(token.id);
    expect(((await sdk().charges.poll(storeId(), created.id)) as any).status).toBe('successful');
    await sdk().transactionTokens.update(storeId(), token.id, {
      data: { cvv: '456', cvvAuthorize: { enabled: true } },
    });
    await tokenWithStatus(token.id, 'current');
    expect(
      operationStats(suite.simulator.stats(), 'authorize', `${token.id}.cvv_authorize.1`).executions,
    ).toBe(1);
  });
});
