// Webhooks as a merchant sees them: the resource through the official univapay-node SDK, and
// deliveries to a real local HTTP receiver from the real gateway, charge-service,
// refund-cancel-service and webhook-service processes over BullMQ, Postgres and Redis, verified with
// the `standardwebhooks` package's own verifier. Retry delays are shortened by configuration.
process.env.POLLING_INTERVAL = '100';

import { PaymentType, TransactionTokenType, WebHookTrigger } from 'univapay-node';
import {
  APPROVED_TEST_CARD,
  bearer,
  eventually,
  HANG,
  requestJson,
  sdkCardToken,
  sdkError,
  sdkFor,
  useSuite,
  verifiedWebhook,
  WebhookReceiver,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
  workers: ['charge-service', 'refund-cancel-service', 'webhook-service'],
  callbacks: true,
  workerVariables: {
    PROCESSOR_TIMEOUT_MS: '1000',
    CHARGE_SWEEP_INTERVAL_MS: '200',
    // a fast schedule: 100 ms, 200 ms, 400 ms between the 4 tries, no jitter
    WEBHOOK_MAX_ATTEMPTS: '4',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_FACTOR: '2',
    WEBHOOK_RETRY_JITTER: '0',
    WEBHOOK_TIMEOUT_MS: '3000',
    // four slots in all, one per webhook: a hanging endpoint can hold one of them
    WEBHOOK_WORKER_CONCURRENCY: '4',
    WEBHOOK_ENDPOINT_CONCURRENCY: '1',
    WEBHOOK_ENDPOINT_BUSY_DELAY_MS: '200',
    // a delivery overdue by 5 s is queued again (its job was lost)
    WEBHOOK_STALE_SECONDS: '5',
    WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: '3600',
    WEBHOOK_SWEEP_INTERVAL_MS: '200',
  },
});
let receiver: WebhookReceiver;

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

async function successfulCharge(amount = 1200, merchant = suite.merchants.shop): Promise<any> {
  const client = sdkFor(suite.url, merchant.storeToken);
  const token = await sdkCardToken(client, { cardNumber: APPROVED_TEST_CARD });
  const created: any = await client.charges.create({ transactionTokenId: token.id, amount, currency: 'JPY' });
  const done: any = await client.charges.poll(merchant.store.id, created.id);
  expect(done.status).toBe('successful');
  return done;
}

/** A store webhook of the shop to a receiver path, through the SDK. */
function storeWebhook(path: string, triggers: WebHookTrigger[], authToken?: string): Promise<any> {
  return sdk().webHooks.create(
    { triggers, url: `${receiver.url}${path}`, ...(authToken ? { authToken } : {}) },
    undefined,
    storeId(),
  );
}

beforeAll(async () => {
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());
}, 60_000);

describe('the webhook resource through the SDK', () => {
  it('store level: create (the signing secret once), get, list, update, delete', async () => {
    const created = await storeWebhook('/crud', [WebHookTrigger.CHARGE_FINISHED], 'Bearer mytoken');
    expect(created).toMatchObject({
      storeId: storeId(),
      merchantId: suite.merchants.shop.merchant.id,
      triggers: ['charge_finished'],
      url: `${receiver.url}/crud`,
      authToken: 'Bearer mytoken',
      active: true,
    });
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got: any = await sdk().webHooks.get(created.id, undefined, undefined, storeId());
    expect(got).toMatchObject({ id: created.id, triggers: ['charge_finished'] });
    expect(got.signingSecret).toBeUndefined();

    const list: any = await sdk().webHooks.list(undefined, undefined, storeId());
    expect(list.items.map((item: any) => item.id)).toContain(created.id);
    expect(list.items.every((item: any) => item.signingSecret === undefined)).toBe(true);
    expect(list.items.find((item: any) => item.id === created.id)).toMatchObject({
      merchantName: suite.merchants.shop.merchant.name,
      storeName: suite.merchants.shop.store.name,
    });

    const updated: any = await sdk().webHooks.update(
      created.id,
      { triggers: [WebHookTrigger.CHARGE_FINISHED, WebHookTrigger.REFUND_FINISHED] },
      undefined,
      storeId(),
    );
    expect(updated.triggers).toEqual(['charge_finished', 'refund_finished']);

    const duplicate = await sdkError(storeWebhook('/crud', [WebHookTrigger.TOKEN_CREATED]));
    expect(duplicate).toMatchObject({ httpCode: 409, code: 'WEBHOOK_URL_EXISTS' });

    await sdk().webHooks.delete(created.id, undefined, undefined, storeId());
    const gone = await sdkError(sdk().webHooks.get(created.id, undefined, undefined, storeId()));
    expect(gone).toMatchObject({ httpCode: 404, code: 'NOT_FOUND' });
  });

  it('merchant level, and triggers checked for the scope', async () => {
    const merchantSdk = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop));
    const created: any = await merchantSdk.webHooks.create({
      triggers: [WebHookTrigger.TRANSFER_FINALIZED],
      url: `${receiver.url}/merchant`,
    });
    expect(created).toMatchObject({
      storeId: null,
      merchantId: suite.merchants.shop.merchant.id,
      triggers: ['transfer_finalized'],
    });
    expect((await merchantSdk.webHooks.get(created.id)) as any).toMatchObject({ id: created.id });
    const merchantList: any = await merchantSdk.webHooks.list();
    expect(merchantList.items.map((item: any) => item.id)).toEqual([created.id]);
    expect(merchantList.items[0]).toMatchObject({
      merchantName: suite.merchants.shop.merchant.name,
      storeName: null,
    });

    const forMerchant = await sdkError(
      merchantSdk.webHooks.create({ triggers: [WebHookTrigger.CHARGE_FINISHED], url: `${receiver.url}/m2` }),
    );
    expect(forMerchant).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'triggers.0', reason: 'INVALID_EVENT_FOR_MERCHANT' }],
    });
    const forStore = await sdkError(storeWebhook('/s2', [WebHookTrigger.TRANSFER_CREATED]));
    expect(forStore).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'triggers.0', reason: 'INVALID_EVENT_FOR_STORE' }],
    });
    // triggers of facts Kessai cannot produce (a CVV authorization's re-check, customs) are refused,
    // not left silent
    const hook = await storeWebhook('/s4', [WebHookTrigger.CHARGE_FINISHED]);
    for (const trigger of [
      WebHookTrigger.TOKEN_CVV_AUTH_CHECK_UPDATED,
      WebHookTrigger.CUSTOMS_DECLARATION_FINISHED,
    ]) {
      expect(await sdkError(storeWebhook('/s3', [WebHookTrigger.CHARGE_FINISHED, trigger]))).toMatchObject({
        httpCode: 400,
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'triggers.1', reason: 'INVALID_EVENT_FOR_STORE' }],
      });
      expect(
        await sdkError(sdk().webHooks.update(hook.id, { triggers: [trigger] }, undefined, storeId())),
      ).toMatchObject({
        httpCode: 400,
        errors: [{ field: 'triggers.0', reason: 'INVALID_EVENT_FOR_STORE' }],
      });
    }
    await sdk().webHooks.delete(hook.id, undefined, undefined, storeId());
    // a store token manages its store's webhooks, not the merchant's own
    expect(await sdkError(sdk().webHooks.list())).toMatchObject({ httpCode: 403 });
    await merchantSdk.webHooks.delete(created.id);
  });

  it('another merchant can neither see nor change them (404)', async () => {
    const created = await storeWebhook('/private', [WebHookTrigger.CHARGE_FINISHED]);
    const other = suite.sdk.foreign;
    const otherMerchant = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.foreign));
    for (const call of [
      other.webHooks.get(created.id, undefined, undefined, storeId()),
      other.webHooks.get(created.id, undefined, undefined, suite.merchants.foreign.store.id),
      other.webHooks.update(
        created.id,
        { url: `${receiver.url}/stolen` },
        undefined,
        suite.merchants.foreign.store.id,
      ),
      other.webHooks.delete(created.id, undefined, undefined, suite.merchants.foreign.store.id),
      otherMerchant.webHooks.get(created.id, undefined, undefined, storeId()),
      otherMerchant.webHooks.update(created.id, { url: `${receiver.url}/stolen` }, undefined, storeId()),
      otherMerchant.webHooks.delete(created.id, undefined, undefined, storeId()),
      otherMerchant.webHooks.list(undefined, undefined, storeId()),
    ])
      expect(await sdkError(call)).toMatchObject({ httpCode: 404, code: 'NOT_FOUND' });
    const otherList: any = await other.webHooks.list(undefined, undefined, suite.merchants.foreign.store.id);
    expect(otherList.items).toEqual([]);
    expect(await sdk().webHooks.get(created.id, undefined, undefined, storeId())).toMatchObject({
      url: `${receiver.url}/private`,
    });
    await sdk().webHooks.delete(created.id, undefined, undefined, storeId());
  });

  it('at most 20 active per store: the 21st is refused, also as a re-activation', async () => {
    const limited = await suite.env.seedPciMerchant('hook-limit');
    const limitedSdk = sdkFor(suite.url, limited.storeToken);
    const create = (i: number) =>
      limitedSdk.webHooks.create(
        { triggers: [WebHookTrigger.CHARGE_FINISHED], url: `${receiver.url}/limit/${i}` },
        undefined,
        limited.store.id,
      );
    const settled = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => create(i)));
    expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(20);
    expect(await sdkError(create(99))).toMatchObject({ httpCode: 400, code: 'RESOURCE_LIMIT_REACHED' });

    const first = (settled.find((result) => result.status === 'fulfilled') as PromiseFulfilledResult<any>)
      .value;
    await limitedSdk.webHooks.update(first.id, { active: false } as any, undefined, limited.store.id);
    const replacement: any = await create(100);
    expect(
      await sdkError(
        limitedSdk.webHooks.update(first.id, { active: true } as any, undefined, limited.store.id),
      ),
    ).toMatchObject({
      httpCode: 400,
      code: 'RESOURCE_LIMIT_REACHED',
    });
    await limitedSdk.webHooks.delete(replacement.id, undefined, undefined, limited.store.id);
    expect(
      await limitedSdk.webHooks.update(first.id, { active: true } as any, undefined, limited.store.id),
    ).toMatchObject({
      active: true,
    });
  });

  it("live mode: https only (the address rule, the same in both modes, is test/webhooks/webhooks-ssrf.e2e-spec.ts's)", async () => {
    const live = sdkFor(suite.url, await suite.env.liveStoreToken(suite.merchants.shop));
    const url = 'http://hooks.example.com/kessai';
    const refusal = await sdkError(
      live.webHooks.create({ triggers: [WebHookTrigger.CHARGE_FINISHED], url }, undefined, storeId()),
    );
    expect(refusal).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'url', reason: 'HTTPS_REQUIRED' }],
    });
    expect(await suite.env.prisma.webhook.count({ where: { storeId: storeId(), url } })).toBe(0);
    // with WEBHOOK_ALLOW_PRIVATE_TARGETS (this suite's, as `npm start`'s) test mode takes a local
    // receiver: that is how merchants develop
    const local = await storeWebhook('/local', [WebHookTrigger.CHARGE_FINISHED]);
    expect(local.url).toBe(`${receiver.url}/local`);
    await sdk().webHooks.delete(local.id, undefined, undefined, storeId());
  });
});

describe('deliveries', () => {
  it('charge_finished and refund_finished arrive signed (standardwebhooks verifies them) with the auth token', async () => {
    const hook = await storeWebhook(
      '/signed',
      [WebHookTrigger.CHARGE_FINISHED, WebHookTrigger.REFUND_FINISHED],
      'mytoken',
    );
    const charge = await successfulCharge();
    const [chargeRequest] = await receiver.waitFor('/signed', 'charge_finished', charge.id);
    expect(chargeRequest.headers.authorization).toBe('Bearer mytoken');
    expect(chargeRequest.headers['content-type']).toBe('application/json');
    const payload = verifiedWebhook(hook.signingSecret, chargeRequest);
    expect(payload.id).toBe(chargeRequest.headers['webhook-id']);
    expect(payload).toMatchObject({
      event: 'charge_finished',
      data: {
        id: charge.id,
        store_id: storeId(),
        status: 'successful',
        requested_amount: 1200,
        charged_amount: 1200,
        metadata: {},
        mode: 'test',
      },
    });
    expect(JSON.parse(chargeRequest.body)).toHaveProperty('created_on');
    // a wrong secret is refused by the same verifier
    expect(() => verifiedWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, chargeRequest)).toThrow();

    const refund: any = await sdk().refunds.create(storeId(), charge.id, { amount: 500, currency: 'JPY' });
    const [refundRequest] = await receiver.waitFor('/signed', 'refund_finished', refund.id);
    expect(verifiedWebhook(hook.signingSecret, refundRequest)).toMatchObject({
      event: 'refund_finished',
      data: { id: refund.id, charge_id: charge.id, status: 'successful', amount: 500 },
    });
    // exactly one delivery per webhook and event; nothing for the events it did not subscribe to
    const deliveries = await suite.env.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } });
    expect(deliveries.map((delivery) => delivery.event).sort()).toEqual([
      'charge_finished',
      'refund_finished',
    ]);
    await eventually(async () =>
      (await suite.env.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } })).every(
        (delivery) => delivery.status === 'delivered' && delivery.attemptCount === 1,
      ),
    );
  }, 30_000);

  it('every other event that exists arrives signed with its resource: token_*, charge_updated, cancel_finished', async () => {
    const hook = await storeWebhook(
      '/every',
      [
        WebHookTrigger.TOKEN_CREATED,
        WebHookTrigger.TOKEN_UPDATED,
        WebHookTrigger.TOKEN_REPLACED,
        WebHookTrigger.TOKEN_THREE_DS_UPDATED,
        WebHookTrigger.CHARGE_UPDATED,
        WebHookTrigger.CANCEL_FINISHED,
      ],
      'every-token',
    );
    const check = async (event: string, id: string, data: Record<string, unknown>) => {
      const [request] = await receiver.waitFor('/every', event, id);
      expect(request.headers.authorization).toBe('Bearer every-token');
      expect(verifiedWebhook(hook.signingSecret, request)).toMatchObject({ event, data: { id, ...data } });
    };

    // token_created, then token_updated (metadata), then token_replaced (renewal: the new token)
    const token: any = await sdkCardToken(sdk(), { cardNumber: APPROVED_TEST_CARD, type: 'recurring' });
    await check('token_created', token.id, { type: 'recurring', payment_type: 'card' });
    await sdk().transactionTokens.update(storeId(), token.id, { metadata: { plan: 'gold' } });
    await check('token_updated', token.id, { metadata: { plan: 'gold' } });
    const renewed: any = await sdk().transactionTokens.renew(storeId(), token.id, {
      data: { cardholder: 'Hanako Yamada', expMonth: 3, expYear: new Date().getUTCFullYear() + 2 },
    });
    await check('token_replaced', renewed.id, { previous_id: token.id, active: true });

    // token_three_ds_updated: a card the issuer lets through at once
    const secured: any = await sdk().transactionTokens.create({
      paymentType: PaymentType.CARD,
      type: TransactionTokenType.RECURRING,
      email: 'buyer@example.test',
      threeDs: { mode: 'normal' },
      data: {
        cardholder: 'Taro Yamada',
        cardNumber: APPROVED_TEST_CARD,
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 1,
        cvv: '123',
      },
    } as never);
    await check('token_three_ds_updated', secured.id, { data: { three_ds: { status: 'successful' } } });

    // charge_updated (authorized), then cancel_finished
    const held: any = await sdk().charges.create({
      transactionTokenId: (await sdkCardToken(sdk(), { cardNumber: APPROVED_TEST_CARD })).id,
      amount: 800,
      currency: 'JPY',
      capture: false,
    });
    await check('charge_updated', held.id, { status: 'authorized' });
    const cancel: any = await sdk().cancels.create(storeId(), held.id, {});
    await check('cancel_finished', cancel.id, { charge_id: held.id, status: 'successful' });
  }, 60_000);

  it('deleting a recurring token sends recurring_token_deleted once, signed, with the inactive token', async () => {
    const hook = await storeWebhook(
      '/deleted',
      [WebHookTrigger.RECURRING_TOKEN_DELETED, WebHookTrigger.TOKEN_UPDATED],
      'deleted-token',
    );
    const recurring: any = await sdkCardToken(sdk(), { cardNumber: APPROVED_TEST_CARD, type: 'recurring' });
    const oneTime: any = await sdkCardToken(sdk(), { cardNumber: APPROVED_TEST_CARD });
    await sdk().transactionTokens.delete(storeId(), oneTime.id);
    await sdk().transactionTokens.delete(storeId(), recurring.id);
    // a second delete finds the token inactive: no second event
    await sdk()
      .transactionTokens.delete(storeId(), recurring.id)
      .catch(() => undefined);

    const [request] = await receiver.waitFor('/deleted', 'recurring_token_deleted', recurring.id);
    expect(request.headers.authorization).toBe('Bearer deleted-token');
    expect(verifiedWebhook(hook.signingSecret, request)).toMatchObject({
      event: 'recurring_token_deleted',
      data: { id: recurring.id, type: 'recurring', active: false },
    });
    // both deletions also announce token_updated; only the recurring one recurring_token_deleted
    await receiver.waitFor('/deleted', 'token_updated', recurring.id);
    await receiver.waitFor('/deleted', 'token_updated', oneTime.id);
    const deletedEvents = await suite.env.prisma.outboxEvent.findMany({
      where: { aggregateId: { in: [recurring.id, oneTime.id] }, eventType: 'recurring_token_deleted' },
    });
    expect(deletedEvents.map((event) => event.aggregateId)).toEqual([recurring.id]);
    const deliveries = receiver
      .of('/deleted')
      .filter((received) => JSON.parse(received.body).event === 'recurring_token_deleted');
    expect(deliveries).toHaveLength(1);
  }, 60_000);

  it('rotating the secret: the new one once, deliveries signed with both during the overlap, then the new one', async () => {
    const hook = await storeWebhook('/rotate', [WebHookTrigger.CHARGE_FINISHED]);
    const path = `/stores/${storeId()}/webhooks/${hook.id}/rotate_secret`;
    const rotated = await requestJson(suite.url, path, {
      method: 'POST',
      auth: bearer(suite.merchants.shop.storeToken),
    });
    expect(rotated.status).toBe(200);
    const secret = String(rotated.body.signing_secret);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.signingSecret);
    expect(Date.parse(rotated.body.previous_secret_expires_on)).toBeGreaterThan(Date.now() + 3_000_000);
    const got: any = await sdk().webHooks.get(hook.id, undefined, undefined, storeId());
    expect(got.signingSecret).toBeUndefined();
    const foreignRotation = await requestJson(suite.url, path, {
      method: 'POST',
      auth: bearer(suite.merchants.foreign.storeToken),
    });
    expect(foreignRotation.status).toBe(404);

    const charge = await successfulCharge();
    const [during] = await receiver.waitFor('/rotate', 'charge_finished', charge.id);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiedWebhook(secret, during).data.id).toBe(charge.id);
    expect(verifiedWebhook(hook.signingSecret, during).data.id).toBe(charge.id);

    // the overlap over: the new secret alone
    await suite.env.prisma.webhook.update({
      where: { id: hook.id },
      data: { previousSecretExpiresOn: new Date(Date.now() - 1_000) },
    });
    const next = await successfulCharge();
    const [after] = await receiver.waitFor('/rotate', 'charge_finished', next.id);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiedWebhook(secret, after).data.id).toBe(next.id);
    expect(() => verifiedWebhook(hook.signingSecret, after)).toThrow();
    await sdk().webHooks.delete(hook.id, undefined, undefined, storeId());
  }, 30_000);

  it('a receiver answering 500 then 200 gets the event again, with the same webhook-id', async () => {
    receiver.plan('/flaky', [500]);
    const hook = await storeWebhook('/flaky', [WebHookTrigger.CHARGE_FINISHED]);
    const charge = await successfulCharge();
    const [first, second] = await receiver.waitFor('/flaky', 'charge_finished', charge.id, 2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(verifiedWebhook(hook.signingSecret, second).id).toBe(first.headers['webhook-id']);
    const delivery = await eventually(() =>
      suite.env.prisma.webhookDelivery.findFirst({
        where: { webhookId: hook.id, status: 'delivered' },
        include: { attempts: { orderBy: { number: 'asc' } } },
      }),
    );
    expect(delivery.id).toBe(first.headers['webhook-id']);
    expect(delivery.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);

    // a delivered try ends the failing period the 500 began
    expect(await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).toMatchObject({
      active: true,
      failingSince: null,
    });

    // the delivery log
    const log = await requestJson(suite.url, `/stores/${storeId()}/webhooks/${hook.id}/events`, {
      auth: bearer(suite.merchants.shop.storeToken),
    });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({
      has_more: false,
      items: [
        {
          id: delivery.id,
          webhook_id: hook.id,
          event: 'charge_finished',
          successful: true,
          error_message: null,
          status: 'delivered',
          attempt_count: 2,
          attempts: [
            { number: 1, status_code: 500, error_message: 'HTTP 500', response_snippet: 'ok' },
            { number: 2, status_code: 200, error_message: null, response_snippet: 'ok' },
          ],
        },
      ],
    });
    expect(log.body.items[0].fired_on).toBe(log.body.items[0].attempts[1].created_on);
    const foreignLog = await requestJson(suite.url, `/stores/${storeId()}/webhooks/${hook.id}/events`, {
      auth: bearer(suite.merchants.foreign.storeToken),
    });
    expect(foreignLog.status).toBe(404);
  }, 30_000);

  it('410 Gone turns the webhook off, with the reason shown', async () => {
    receiver.plan('/gone', [410]);
    const hook = await storeWebhook('/gone', [WebHookTrigger.CHARGE_FINISHED]);
    const charge = await successfulCharge();
    await receiver.waitFor('/gone', 'charge_finished', charge.id);
    const disabled: any = await eventually(async () => {
      const got: any = await sdk().webHooks.get(hook.id, undefined, undefined, storeId());
      return got.active === false ? got : null;
    });
    expect(disabled.disabledReason).toBe('the endpoint answered 410 Gone');
    const delivery = await suite.env.prisma.webhookDelivery.findFirstOrThrow({
      where: { webhookId: hook.id },
    });
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1 });
    // an inactive webhook gets nothing more: the next charge reaches another webhook, not this one
    const witness = await storeWebhook('/witness', [WebHookTrigger.CHARGE_FINISHED]);
    const next = await successfulCharge();
    await receiver.waitFor('/witness', 'charge_finished', next.id);
    await sdk().webHooks.delete(witness.id, undefined, undefined, storeId());
    expect(await suite.env.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(1);
  }, 30_000);

  it('a webhook failing for longer than the configured period is turned off, says why, and can be re-enabled', async () => {
    receiver.plan('/failing', [500, 500, 500, 500]);
    const hook = await storeWebhook('/failing', [WebHookTrigger.CHARGE_FINISHED]);
    // every try failed for two hours already (the period here is one)
    await suite.env.prisma.webhook.update({
      where: { id: hook.id },
      data: { failingSince: new Date(Date.now() - 7_200_000) },
    });
    const charge = await successfulCharge();
    await receiver.waitFor('/failing', 'charge_finished', charge.id);
    const disabled: any = await eventually(async () => {
      const got: any = await sdk().webHooks.get(hook.id, undefined, undefined, storeId());
      return got.active === false ? got : null;
    });
    expect(disabled.disabledReason).toMatch(/^every try failed since \d{4}-\d{2}-\d{2}T/);
    const again: any = await sdk().webHooks.update(hook.id, { active: true } as any, undefined, storeId());
    expect(again.active).toBe(true);
    expect(again.disabledReason).toBeUndefined();
    expect(
      (await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).failingSince,
    ).toBeNull();
    await sdk().webHooks.delete(hook.id, undefined, undefined, storeId());
  }, 30_000);

  it('a receiver failing every try: the delivery ends failed after the configured tries', async () => {
    receiver.plan('/down', [503, 503, 503, 503]);
    const hook = await storeWebhook('/down', [WebHookTrigger.CHARGE_FINISHED]);
    const charge = await successfulCharge();
    await receiver.waitFor('/down', 'charge_finished', charge.id, 4);
    const delivery = await eventually(() =>
      suite.env.prisma.webhookDelivery.findFirst({ where: { webhookId: hook.id, status: 'failed' } }),
    );
    expect(delivery.attemptCount).toBe(4);
    expect(new Set(receiver.of('/down').map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(await sdk().webHooks.get(hook.id, undefined, undefined, storeId())).toMatchObject({
      active: true,
    });

    // replay: one more try now, same delivery and webhook-id; the receiver is back (200)
    const replayPath = (id: string) => `/stores/${storeId()}/webhooks/${hook.id}/events/${id}/replay`;
    const replay = await requestJson(suite.url, replayPath(delivery.id), {
      method: 'POST',
      auth: bearer(suite.merchants.shop.storeToken),
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: delivery.id, status: 'pending', attempt_count: 4 });
    const all = await receiver.waitFor('/down', 'charge_finished', charge.id, 5);
    expect(all[4]?.headers['webhook-id']).toBe(delivery.id);
    expect(verifiedWebhook(hook.signingSecret, all[4]).id).toBe(delivery.id);
    await eventually(async () => {
      const after = await suite.env.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
      return after.status === 'delivered' && after.attemptCount === 5;
    });
    for (const [id, token] of [
      [charge.id, suite.merchants.shop.storeToken],
      [delivery.id, suite.merchants.foreign.storeToken],
    ] as const) {
      const refused = await requestJson(suite.url, replayPath(id), { method: 'POST', auth: bearer(token) });
      expect(refused.status).toBe(404);
    }
  }, 30_000);

  it('a hanging endpoint does not delay another merchant’s deliveries', async () => {
    receiver.plan('/hang', Array<number>(100).fill(HANG));
    const foreignSdk = suite.sdk.foreign;
    const hanging: any = await foreignSdk.webHooks.create(
      { triggers: [WebHookTrigger.CHARGE_FINISHED], url: `${receiver.url}/hang` },
      undefined,
      suite.merchants.foreign.store.id,
    );
    // more deliveries to the hanging endpoint than the worker has slots
    for (let i = 0; i < 6; i++) await successfulCharge(1000 + i, suite.merchants.foreign);
    await eventually(() => receiver.open('/hang') >= 1, { what: 'a hanging try' });
    await eventually(
      async () => (await suite.env.prisma.webhookDelivery.count({ where: { webhookId: hanging.id } })) === 6,
    );

    const prompt = await storeWebhook('/prompt', [WebHookTrigger.CHARGE_FINISHED]);
    const charge = await successfulCharge();
    const [request] = await receiver.waitFor('/prompt', 'charge_finished', charge.id);
    const sinceEvent =
      request.receivedAt - Date.parse((JSON.parse(request.body) as { created_on: string }).created_on);
    // well inside the 3 s a hanging try holds its slot for
    expect(sinceEvent).toBeLessThan(1_500);
    expect(receiver.open('/hang')).toBeLessThanOrEqual(1);

    await sdk().webHooks.delete(prompt.id, undefined, undefined, storeId());
    await foreignSdk.webHooks.delete(hanging.id, undefined, undefined, suite.merchants.foreign.store.id);
  }, 60_000);

  it('a redirect is not followed: one request, the try failed', async () => {
    receiver.plan('/moved', [302, 302, 302, 302]);
    const hook = await storeWebhook('/moved', [WebHookTrigger.CHARGE_FINISHED]);
    const charge = await successfulCharge();
    await receiver.waitFor('/moved', 'charge_finished', charge.id);
    const attempt = await eventually(() =>
      suite.env.prisma.webhookAttempt.findFirst({ where: { delivery: { webhookId: hook.id }, number: 1 } }),
    );
    expect(attempt).toMatchObject({ statusCode: 302, errorMessage: 'HTTP 302' });
    expect(receiver.of('/redirected')).toEqual([]);
    await sdk().webHooks.delete(hook.id, undefined, undefined, storeId());
  }, 30_000);

  it('a pending delivery whose job Redis lost is tried by the sweep', async () => {
    const hook = await storeWebhook('/lost', [WebHookTrigger.TOKEN_CREATED]);
    // a delivery row with no job anywhere, its first try a minute overdue
    const event = await suite.env.prisma.outboxEvent.create({
      data: {
        merchantId: suite.merchants.shop.merchant.id,
        storeId: storeId(),
        aggregateType: 'test',
        aggregateId: suite.merchants.shop.store.id,
        eventType: 'token_created',
        publishedOn: new Date(),
      },
    });
    const id = '6f2c1c9e-2a43-4a5e-9d4f-0d7d1f0c0a11';
    const body = JSON.stringify({
      id,
      event: 'token_created',
      data: {},
      created_on: event.createdOn.toISOString(),
    });
    await suite.env.prisma.webhookDelivery.create({
      data: {
        id,
        webhookId: hook.id,
        eventId: event.id,
        event: 'token_created',
        body,
        createdOn: new Date(Date.now() - 60_000),
      },
    });
    const [request] = await eventually(
      () => (receiver.of('/lost').length > 0 ? receiver.of('/lost') : null),
      {
        timeoutMs: 10_000,
        what: 'the swept delivery',
      },
    );
    expect(request.headers['webhook-id']).toBe(id);
    expect(request.body).toBe(body);
    await eventually(
      async () =>
        (await suite.env.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).status === 'delivered',
    );
    await sdk().webHooks.delete(hook.id, undefined, undefined, storeId());
  }, 30_000);
});
