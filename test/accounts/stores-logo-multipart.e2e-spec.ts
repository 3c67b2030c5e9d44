// A store's logo through the official SDK (api-reference §1 "Multipart", §5.7): `stores.create` and
// `stores.update` with a Blob `logo` send multipart/form-data (keys flattened, every value a string),
// which POST and PATCH /stores take — the values typed as the JSON route types them, the logo checked
// by its bytes and stored with the rest in one transaction — and which every other route still
// refuses with 415. The gateway runs in-process.
import { createHash } from 'node:crypto';
import { sdkError, sdkFor, solidPng, useSuite, type Credentials } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });
let merchantToken: Credentials;

beforeAll(async () => {
  merchantToken = await suite.env.merchantToken(suite.merchants.shop);
});

const sdk = () => sdkFor(suite.url, merchantToken);
const api = () => suite.gateway.as(merchantToken);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const blob = (bytes: Buffer, type = 'image/png') => new Blob([bytes], { type });
const logoUrl = (storeId: string, bytes: Buffer) => `${suite.url}/checkout/logos/${storeId}/${sha256(bytes)}`;
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a464946000101', 'hex'), Buffer.alloc(64)]);

/** A multipart body as the SDK builds one: flattened snake_case keys, string values, files. */
function form(fields: Record<string, string | Blob>): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
}

async function served(url: string) {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

describe('sdk.stores.create with a logo (multipart/form-data)', () => {
  it('creates the store with its configuration typed as JSON would be, and its logo served', async () => {
    const png = solidPng(60, 20, [11, 110, 79]);
    const created: any = await sdk().stores.create({
      name: 'Kobe branch',
      configuration: {
        cardConfiguration: { enabled: false, forbiddenCardBrands: ['visa', 'jcb'] },
        minimumChargeAmounts: [{ amount: 500, currency: 'JPY' }],
        subscriptionConfiguration: { failedChargesToCancel: 3 },
      } as any,
      logo: blob(png),
    });
    expect(created).toMatchObject({ merchantId: suite.merchants.shop.merchant.id, name: 'Kobe branch' });
    expect(created.configuration).toMatchObject({
      cardConfiguration: { enabled: false, forbiddenCardBrands: ['visa', 'jcb'] },
      minimumChargeAmounts: [{ amount: 500, currency: 'JPY' }],
      subscriptionConfiguration: { failedChargesToCancel: 3 },
      logoUrl: logoUrl(created.id, png),
    });
    // stored as JSON types, not strings
    const row = await suite.env.prisma.store.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.configuration).toMatchObject({
      card_configuration: { enabled: false },
      minimum_charge_amounts: [{ amount: 500, currency: 'JPY' }],
    });
    expect(await served(created.configuration.logoUrl)).toEqual({
      status: 200,
      type: 'image/png',
      bytes: png,
    });
    expect(((await sdk().stores.get(created.id)) as any).configuration.logoUrl).toBe(
      logoUrl(created.id, png),
    );
    const listed: any = await sdk().stores.list();
    expect(listed.items.find((store: any) => store.id === created.id).configuration.logoUrl).toBe(
      logoUrl(created.id, png),
    );
    // and the store's checkout shows it
    const storeToken = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.shop.merchant.id,
      storeId: created.id,
      mode: 'test',
      domains: [],
    });
    const info: any = await sdkFor(suite.url, storeToken).checkoutInfo.get();
    expect(info.logoImage).toBe(logoUrl(created.id, png));
  });

  it('creates nothing when the logo or a field is refused (400 on that field)', async () => {
    const big = Buffer.concat([solidPng(1, 1, [0, 0, 0]), Buffer.alloc(256 * 1024)]);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    // the logo's own refusals: UnivaPay's codes for an upload
    const uploads: [FormData, string][] = [
      [form({ name: 'Refused 1', logo: blob(svg, 'image/png') }), 'FILE_INVALID_TYPE'],
      [form({ name: 'Refused 2', logo: blob(big) }), 'FILE_MAX_SIZE_EXCEEDED'],
      [form({ name: 'Refused 3', logo: blob(Buffer.alloc(0)) }), 'FILE_INVALID_TYPE'],
    ];
    for (const [body, code] of uploads) {
      const res = await api().request('/stores', { method: 'POST', body });
      expect([res.status, res.body.code, res.body.errors]).toEqual([
        400,
        code,
        [{ field: 'logo', reason: code }],
      ]);
    }
    const cases: [FormData, { field: string | null; reason: string }][] = [
      // a logo that is text, not a file
      [form({ name: 'Refused 4', logo: 'aGVsbG8=' }), { field: 'logo', reason: 'INVALID_FORMAT' }],
      [
        form({ name: 'Refused 5', 'configuration.card_configuration.enabled': 'maybe' }),
        { field: 'configuration.card_configuration.enabled', reason: 'INVALID_FORMAT' },
      ],
      [
        form({
          name: 'Refused 6',
          'configuration.minimum_charge_amounts[0].amount': '5e',
          'configuration.minimum_charge_amounts[0].currency': 'JPY',
        }),
        { field: 'configuration.minimum_charge_amounts.0.amount', reason: 'INVALID_FORMAT' },
      ],
      [
        form({ name: 'Refused 7', 'configuration.percent_fee': '1' }),
        { field: 'configuration.percent_fee', reason: 'FORBIDDEN_PARAMETER' },
      ],
      // names the SDK never writes: a prototype key, a broken path, a value that is also a parent
      [
        form({ name: 'Refused 8', '__proto__.polluted': 'yes' }),
        { field: '__proto__.polluted', reason: 'INVALID_FORMAT' },
      ],
      [
        form({ name: 'Refused 9', 'configuration[0': 'x' }),
        { field: 'configuration[0', reason: 'INVALID_FORMAT' },
      ],
      [
        form({ name: 'Refused 10', configuration: 'x', 'configuration.country': 'JP' }),
        { field: 'configuration.country', reason: 'INVALID_FORMAT' },
      ],
    ];
    for (const [body, error] of cases) {
      const res = await api().request('/stores', { method: 'POST', body });
      expect([res.status, res.body.code, res.body.errors]).toEqual([400, 'VALIDATION_ERROR', [error]]);
    }
    expect(
      await suite.env.prisma.store.count({
        where: { merchantId: suite.merchants.shop.merchant.id, name: { startsWith: 'Refused' } },
      }),
    ).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // the SDK surfaces the logo's error on its field
    expect(await sdkError(sdk().stores.create({ name: 'Refused SDK', logo: blob(svg) }))).toMatchObject({
      code: 'FILE_INVALID_TYPE',
      httpCode: 400,
      errors: [{ field: 'logo', reason: 'FILE_INVALID_TYPE' }],
    });
  });

  it('answers a malformed form with 400 in the envelope, never a 500', async () => {
    const boundary = 'kessai-test-boundary';
    const cases: [string, string][] = [
      // no boundary
      ['multipart/form-data', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nA\r\n--x--\r\n'],
      // cut off before its end
      [
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut`,
      ],
      // a part without a name
      [
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nNameless\r\n--${boundary}--\r\n`,
      ],
      // a name far longer than any the SDK writes
      [
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="${'a'.repeat(300)}"\r\n\r\nx\r\n--${boundary}--\r\n`,
      ],
      // two files
      [
        `multipart/form-data; boundary=${boundary}`,
        [1, 2]
          .map(
            (i) =>
              `--${boundary}\r\nContent-Disposition: form-data; name="logo${i}"; filename="a.png"\r\n` +
              `Content-Type: image/png\r\n\r\npng\r\n`,
          )
          .join('') + `--${boundary}--\r\n`,
      ],
    ];
    for (const [type, body] of cases) {
      const res = await api().request('/stores', { method: 'POST', headers: { 'content-type': type }, body });
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect(
      await suite.env.prisma.store.count({
        where: { merchantId: suite.merchants.shop.merchant.id, name: { in: ['A', 'Cut'] } },
      }),
    ).toBe(0);
  });

  it('replays a repeated request under one Idempotency-Key: one store', async () => {
    const png = solidPng(8, 8, [200, 10, 10]);
    const send = (logo: Buffer) =>
      api().request('/stores', {
        method: 'POST',
        key: 'logo-store-1',
        body: form({ name: 'Once', logo: blob(logo) }),
      });
    const first = await send(png);
    const again = await send(png);
    expect([first.status, again.status, again.body.id]).toEqual([201, 201, first.body.id]);
    const other = await send(solidPng(8, 8, [10, 200, 10]));
    expect([other.status, other.body.code]).toEqual([409, 'IDEMPOTENCY_KEY_CONFLICT']);
    expect(
      await suite.env.prisma.store.count({
        where: { merchantId: suite.merchants.shop.merchant.id, name: 'Once' },
      }),
    ).toBe(1);
  });
});

describe('sdk.stores.update with a logo', () => {
  it('replaces the logo (a new URL, the old one gone) with the name, and removes it with logo: null', async () => {
    const first = solidPng(10, 10, [1, 2, 3]);
    const store: any = await sdk().stores.create({ name: 'Nara branch', logo: blob(first) });
    const updated: any = await sdk().stores.update(store.id, {
      name: 'Nara main',
      configuration: { qrScanConfiguration: { enabled: false } },
      logo: blob(JPEG, 'image/jpeg'),
    });
    expect(updated).toMatchObject({ name: 'Nara main' });
    expect(updated.configuration).toMatchObject({
      qrScanConfiguration: { enabled: false },
      logoUrl: logoUrl(store.id, JPEG),
    });
    expect(await served(logoUrl(store.id, JPEG))).toMatchObject({ status: 200, type: 'image/jpeg' });
    expect((await served(logoUrl(store.id, first))).status).toBe(404);

    // JSON again (no Blob): logo null removes it
    const removed: any = await sdk().stores.update(store.id, { logo: null });
    expect(removed.configuration.logoUrl).toBeUndefined();
    expect(await suite.env.prisma.storeLogo.count({ where: { storeId: store.id } })).toBe(0);
  });

  it('writes nothing when one part is refused: the name, the configuration and the logo together', async () => {
    const png = solidPng(10, 10, [4, 5, 6]);
    const store: any = await sdk().stores.create({ name: 'Kyoto branch', logo: blob(png) });
    await sdk().stores.create({ name: 'Taken name' });
    const refusals: [Record<string, string | Blob>, number, string][] = [
      // an incoherent configuration (minimum above maximum) with a new name and logo
      [
        {
          name: 'Kyoto renamed',
          'configuration.minimum_charge_amounts[0].amount': '900',
          'configuration.minimum_charge_amounts[0].currency': 'JPY',
          'configuration.maximum_charge_amounts[0].amount': '100',
          'configuration.maximum_charge_amounts[0].currency': 'JPY',
          logo: blob(JPEG, 'image/jpeg'),
        },
        400,
        'VALIDATION_ERROR',
      ],
      // a name in use, with a new logo
      [{ name: 'Taken name', logo: blob(JPEG, 'image/jpeg') }, 409, 'STORE_EXISTS'],
    ];
    for (const [fields, status, code] of refusals) {
      const res = await api().request(`/stores/${store.id}`, { method: 'PATCH', body: form(fields) });
      expect([res.status, res.body.code]).toEqual([status, code]);
    }
    const row = await suite.env.prisma.store.findUniqueOrThrow({
      where: { id: store.id },
      include: { logo: true },
    });
    expect([row.name, row.logo?.digest, row.configuration]).toEqual(['Kyoto branch', sha256(png), {}]);
  });
});

describe('multipart/form-data elsewhere', () => {
  it('is refused with 415 on every other route, nothing written', async () => {
    const storeApi = suite.api.shop;
    const token = await storeApi.cardToken();
    const charges = await suite.env.prisma.charge.count({
      where: { storeId: suite.merchants.shop.store.id },
    });
    const res = await storeApi.request('/charges', {
      method: 'POST',
      body: form({ transaction_token_id: token, amount: '1000', currency: 'JPY' }),
    });
    expect([res.status, res.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const webhook = await api().request(`/stores/${suite.merchants.shop.store.id}/webhooks`, {
      method: 'POST',
      body: form({ url: 'https://example.test/hook', triggers: 'charge_finished' }),
    });
    expect([webhook.status, webhook.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(await suite.env.prisma.charge.count({ where: { storeId: suite.merchants.shop.store.id } })).toBe(
      charges,
    );
    // a path that is no route is a 404, whatever its body
    const nowhere = await api().request('/no_such_route', { method: 'POST', body: form({ name: 'x' }) });
    expect([nowhere.status, nowhere.body.code]).toEqual([404, 'NOT_FOUND']);
  });
});
