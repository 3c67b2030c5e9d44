// Webhook targets as an attacker would aim them (issue 27, decision 0024): the real gateway and
// webhook-service with WEBHOOK_ALLOW_PRIVATE_TARGETS off, as in production, and the operator's
// allow-list naming one loopback receiver (the merchant's, here) by address and port. Another
// loopback listener stands for an internal service: nothing may reach it, whatever the URL says or
// its name resolves to, in either mode. Every address used is this machine's loopback; the private
// ranges are the guard's own unit tests' (libs/domain/src/webhook-url.spec.ts). Also: an event goes
// only to webhooks of its own mode, the delivery log's generic reasons, auth_token's form, and a
// delivery that cannot be made failing alone.
import { createServer, type AddressInfo } from 'node:net';
import { WebHookTrigger } from 'univapay-node';
import {
  bearer,
  eventually,
  HANG,
  REAL_CARD_NUMBER,
  requestJson,
  sdkCardToken,
  sdkError,
  sdkFor,
  useSuite,
  WebhookReceiver,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

/** the merchant's receiver: on the operator's allow-list */
const receiver = new WebhookReceiver();
/** an internal service on this machine: on no list */
const internal = new WebhookReceiver();
/** a loopback port nothing listens on, on the allow-list: a try to it fails to connect */
let closedPort: number;

// the receivers first: the suite's variables name their ports
beforeAll(async () => {
  await receiver.start();
  suite.cleanup(() => receiver.close());
  await internal.start();
  suite.cleanup(() => internal.close());
  closedPort = await freePort();
}, 60_000);
const suite = useSuite({
  variables: () => ({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    WEBHOOK_ALLOWED_PRIVATE_TARGETS: `127.0.0.1:${new URL(receiver.url).port},127.0.0.1:${closedPort}`,
  }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'ssrf-shop' } },
  workers: ['webhook-service'],
  // one try each: a failed try ends its delivery
  workerVariables: { WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT_MS: '1000' },
});

const storeId = () => suite.merchants.shop.store.id;
const sdk = () => suite.sdk.shop;

/** A free loopback port, closed again. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A webhook row written directly, as creation would no longer let it be (an older row, rebinding). */
function webhookRow(url: string, mode: 'test' | 'live', extra: { authToken?: string } = {}) {
  return suite.env.prisma.webhook.create({
    data: {
      merchantId: suite.merchants.shop.merchant.id,
      storeId: storeId(),
      url,
      triggers: ['token_created'],
      signingSecret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
      mode,
      ...extra,
    },
  });
}

/** A test card token of the shop: one token_created event. */
async function testToken(): Promise<string> {
  return (await sdkCardToken(sdk())).id;
}

/** A live card token of the shop: one live token_created event. */
async function liveToken(): Promise<string> {
  const live = sdkFor(suite.url, await suite.env.liveStoreToken(suite.merchants.shop));
  return (await sdkCardToken(live, { cardNumber: REAL_CARD_NUMBER })).id;
}

/** The first try of the webhook's delivery of the event about `tokenId`. */
function firstTry(webhookId: string, tokenId: string) {
  return eventually(
    () =>
      suite.env.prisma.webhookAttempt.findFirst({
        where: { number: 1, delivery: { webhookId, outbox: { aggregateId: tokenId } } },
      }),
    { what: `the first try of webhook ${webhookId}` },
  );
}

/** The delivery log as the merchant reads it. */
async function deliveryLog(webhookId: string) {
  const log = await requestJson(suite.url, `/stores/${storeId()}/webhooks/${webhookId}/events`, {
    auth: bearer(suite.merchants.shop.storeToken),
  });
  expect(log.status).toBe(200);
  return log;
}

afterEach(() => {
  // no test, whatever it tried, reached the internal service
  expect([...internal.received.keys()]).toEqual([]);
});

describe('webhook targets with private targets off', () => {
  it('creation refuses non-public addresses however written, in test mode as in live', async () => {
    const port = new URL(internal.url).port;
    const test = sdk();
    const live = sdkFor(suite.url, await suite.env.liveStoreToken(suite.merchants.shop));
    const refused = [
      `http://127.0.0.1:${port}/`,
      'http://127.1/',
      'http://[::1]/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.0.0.1/',
      `http://localhost:${port}/`,
      'http://localhost./',
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::]/',
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/',
      'http://192.168.0.10/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
    ];
    for (const [client, mode] of [
      [test, 'test'],
      [live, 'live'],
    ] as const)
      for (const url of refused.map((each) => (mode === 'live' ? each.replace('http:', 'https:') : each))) {
        const refusal = await sdkError(
          client.webHooks.create({ triggers: [WebHookTrigger.TOKEN_CREATED], url }, undefined, storeId()),
        );
        expect({ mode, url, refusal }).toMatchObject({
          mode,
          url,
          refusal: {
            httpCode: 400,
            code: 'VALIDATION_ERROR',
            errors: [{ field: 'url', reason: 'FORBIDDEN_ADDRESS' }],
          },
        });
      }
    expect(
      await sdkError(
        live.webHooks.create(
          { triggers: [WebHookTrigger.TOKEN_CREATED], url: 'http://hooks.example.com/kessai' },
          undefined,
          storeId(),
        ),
      ),
    ).toMatchObject({ httpCode: 400, errors: [{ field: 'url', reason: 'HTTPS_REQUIRED' }] });
    // a URL change is held to the same rule
    const listed = await test.webHooks.create(
      { triggers: [WebHookTrigger.TOKEN_CREATED], url: `${receiver.url}/listed` },
      undefined,
      storeId(),
    );
    expect(
      await sdkError(
        test.webHooks.update(listed.id, { url: `http://127.0.0.1:${port}/` }, undefined, storeId()),
      ),
    ).toMatchObject({ httpCode: 400, errors: [{ field: 'url', reason: 'FORBIDDEN_ADDRESS' }] });
    await test.webHooks.delete(listed.id, undefined, undefined, storeId());
    expect(await suite.env.prisma.webhook.count({ where: { storeId: storeId() } })).toBe(0);
  });

  it('a try whose name resolves to loopback, or whose IP is not listed, sends nothing and logs a generic reason', async () => {
    const port = new URL(internal.url).port;
    // rows as creation refuses them: a name that now resolves to loopback (DNS rebinding), and
    // loopback literals, in both modes
    const hooks = [
      await webhookRow(`http://localhost:${port}/rebound`, 'test'),
      await webhookRow(`http://127.0.0.1:${port}/literal`, 'test'),
      await webhookRow(`http://2130706433:${port}/number`, 'test'),
      await webhookRow(`http://localhost:${port}/rebound-live`, 'live'),
    ];
    const testTokenId = await testToken();
    const liveTokenId = await liveToken();
    for (const hook of hooks) {
      const attempt = await firstTry(hook.id, hook.mode === 'live' ? liveTokenId : testTokenId);
      expect({ url: hook.url, attempt }).toMatchObject({
        url: hook.url,
        attempt: {
          statusCode: null,
          errorMessage: 'target address not allowed',
          responseSnippet: null,
        },
      });
      const log = await deliveryLog(hook.id);
      expect(log.body.items[0]).toMatchObject({
        status: 'failed',
        error_message: 'target address not allowed',
        attempts: [
          {
            number: 1,
            status_code: null,
            error_message: 'target address not allowed',
            response_snippet: null,
          },
        ],
      });
      // nothing of the network in what the merchant reads
      expect(log.text).not.toMatch(/127\.0\.0\.1|::1|ECONN|EADDR|resolves/);
    }
    await suite.env.prisma.webhook.deleteMany({ where: { id: { in: hooks.map((hook) => hook.id) } } });
  }, 30_000);

  it('a try that fails to connect or gets no answer logs a generic reason, never the socket error', async () => {
    receiver.plan('/hang', [HANG]);
    const closed = await sdk().webHooks.create(
      { triggers: [WebHookTrigger.TOKEN_CREATED], url: `http://127.0.0.1:${closedPort}/closed` },
      undefined,
      storeId(),
    );
    const hanging = await sdk().webHooks.create(
      { triggers: [WebHookTrigger.TOKEN_CREATED], url: `${receiver.url}/hang` },
      undefined,
      storeId(),
    );
    const tokenId = await testToken();
    expect(await firstTry(closed.id, tokenId)).toMatchObject({
      statusCode: null,
      errorMessage: 'connection failed',
      responseSnippet: null,
    });
    expect(await firstTry(hanging.id, tokenId)).toMatchObject({
      statusCode: null,
      errorMessage: 'timed out',
      responseSnippet: null,
    });
    const log = await deliveryLog(closed.id);
    expect(log.body.items[0].attempts[0].error_message).toBe('connection failed');
    expect(log.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    for (const hook of [closed, hanging])
      await sdk().webHooks.delete(hook.id, undefined, undefined, storeId());
  }, 30_000);
});

describe('an event reaches webhooks of its own mode only', () => {
  it('a live token event reaches the live webhook, not the test one; a test event the other way round', async () => {
    const testHook = await sdk().webHooks.create(
      { triggers: [WebHookTrigger.TOKEN_CREATED], url: `${receiver.url}/test-mode` },
      undefined,
      storeId(),
    );
    // a live webhook to the listed loopback receiver over http: written directly (creation asks https)
    const liveHook = await webhookRow(`${receiver.url}/live-mode`, 'live');

    const liveTokenId = await liveToken();
    await receiver.waitFor('/live-mode', 'token_created', liveTokenId);
    const testTokenId = await testToken();
    await receiver.waitFor('/test-mode', 'token_created', testTokenId);
    // each event's deliveries were written by its dispatch, before the try that was received
    const deliveries = await suite.env.prisma.webhookDelivery.findMany({
      where: { webhookId: { in: [testHook.id, liveHook.id] } },
      select: { webhookId: true, outbox: { select: { aggregateId: true } } },
    });
    expect(deliveries.map((d) => [d.webhookId, d.outbox.aggregateId]).sort()).toEqual(
      [
        [testHook.id, testTokenId],
        [liveHook.id, liveTokenId],
      ].sort(),
    );
    const received = (path: string) =>
      receiver.of(path).map((request) => (JSON.parse(request.body) as { data: { id: string } }).data.id);
    expect(received('/test-mode')).toEqual([testTokenId]);
    expect(received('/live-mode')).toEqual([liveTokenId]);
    await sdk().webHooks.delete(testHook.id, undefined, undefined, storeId());
    await suite.env.prisma.webhook.delete({ where: { id: liveHook.id } });
  }, 30_000);
});

describe('auth_token and a delivery that cannot be made', () => {
  it('auth_token takes visible ASCII only (with inner spaces), on creation and on update', async () => {
    const path = `/stores/${storeId()}/webhooks`;
    const auth = bearer(suite.merchants.shop.storeToken);
    const url = `${receiver.url}/auth`;
    for (const token of [
      'tok\u0001en',
      'line\r\nbreak',
      'tab\there',
      'tøken',
      'トークン',
      ' leading',
      'trailing ',
      'two  spaces',
      'x\u007f',
    ]) {
      const created = await requestJson(suite.url, path, {
        method: 'POST',
        auth,
        json: { triggers: ['token_created'], url, auth_token: token },
      });
      expect({ token, status: created.status, body: created.body }).toMatchObject({
        token,
        status: 400,
        body: { code: 'VALIDATION_ERROR', errors: [{ field: 'auth_token', reason: 'INVALID_FORMAT' }] },
      });
    }
    const good = await requestJson(suite.url, path, {
      method: 'POST',
      auth,
      json: { triggers: ['token_created'], url, auth_token: 'Bearer abc.DEF~!#$%&*+-/=?^_`{|}' },
    });
    expect(good.status).toBe(201);
    const patched = await requestJson(suite.url, `${path}/${good.body.id}`, {
      method: 'PATCH',
      auth,
      json: { auth_token: 'caf\u00e9' },
    });
    expect(patched).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', errors: [{ field: 'auth_token', reason: 'INVALID_FORMAT' }] },
    });
    await requestJson(suite.url, `${path}/${good.body.id}`, { method: 'DELETE', auth });
  });

  it('a delivery whose request cannot be made fails alone: the others of its batch are delivered once', async () => {
    // an auth_token stored before the rule: Node refuses it as a header value
    const broken = await webhookRow(`${receiver.url}/broken`, 'test', { authToken: 'tok\u0001en' });
    const healthy = await sdk().webHooks.create(
      { triggers: [WebHookTrigger.TOKEN_CREATED], url: `${receiver.url}/healthy` },
      undefined,
      storeId(),
    );
    const tokenId = await testToken();
    expect(await firstTry(broken.id, tokenId)).toMatchObject({
      statusCode: null,
      errorMessage: 'request could not be made',
      responseSnippet: null,
    });
    const [request] = await receiver.waitFor('/healthy', 'token_created', tokenId);
    expect(await firstTry(healthy.id, tokenId)).toMatchObject({ statusCode: 200, errorMessage: null });
    const deliveries = await suite.env.prisma.webhookDelivery.findMany({
      where: { webhookId: { in: [broken.id, healthy.id] } },
      select: { webhookId: true, status: true, attemptCount: true },
    });
    expect(deliveries).toEqual(
      expect.arrayContaining([
        { webhookId: broken.id, status: 'failed', attemptCount: 1 },
        { webhookId: healthy.id, status: 'delivered', attemptCount: 1 },
      ]),
    );
    // one request, not repeated by a retried job
    expect(
      receiver.of('/healthy').filter((each) => each.headers['webhook-id'] === request.headers['webhook-id']),
    ).toHaveLength(1);
    expect(receiver.of('/broken')).toEqual([]);
    await suite.env.prisma.webhook.delete({ where: { id: broken.id } });
    await sdk().webHooks.delete(healthy.id, undefined, undefined, storeId());
  }, 30_000);
});
