// The OpenAPI document (docs/openapi.json, GET /openapi.json): every route the gateway registers is
// in it, it is a valid OpenAPI 3.1 document, it is what the code generates, and what the official
// univapay-node SDK sends and receives conforms to it (validated with a JSON Schema validator).
import Ajv2020 from 'ajv/dist/2020';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SubscriptionPeriod, TransactionTokenType } from 'univapay-node';
import { runCli } from '@kessai/admin';
import {
  createCheckoutForm,
  createCheckoutProduct,
  requestJson,
  sdkCardToken,
  sdkError,
  type sdkFor,
  solidPng,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { RouteRegistry } from '../../apps/gateway/src/http/route-registry';
import { documentedOperations } from '../../apps/gateway/src/openapi/openapi-document';
import { QUEUE_DASHBOARD_PATH } from '../../apps/gateway/src/queue-dashboard/queue-dashboard';
import { generatedOpenApiText, OPENAPI_FILE, openApiProblems } from '../../scripts/openapi';

type Json = Record<string, any>;

const routes = new RouteRegistry();
const suite = useSuite({
  // with the queue dashboard on: its routes are the gateway's too, and stay out of the document
  variables: { QUEUE_DASHBOARD_ENABLED: 'true', QUEUE_DASHBOARD_PASSWORD: 'openapi-dashboard-password' },
  gateway: (config) => createGatewayApp(config, { routes }),
  merchants: { shop: { pci: true, label: 'openapi-shop' } },
});
let served: Json;
/** GET /stores/{storeId}/charges/{id} as the SDK received it */
let chargeAnswer: Json;

beforeAll(async () => {
  const res = await requestJson(suite.url, '/openapi.json');
  expect(res.status).toBe(200);
  served = res.body;
}, 60_000);

describe('GET /openapi.json', () => {
  it('is served without credentials, as JSON, and is a valid OpenAPI 3.1 document', async () => {
    const res = await requestJson(suite.url, '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.openapi).toBe('3.1.0');
    expect(await openApiProblems(served)).toEqual([]);
  });

  it('is the committed docs/openapi.json, which is what the code generates', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(committed).toBe(generatedOpenApiText());
    expect(served).toEqual(JSON.parse(committed));
  });

  it('the validator refuses a broken document (the check can fail)', async () => {
    const broken = structuredClone(served);
    broken.paths['/charges'].post.responses = 'none';
    expect(await openApiProblems(broken)).not.toEqual([]);
  });

  it('has every route the gateway registers, under its method, and no other', () => {
    const all = routes
      .list()
      .map((route) => {
        const [method, path] = route.split(' ');
        return `${method} ${path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
      })
      .filter((route) => !route.startsWith('HEAD ') && !route.startsWith('OPTIONS '));
    // the queue dashboard is the operators', not the merchant API (docs/operations.md)
    const isDashboard = (route: string) => {
      const path = route.split(' ')[1];
      return path === QUEUE_DASHBOARD_PATH || path.startsWith(`${QUEUE_DASHBOARD_PATH}/`);
    };
    expect(all.filter(isDashboard)).toContain(`GET ${QUEUE_DASHBOARD_PATH}/api/queues`);
    const registered = all.filter((route) => !isDashboard(route));
    const documented = documentedOperations(served).map(({ method, path }) => `${method} ${path}`);
    expect(registered.length).toBeGreaterThan(100);
    expect(registered).toContain('POST /charges');
    expect(registered).toContain('GET /stores/{storeId}/charges/{id}');
    expect([...documented].sort()).toEqual([...registered].sort());
  });

  it('GET /docs is a page on it, its assets from the gateway itself under a strict CSP', async () => {
    const page = await fetch(`${suite.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/')).toBe(true);
      const res = await fetch(`${suite.url}${asset}`);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    expect((await fetch(`${suite.url}/docs/package.json`)).status).toBe(404);
    expect((await fetch(`${suite.url}/docs/..%2Fpackage.json`)).status).toBe(404);
  });
});

describe('what the SDK sends and receives is what the document says', () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  let added = false;
  const validatorOf = (pointer: string) => {
    if (!added) {
      ajv.addSchema(served, 'openapi');
      added = true;
    }
    return ajv.compile({ $ref: `openapi#${pointer}` });
  };
  const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

  /** The document's operation for a concrete request path (the most literal template that matches). */
  function operationOf(method: string, path: string): { template: string; op: Json } {
    const candidates = Object.entries(served.paths as Record<string, Json>)
      .filter(([template, item]) => {
        const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        return pattern.test(path) && item[method.toLowerCase()] !== undefined;
      })
      .sort(([a], [b]) => (a.match(/\{/g) ?? []).length - (b.match(/\{/g) ?? []).length);
    if (candidates.length === 0) throw new Error(`${method} ${path} is not in the document`);
    const [template, item] = candidates[0];
    return { template, op: item[method.toLowerCase()] };
  }

  interface Exchange {
    method: string;
    path: string;
    requestBody: unknown;
    status: number;
    responseBody: unknown;
  }

  /** Runs SDK calls, keeping every request and answer as they crossed the wire. */
  async function exchangesOf(run: (sdk: ReturnType<typeof sdkFor>) => Promise<unknown>): Promise<Exchange[]> {
    const sdk = suite.sdk.shop;
    const pending: Promise<Exchange>[] = [];
    const requests: Request[] = [];
    sdk.api.on('request', (request: Request) => requests.push(request.clone()));
    sdk.api.on('response', (response: Response) => {
      const request = requests.shift();
      if (!request) throw new Error('an answer without its request');
      const answer = response.clone();
      pending.push(
        (async () => {
          const text = await request.text();
          const body = await answer.text();
          return {
            method: request.method,
            path: new URL(request.url).pathname,
            requestBody: text === '' ? undefined : JSON.parse(text),
            status: answer.status,
            responseBody: body === '' ? undefined : JSON.parse(body),
          };
        })(),
      );
    });
    await run(sdk);
    return Promise.all(pending);
  }

  function expectConforms(exchange: Exchange) {
    const { template, op } = operationOf(exchange.method, exchange.path);
    const where = `${exchange.method} ${template}`;
    const base = `/paths/${escape(template)}/${exchange.method.toLowerCase()}`;
    if (exchange.requestBody !== undefined) {
      expect({ where, requestBody: op.requestBody !== undefined }).toEqual({ where, requestBody: true });
      const validate = validatorOf(`${base}/requestBody/content/application~1json/schema`);
      expect({
        where,
        sent: exchange.requestBody,
        errors: validate(exchange.requestBody) ? null : validate.errors,
      }).toEqual({ where, sent: exchange.requestBody, errors: null });
    }
    const status = String(exchange.status);
    const declared = op.responses[status] ? status : 'default';
    const response = op.responses[declared];
    const pointer = response.$ref
      ? `${(response.$ref as string).slice(1)}/content/application~1json/schema`
      : `${base}/responses/${declared}/content/application~1json/schema`;
    if (exchange.responseBody === undefined) {
      expect({ where, status, content: response.content }).toEqual({ where, status, content: undefined });
      return;
    }
    const validate = validatorOf(pointer);
    expect({ where, status, errors: validate(exchange.responseBody) ? null : validate.errors }).toEqual({
      where,
      status,
      errors: null,
    });
  }

  it('token → charge → get → list → token, and a refusal in the error envelope', async () => {
    const exchanges = await exchangesOf(async (sdk) => {
      const token = await sdkCardToken(sdk);
      const charge = await sdk.charges.create({
        transactionTokenId: token.id,
        amount: 1500,
        currency: 'JPY',
        metadata: { order_id: 'OA-1', gift: true },
        descriptor: 'Kessai test',
      });
      await sdk.charges.get(suite.merchants.shop.store.id, charge.id);
      await sdk.charges.list({ limit: 10 });
      await sdk.transactionTokens.get(suite.merchants.shop.store.id, token.id);
      await sdkError(sdk.charges.create({ transactionTokenId: token.id, amount: 0, currency: 'JPY' }));
    });
    expect(exchanges.map((e) => `${e.method} ${e.status}`)).toEqual([
      'POST 201',
      'POST 201',
      'GET 200',
      'GET 200',
      'GET 200',
      'POST 400',
    ]);
    for (const exchange of exchanges) expectConforms(exchange);
    chargeAnswer = exchanges[2].responseBody as Json;
  });

  it('merchant, store and webhook calls', async () => {
    // a store with a logo: its configuration carries logo_url
    const logoDir = mkdtempSync(join(tmpdir(), 'kessai-openapi-logo-'));
    writeFileSync(join(logoDir, 'logo.png'), solidPng(40, 20, [11, 110, 79]));
    await runCli(
      ['store:logo', '--store', suite.merchants.shop.store.id, '--file', join(logoDir, 'logo.png')],
      {
        env: suite.env.variables,
        credentialsFile: join(logoDir, 'demo.json'),
        print: () => undefined,
      },
    );
    const exchanges = await exchangesOf(async (sdk) => {
      await sdk.merchants.me();
      await sdk.stores.get(suite.merchants.shop.store.id);
      const webhook = await sdk.webHooks.create(
        { triggers: ['charge_finished' as never], url: 'https://hooks.example.test/k' },
        undefined,
        suite.merchants.shop.store.id,
      );
      await sdk.webHooks.update(
        webhook.id,
        { url: 'https://hooks.example.test/k2' },
        undefined,
        suite.merchants.shop.store.id,
      );
      await sdk.webHooks.list(undefined, undefined, suite.merchants.shop.store.id);
    });
    expect(exchanges.map((e) => e.status)).toEqual([200, 200, 201, 200, 200]);
    expect((exchanges[1].responseBody as any).configuration.logo_url).toMatch(/^http/);
    for (const exchange of exchanges) expectConforms(exchange);
  });

  it('hosted checkout: form, products, links, a link’s products, its public info, an email', async () => {
    const form = await createCheckoutForm(suite, suite.merchants.shop, 'OpenAPI form', {
      title: 'Pay the shop',
      header_color: '#112233',
      custom_fields: { en_us: [{ key: 'note', label: 'Note', type: 'select', options: ['a', 'b'] }] },
      order_summary_titles: { ja_jp: 'ご注文' },
      metadata: { campaign: 'spring' },
    });
    const tshirt = await createCheckoutProduct(suite, suite.merchants.shop, {
      name: 'T-shirt',
      amount: 2000,
      currency: 'JPY',
      code: 'OA-TS',
      settings: { shipping_fees: 300 },
    });
    const plan = await createCheckoutProduct(suite, suite.merchants.shop, {
      name: 'Plan',
      amount: 900,
      currency: 'JPY',
      settings: { token_type: 'subscription', subscription_period: 'monthly', subscription_cycles: 6 },
    });
    let linkId = '';
    let secret = '';
    const exchanges = await exchangesOf(async (sdk) => {
      await sdk.ecForms.get(form.id);
      const link: any = await sdk.ecFormLinks.createTemporary({
        formId: form.id,
        amount: 2300,
        currency: 'JPY',
        tokenType: TransactionTokenType.ONE_TIME,
        expiry: new Date(Date.now() + 3_600_000).toISOString(),
        metadata: { order: 'OA-2' },
        products: [{ productId: tshirt.id, quantity: 1 }],
      } as any);
      linkId = link.id;
      secret = link.secret;
      await sdk.ecFormLinks.createTemporary({
        formId: form.id,
        amount: 900,
        currency: 'JPY',
        tokenType: TransactionTokenType.SUBSCRIPTION,
        subscriptionPeriod: SubscriptionPeriod.MONTHLY,
        subscriptionCycles: 6,
        subscriptionInitialAmount: 100,
        subscriptionRetryInterval: 'P2D',
      } as any);
      await sdk.ecFormLinks.get(link.id);
      await sdk.ecLinksProducts.list(link.id);
      await sdk.ecInfo.get(link.id, { secret: link.secret });
      await sdk.products.get(plan.id);
      await sdk.products.getByCode('OA-TS');
      await sdkError(sdk.ecInfo.get(link.id, { secret: 'wrong' }));
    });
    expect(exchanges.map((e) => `${e.method} ${e.status}`)).toEqual([
      'GET 200',
      'POST 201',
      'POST 201',
      'GET 200',
      'GET 200',
      'GET 200',
      'GET 200',
      'GET 200',
      'GET 404',
    ]);
    for (const exchange of exchanges) expectConforms(exchange);
    // a nullable enum admits null (zod-to-openapi 7 left it out of the list)
    expect((exchanges[0].responseBody as Json).payment_type).toBeNull();
    expect(served.components.schemas.CheckoutForm.properties.payment_type.enum).toContain(null);
    expect(Object.keys(exchanges[2].responseBody as Json)).toEqual(
      expect.arrayContaining(['subscription_period', 'subscription_cycles', 'subscription_initial_amount']),
    );
    expect((exchanges[5].responseBody as Json).products).toHaveLength(1);
    expect(secret).not.toBe('');

    // POST /checkout/links/{id}/emails has no SDK call: raw HTTP, then emails.get
    const requestBody = { email: 'buyer@example.test', customer_name: 'Taro Yamada', lang: 'en_us' };
    const path = `/checkout/links/${linkId}/emails`;
    const created = await suite.gateway
      .as(suite.merchants.shop)
      .request(path, { method: 'POST', json: requestBody });
    expect(created.status).toBe(201);
    expectConforms({ method: 'POST', path, requestBody, status: 201, responseBody: created.body });
    const read = await exchangesOf((sdk) => sdk.emails.get(created.body.id));
    expect(read.map((e) => `${e.method} ${e.status}`)).toEqual(['GET 200']);
    expectConforms(read[0]);
    // the check can fail: a link without its secret, an email with a status the document lacks
    const link = exchanges[3];
    const withoutSecret = { ...(link.responseBody as Json) };
    delete withoutSecret.secret;
    expect(() => expectConforms({ ...link, responseBody: withoutSecret })).toThrow();
    expect(() => expectConforms({ ...read[0], responseBody: { ...created.body, status: 'lost' } })).toThrow();
  });

  it('a charge with a field the document lacks, or without one it requires, fails the check (the check can fail)', () => {
    const exchange = (responseBody: Json): Exchange => ({
      method: 'GET',
      path: `/stores/${suite.merchants.shop.store.id}/charges/${chargeAnswer.id}`,
      requestBody: undefined,
      status: 200,
      responseBody,
    });
    expect(() => expectConforms(exchange(chargeAnswer))).not.toThrow();
    expect(() => expectConforms(exchange({ ...chargeAnswer, surprise: 1 }))).toThrow();
    const withoutStatus = { ...chargeAnswer };
    delete withoutStatus.status;
    expect(() => expectConforms(exchange(withoutStatus))).toThrow();
  });

  it('POST /charges: the document names the fields the SDK sends; GET /charges/{id}: the fields it answers', () => {
    const body = served.paths['/charges'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['transaction_token_id', 'amount', 'currency']));
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining([
        'capture',
        'capture_at',
        'descriptor',
        'metadata',
        'only_direct_currency',
        'three_ds',
      ]),
    );
    expect(body.additionalProperties).toBe(false);
    const answer = served.paths['/charges/{id}'].get.responses['200'].content['application/json'].schema;
    expect(answer).toEqual({ $ref: '#/components/schemas/Charge' });
    const charge = served.components.schemas.Charge;
    expect(charge.required).toEqual(
      expect.arrayContaining([
        'id',
        'store_id',
        'status',
        'requested_amount',
        'charged_amount',
        'error',
        'metadata',
      ]),
    );
    expect(charge.properties.status.enum).toEqual(
      expect.arrayContaining(['pending', 'authorized', 'successful', 'failed', 'canceled']),
    );
    expect(served.paths['/charges'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ChargeListItemPageWithTotal',
    });
    expect(served.components.schemas.ChargeListItemPageWithTotal.required).toEqual([
      'items',
      'has_more',
      'total_hits',
    ]);
  });
});
