// Cross-tenant sweep of the merchant console (docs/console.md): signed in as merchant A's owner
// (every permission, so that only ownership can refuse), every console route is asked with merchant
// B's ids in its path, its query and its forms. Each answers exactly as it does for an id that does
// not exist (the same status and the same page, ids aside), writes nothing (every table's row count
// and every row of B's the same before and after) and shows none of B's data. The routes are read
// from the console's own controllers: a route added without its line below fails the first test.
import { randomUUID } from 'node:crypto';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { APIResponse, Browser, Page } from 'playwright-core';
import { loadConfig } from '@kessai/config';
import {
  insertCardToken,
  insertPendingCharge,
  insertSubscription,
  launchChromium,
  listenLocally,
  solidPng,
  updateChargeRow,
  type SeededMerchant,
} from '@kessai/testing';
import { createConsoleApp } from '../../apps/console/src/app.factory';
import { csrfOf, newContext, signIn, useConsoleSuite } from './console-harness';

jest.setTimeout(120_000);

/** What B's data carries, so that a page showing any of it is caught. */
const SECRET = 'bsecret';
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const suite = useConsoleSuite([]);

let browser: Browser;
let app: NestFastifyApplication;
let consoleUrl: string;
let page: Page;
const password = `pw-${randomUUID()}`;

/** B's records (and A's webhook, under which B's delivery is named). */
interface Ids {
  store: string;
  charge: string;
  authorized: string;
  subscription: string;
  appToken: string;
  webhook: string;
  delivery: string;
  user: string;
  ownWebhook: string;
  testClock: string;
}
let b: Ids;

/** One request: a path (with its query) and, for a POST, the form's fields besides the CSRF token. */
interface Probe {
  path: string;
  form?: Record<string, string>;
  /** sent as multipart/form-data with this file as its `logo` field (the logo upload) */
  logo?: Buffer;
}
/** A request naming B's records, and the same request naming records that do not exist. */
interface Case {
  what: string;
  foreign: Probe;
  missing: Probe;
}

const fresh = () => randomUUID();
const same = (what: string, probe: Probe): Case[] => [{ what, foreign: probe, missing: probe }];

/**
 * Every console route: its cases, or why no merchant's record can be named in it. A new route is
 * listed here with its cases (the first test fails until it is).
 */
const ROUTES: Record<string, ((b: Ids) => Case[]) | string> = {
  'GET /': 'redirects to the overview or the sign-in page',
  'GET /overview': () => same('the merchant’s own figures', { path: '/overview' }),
  'GET /sign-in': 'the public sign-in form',
  'POST /sign-in': 'signs in by email and password, before any merchant is known',
  'POST /sign-out': 'ends the own session',
  'POST /sign-out-everywhere': 'ends the own sessions',
  'GET /health': 'public readiness',
  'GET /assets/:name': 'the stylesheet',
  'GET /lang/:lang': 'the language cookie',
  'POST /mode': 'the test/live switch cookie',
  'POST /settings/users': 'creates a user of the signed-in merchant; names no existing record',

  'GET /payments': (b) => [
    {
      what: 'store filter',
      foreign: { path: `/payments?store=${b.store}` },
      missing: { path: `/payments?store=${fresh()}` },
    },
    {
      what: 'cursor',
      foreign: { path: `/payments?cursor=${b.charge}` },
      missing: { path: `/payments?cursor=${fresh()}` },
    },
  ],
  'GET /payments/export.csv': (b) => [
    {
      what: 'store filter',
      foreign: { path: `/payments/export.csv?store=${b.store}` },
      missing: { path: `/payments/export.csv?store=${fresh()}` },
    },
  ],
  'GET /payments/:id': (b) => [
    { what: 'charge', foreign: { path: `/payments/${b.charge}` }, missing: { path: `/payments/${fresh()}` } },
  ],
  'POST /payments/:id/refunds': (b) => {
    const form = () => ({ refund_id: fresh(), amount: '1' });
    return [
      {
        what: 'refund',
        foreign: { path: `/payments/${b.charge}/refunds`, form: form() },
        missing: { path: `/payments/${fresh()}/refunds`, form: form() },
      },
    ];
  },
  'POST /payments/:id/capture': (b) => [
    {
      what: 'capture',
      foreign: { path: `/payments/${b.authorized}/capture`, form: { amount: '1' } },
      missing: { path: `/payments/${fresh()}/capture`, form: { amount: '1' } },
    },
  ],
  'POST /payments/:id/cancel': (b) => [
    {
      what: 'cancel',
      foreign: { path: `/payments/${b.authorized}/cancel`, form: { cancel_id: fresh() } },
      missing: { path: `/payments/${fresh()}/cancel`, form: { cancel_id: fresh() } },
    },
  ],
  'GET /subscriptions': (b) => [
    {
      what: 'cursor',
      foreign: { path: `/subscriptions?cursor=${b.subscription}` },
      missing: { path: `/subscriptions?cursor=${fresh()}` },
    },
  ],
  'GET /subscriptions/:id': (b) => [
    {
      what: 'subscription',
      foreign: { path: `/subscriptions/${b.subscription}` },
      missing: { path: `/subscriptions/${fresh()}` },
    },
  ],
  ...Object.fromEntries(
    ['suspend', 'unsuspend', 'cancel'].map((move) => [
      `POST /subscriptions/:id/${move}`,
      (b: Ids) => [
        {
          what: move,
          foreign: { path: `/subscriptions/${b.subscription}/${move}`, form: {} },
          missing: { path: `/subscriptions/${fresh()}/${move}`, form: {} },
        },
      ],
    ]),
  ),
  'GET /subscriptions/test-clocks': () =>
    same('the merchant’s own clocks', { path: '/subscriptions/test-clocks' }),
  'POST /subscriptions/test-clocks': 'creates a clock of the signed-in merchant; names no existing record',
  'GET /subscriptions/test-clocks/:id': (b) => [
    {
      what: 'test clock',
      foreign: { path: `/subscriptions/test-clocks/${b.testClock}` },
      missing: { path: `/subscriptions/test-clocks/${fresh()}` },
    },
  ],
  'POST /subscriptions/test-clocks/:id/advance': (b) => {
    const form = { frozen_time: '2030-01-01T00:00:00Z' };
    return [
      {
        what: 'advance',
        foreign: { path: `/subscriptions/test-clocks/${b.testClock}/advance`, form },
        missing: { path: `/subscriptions/test-clocks/${fresh()}/advance`, form },
      },
    ];
  },
  'GET /developers': (b) => [
    {
      what: 'store',
      foreign: { path: `/developers?store=${b.store}` },
      missing: { path: `/developers?store=${fresh()}` },
    },
  ],
  'POST /developers/app-tokens': (b) => [
    {
      what: 'store in the form',
      foreign: { path: '/developers/app-tokens', form: { store: b.store, domains: '' } },
      missing: { path: '/developers/app-tokens', form: { store: fresh(), domains: '' } },
    },
  ],
  'POST /developers/app-tokens/:id/revoke': (b): Case[] => [
    {
      what: 'token',
      foreign: { path: `/developers/app-tokens/${b.appToken}/revoke`, form: {} },
      missing: { path: `/developers/app-tokens/${fresh()}/revoke`, form: {} },
    },
    {
      what: 'token under its store',
      foreign: { path: `/developers/app-tokens/${b.appToken}/revoke`, form: { store: b.store } },
      missing: { path: `/developers/app-tokens/${fresh()}/revoke`, form: { store: fresh() } },
    },
  ],
  'POST /developers/webhooks': (b) => {
    const form = (store: string) => ({
      store,
      url: 'https://example.test/hook',
      triggers: 'charge_finished',
    });
    return [
      {
        what: 'store in the form',
        foreign: { path: '/developers/webhooks', form: form(b.store) },
        missing: { path: '/developers/webhooks', form: form(fresh()) },
      },
    ];
  },
  'GET /developers/webhooks/:id': (b) => [
    {
      what: 'webhook',
      foreign: { path: `/developers/webhooks/${b.webhook}` },
      missing: { path: `/developers/webhooks/${fresh()}` },
    },
    {
      what: 'webhook under its store',
      foreign: { path: `/developers/webhooks/${b.webhook}?store=${b.store}` },
      missing: { path: `/developers/webhooks/${fresh()}?store=${fresh()}` },
    },
  ],
  'POST /developers/webhooks/:id': (b) => {
    const form = { url: 'https://example.test/hook', triggers: 'charge_finished', active: 'on' };
    return [
      {
        what: 'webhook change',
        foreign: { path: `/developers/webhooks/${b.webhook}`, form },
        missing: { path: `/developers/webhooks/${fresh()}`, form },
      },
    ];
  },
  ...Object.fromEntries(
    ['rotate-secret', 'delete'].map((action) => [
      `POST /developers/webhooks/:id/${action}`,
      (b: Ids) => [
        {
          what: action,
          foreign: { path: `/developers/webhooks/${b.webhook}/${action}`, form: {} },
          missing: { path: `/developers/webhooks/${fresh()}/${action}`, form: {} },
        },
      ],
    ]),
  ),
  'POST /developers/webhooks/:id/deliveries/:deliveryId/replay': (b) => [
    {
      what: "B's webhook and delivery",
      foreign: { path: `/developers/webhooks/${b.webhook}/deliveries/${b.delivery}/replay`, form: {} },
      missing: { path: `/developers/webhooks/${fresh()}/deliveries/${fresh()}/replay`, form: {} },
    },
    {
      what: "B's delivery under A's webhook",
      foreign: { path: `/developers/webhooks/${b.ownWebhook}/deliveries/${b.delivery}/replay`, form: {} },
      missing: { path: `/developers/webhooks/${b.ownWebhook}/deliveries/${fresh()}/replay`, form: {} },
    },
  ],
  'GET /settings/audit': () => same('the merchant’s own rows', { path: '/settings/audit' }),
  'GET /settings/users': () => same('the merchant’s own users', { path: '/settings/users' }),
  'POST /settings/users/:id/role': (b) => [
    {
      what: 'role',
      foreign: { path: `/settings/users/${b.user}/role`, form: { role: 'viewer' } },
      missing: { path: `/settings/users/${fresh()}/role`, form: { role: 'viewer' } },
    },
  ],
  'POST /settings/users/:id/remove': (b) => [
    {
      what: 'removal',
      foreign: { path: `/settings/users/${b.user}/remove`, form: {} },
      missing: { path: `/settings/users/${fresh()}/remove`, form: {} },
    },
  ],
  'GET /settings/stores': (b) => [
    {
      what: 'cursor',
      foreign: { path: `/settings/stores?cursor=${b.store}` },
      missing: { path: `/settings/stores?cursor=${fresh()}` },
    },
  ],
  'GET /settings/stores/:id': (b) => [
    {
      what: 'store',
      foreign: { path: `/settings/stores/${b.store}` },
      missing: { path: `/settings/stores/${fresh()}` },
    },
  ],
  'POST /settings/stores/:id/logo': (b) => {
    const logo = solidPng(8, 8, [200, 30, 30]);
    return [
      {
        what: 'logo upload',
        foreign: { path: `/settings/stores/${b.store}/logo`, form: {}, logo },
        missing: { path: `/settings/stores/${fresh()}/logo`, form: {}, logo },
      },
    ];
  },
  'POST /subscriptions/test-clocks/:id/delete': (b) => [
    {
      what: 'test clock deletion',
      foreign: { path: `/subscriptions/test-clocks/${b.testClock}/delete`, form: {} },
      missing: { path: `/subscriptions/test-clocks/${fresh()}/delete`, form: {} },
    },
  ],
  'POST /settings/stores/:id': (b) => [
    {
      what: 'store change',
      foreign: { path: `/settings/stores/${b.store}`, form: { name: 'Taken over' } },
      missing: { path: `/settings/stores/${fresh()}`, form: { name: 'Taken over' } },
    },
  ],
};

/** Every route of the console's controllers, as `METHOD /path` with Nest's `:param`s. */
function consoleRoutes(nest: NestFastifyApplication): string[] {
  const routes: string[] = [];
  for (const module of nest.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!type) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
      const prototype = type.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined || name === 'constructor') continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        routes.push(`${method} /${[base, path].filter((part) => part !== '' && part !== '/').join('/')}`);
      }
    }
  }
  return routes.sort();
}

/** Every table's row count, and a digest of each of B's rows (its tables by merchant_id, and those under them). */
async function snapshot(merchantId: string): Promise<Record<string, string>> {
  const prisma = suite.env.prisma;
  const tables = await prisma.$queryRawUnsafe<{ name: string; merchant: boolean }[]>(
    `SELECT t.table_name::text AS name,
            EXISTS (SELECT 1 FROM information_schema.columns c
                     WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
                       AND c.column_name = 'merchant_id') AS merchant
       FROM information_schema.tables t
      WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND t.table_name <> '_prisma_migrations'
      ORDER BY 1`,
  );
  const out: Record<string, string> = {};
  for (const { name, merchant } of tables) {
    const [{ count }] = await prisma.$queryRawUnsafe<{ count: string }[]>(
      `SELECT count(*)::text AS count FROM "${name}"`,
    );
    out[`${name} rows`] = count;
    if (merchant)
      out[`${name} of B`] = await digest(
        `SELECT x::text AS row FROM "${name}" x WHERE merchant_id = $1::uuid`,
        merchantId,
      );
  }
  out['webhook_deliveries of B'] = await digest(
    `SELECT d::text AS row FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.merchant_id = $1::uuid`,
    merchantId,
  );
  out['captures of B'] = await digest(
    `SELECT x::text AS row FROM captures x JOIN charges c ON c.id = x.charge_id WHERE c.merchant_id = $1::uuid`,
    merchantId,
  );
  return out;
}

async function digest(query: string, merchantId: string): Promise<string> {
  const rows = await suite.env.prisma.$queryRawUnsafe<{ row: string }[]>(query, merchantId);
  return rows
    .map((r) => r.row)
    .sort()
    .join('\n');
}

/** The answer to one probe, as A's browser session sends it (no redirect followed). */
async function send(probe: Probe): Promise<APIResponse> {
  const url = `${consoleUrl}${probe.path}`;
  if (probe.form === undefined) return page.request.get(url, { maxRedirects: 0 });
  if (probe.logo)
    return page.request.post(url, {
      multipart: {
        _csrf: await csrfOf(page),
        ...probe.form,
        logo: { name: 'logo.png', mimeType: 'image/png', buffer: probe.logo },
      },
      maxRedirects: 0,
    });
  return page.request.post(url, { form: { _csrf: await csrfOf(page), ...probe.form }, maxRedirects: 0 });
}

/** An answer with every id taken out: what must be the same for B's ids and missing ones. */
async function shape(answer: APIResponse) {
  return {
    status: answer.status(),
    location: (answer.headers()['location'] ?? '').replace(UUIDS, 'ID'),
    type: answer.headers()['content-type'],
    body: (await answer.text()).replace(UUIDS, 'ID'),
  };
}

beforeAll(async () => {
  browser = await launchChromium();
  suite.cleanup(() => browser.close());
  const shop = suite.merchants.shop;
  const other: SeededMerchant = suite.merchants.other;
  const prisma = suite.env.prisma;
  const ownerEmail = `owner-${randomUUID()}@example.test`;
  await suite.env.admin.createUser({
    merchantId: shop.merchant.id,
    email: ownerEmail,
    password,
    role: 'owner',
  });
  const otherUser = await suite.env.admin.createUser({
    merchantId: other.merchant.id,
    email: `${SECRET}-${randomUUID()}@example.test`,
    password,
    role: 'owner',
  });

  // B's data, each piece carrying SECRET where it has text
  await prisma.store.update({ where: { id: other.store.id }, data: { name: `${SECRET} store` } });
  const charge = async (status: string) => {
    const token = await insertCardToken(suite.env, other, { cardNumber: '4242424242424242' });
    await prisma.transactionToken.update({ where: { id: token }, data: { email: `${SECRET}@example.test` } });
    const id = await insertPendingCharge(suite.env, other, token, { amount: 1000, requested: false });
    await updateChargeRow(suite.env, id, status);
    await prisma.charge.update({ where: { id }, data: { metadata: { note: SECRET } } });
    return id;
  };
  const successful = await charge("status = 'successful', charged_amount = 1000, charged_currency = 'JPY'");
  const authorized = await charge("status = 'authorized', capture = false, capture_status = 'authorized'");
  const recurring = await insertCardToken(suite.env, other, {
    cardNumber: '4242424242424242',
    type: 'recurring',
  });
  const subscription = await insertSubscription(suite.env, other, recurring, { amount: 1000 });
  await prisma.subscription.update({
    where: { id: subscription },
    data: { status: 'current', metadata: { note: SECRET } },
  });
  const webhookOf = (merchantId: string, storeId: string) =>
    prisma.webhook.create({
      data: {
        merchantId,
        storeId,
        url: `https://${SECRET}.example.test/hook`,
        triggers: ['charge_finished'],
        signingSecret: `whsec_${Buffer.from(randomUUID()).toString('base64')}`,
        mode: 'test',
      },
    });
  const webhook = await webhookOf(other.merchant.id, other.store.id);
  const event = await prisma.outboxEvent.create({
    data: {
      merchantId: other.merchant.id,
      storeId: other.store.id,
      aggregateType: 'charge',
      aggregateId: successful,
      eventType: 'charge_finished',
      payload: { note: SECRET },
      publishedOn: new Date(),
    },
  });
  const delivery = await prisma.webhookDelivery.create({
    data: {
      webhookId: webhook.id,
      eventId: event.id,
      event: 'charge_finished',
      body: JSON.stringify({ note: SECRET }),
      status: 'failed',
    },
  });
  const ownWebhook = await prisma.webhook.create({
    data: {
      // the merchant's own (no store): the developers page's default owner
      merchantId: shop.merchant.id,
      url: 'https://a.example.test/hook',
      triggers: ['charge_finished'],
      signingSecret: `whsec_${Buffer.from(randomUUID()).toString('base64')}`,
      mode: 'test',
    },
  });
  // an audit row of B's, which A's audit page must never show
  await prisma.consoleAuditEvent.create({
    data: {
      merchantId: other.merchant.id,
      userId: otherUser.id,
      sessionId: randomUUID(),
      action: 'store.update',
      targetType: 'store',
      targetId: other.store.id,
      mode: 'test',
      detail: { name: SECRET },
      ip: '127.0.0.1',
      userAgent: SECRET,
    },
  });
  const testClock = await prisma.testClock.create({
    data: {
      merchantId: other.merchant.id,
      name: `${SECRET} clock`,
      frozenTime: new Date('2029-01-01T00:00:00Z'),
    },
  });
  const appToken = await prisma.appToken.findFirstOrThrow({ where: { merchantId: other.merchant.id } });
  b = {
    store: other.store.id,
    charge: successful,
    authorized,
    subscription,
    appToken: appToken.id,
    webhook: webhook.id,
    delivery: delivery.id,
    user: otherUser.id,
    ownWebhook: ownWebhook.id,
    testClock: testClock.id,
  };

  const config = loadConfig({ ...suite.env.variables }, 'console');
  app = await createConsoleApp(config);
  suite.cleanup(() => app.close());
  consoleUrl = await listenLocally(app);
  page = await signIn(await newContext(suite, browser), consoleUrl, ownerEmail, password);
}, 120_000);

it('lists every route of the console’s controllers, and only those', () => {
  expect(Object.keys(ROUTES).sort()).toEqual(consoleRoutes(app));
});

const cases = () =>
  Object.entries(ROUTES).flatMap(([route, entry]) =>
    typeof entry === 'string' ? [] : entry(b).map((c) => ({ route, ...c })),
  );

it('answers B’s ids exactly as missing ones, writes nothing and shows none of B’s data', async () => {
  const other = suite.merchants.other.merchant.id;
  const checked: string[] = [];
  for (const { route, what, foreign, missing } of cases()) {
    const label = `${route} (${what})`;
    const before = await snapshot(other);
    const foreignAnswer = await shape(await send(foreign));
    const missingAnswer = await shape(await send(missing));
    expect({ label, ...foreignAnswer }).toEqual({ label, ...missingAnswer });
    expect({ label, shows: foreignAnswer.body.toLowerCase().includes(SECRET) }).toEqual({
      label,
      shows: false,
    });
    expect({ label, ...(await snapshot(other)) }).toEqual({ label, ...before });
    checked.push(`${label}: ${foreignAnswer.status}`);
  }
  // every case that names a record is refused as missing: only the pages naming none answer 200
  expect(checked.filter((line) => line.endsWith(': 200'))).toEqual([
    'GET /overview (the merchant’s own figures): 200',
    'GET /subscriptions/test-clocks (the merchant’s own clocks): 200',
    'GET /settings/audit (the merchant’s own rows): 200',
    'GET /settings/users (the merchant’s own users): 200',
  ]);
});
