// The store's checkout colours and logo (docs/hosted-checkout.md, decision 0021): set with PATCH
// /stores/{id} as sdk.stores.update sends it and with the admin CLI (store:configure, store:logo),
// validated (hex colours only, the contrast rule, images by their magic bytes and size), read back by
// sdk.checkoutInfo.get, served by the gateway, and applied by the link page and the frame under their
// CSP. The real gateway in-process, Postgres and Redis.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SDK from 'univapay-node';
import { AdminError } from '@kessai/admin';
import { createCheckoutForm, sdkError, solidPng, useSuite } from '@kessai/testing';
import { DEFAULT_CHECKOUT_COLORS } from '@kessai/store-configuration';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOP_ORIGIN = 'https://shop.example.test';
const GREEN = {
  mainColor: '#0B6E4F',
  mainText: '#fff',
  mainBackground: '#ffffff',
  bodyBackground: '#e8f5e9',
};

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { domains: ['shop.example.test'] } },
});
let form: any;
const dir = mkdtempSync(join(tmpdir(), 'kessai-theme-'));

const configure = (configuration: Record<string, unknown>) =>
  suite.sdk.shop.stores.update(suite.merchants.shop.store.id, { configuration });
const checkoutInfo = () =>
  new SDK({
    endpoint: suite.url,
    jwt: suite.merchants.shop.storeToken.jwt,
    origin: SHOP_ORIGIN,
  }).checkoutInfo.get();
const file = (name: string, bytes: Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};
const get = (path: string) =>
  fetch(`${suite.url}${path}`).then(async (r) => ({
    status: r.status,
    headers: r.headers,
    body: Buffer.from(await r.arrayBuffer()),
  }));

beforeAll(async () => {
  form = await createCheckoutForm(suite, suite.merchants.shop, 'Theme');
});
afterEach(async () => {
  await suite.env.prisma.store.update({
    where: { id: suite.merchants.shop.store.id },
    data: { configuration: {} },
  });
  await suite.env.prisma.merchant.update({
    where: { id: suite.merchants.shop.merchant.id },
    data: { configuration: {} },
  });
  await suite.env.prisma.storeLogo.deleteMany({ where: { storeId: suite.merchants.shop.store.id } });
});

describe('checkout colours', () => {
  it('are Kessai’s defaults until set, then the store’s, through the SDK', async () => {
    expect((await checkoutInfo()).theme.colors).toMatchObject({
      mainBackground: DEFAULT_CHECKOUT_COLORS.main_background,
      mainColor: DEFAULT_CHECKOUT_COLORS.main_color,
      bodyBackground: DEFAULT_CHECKOUT_COLORS.body_background,
    });
    const store: any = await configure({ checkoutColors: GREEN });
    // normalised: lower case, #rgb spelled out; unset ones are the defaults
    expect(store.configuration.checkoutColors).toEqual({
      ...Object.fromEntries(
        Object.entries(DEFAULT_CHECKOUT_COLORS).map(([k, v]) => [
          k.replace(/_(.)/g, (_, c) => c.toUpperCase()),
          v,
        ]),
      ),
      mainColor: '#0b6e4f',
      mainText: '#ffffff',
      mainBackground: '#ffffff',
      bodyBackground: '#e8f5e9',
    });
    const info = await checkoutInfo();
    expect(info.theme.colors).toMatchObject({
      mainColor: '#0b6e4f',
      mainText: '#ffffff',
      primaryText: '#1a1a1a',
    });
    // no logo: the key is left out, as the SDK's `logoImage?: string` allows (decision 0070)
    expect(info).not.toHaveProperty('logoImage');
    // null returns one colour to the merchant's (here the default)
    await configure({ checkoutColors: { bodyBackground: null } });
    expect((await checkoutInfo()).theme.colors.mainColor).toBe('#0b6e4f');
    expect(
      (await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}`)).body.configuration
        .checkout_colors.body_background,
    ).toBe(DEFAULT_CHECKOUT_COLORS.body_background);
  });

  it('refuses anything but #rgb or #rrggbb, an unknown key, and text below 4.5:1 on its background; nothing is written', async () => {
    for (const [colors, field, reason] of [
      [{ main_color: 'red' }, 'main_color', 'INVALID_FORMAT'],
      [{ main_color: '#12345' }, 'main_color', 'INVALID_FORMAT'],
      [{ main_color: '#fff;}body{color:red' }, 'main_color', 'INVALID_FORMAT'],
      [{ main_color: 'rgb(0,0,0)' }, 'main_color', 'INVALID_FORMAT'],
      [{ main_color: 12 }, 'main_color', 'INVALID_FORMAT'],
      [{ link_color: '#000000' }, 'link_color', 'FORBIDDEN_PARAMETER'],
      // white on yellow
      [{ main_color: '#ffee58' }, 'main_text', 'INSUFFICIENT_CONTRAST'],
      [{ main_background: '#202124' }, 'primary_text', 'INSUFFICIENT_CONTRAST'],
    ] as const) {
      const res = await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        json: { configuration: { checkout_colors: colors } },
      });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: expect.objectContaining({
          status: 'error',
          code: 'VALIDATION_ERROR',
          errors: [{ field: `configuration.checkout_colors.${field}`, reason }],
        }),
      });
    }
    expect(await sdkError(configure({ checkoutColors: { mainText: '#777777' } }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      httpCode: 400,
    });
    expect(
      await suite.env.prisma.store.findUniqueOrThrow({ where: { id: suite.merchants.shop.store.id } }),
    ).toMatchObject({
      configuration: {},
    });
    // a dark card with light text is readable, and taken
    const dark: any = await configure({
      checkoutColors: { mainBackground: '#202124', primaryText: '#ffffff', secondaryText: '#bdc1c6' },
    });
    expect(dark.configuration.checkoutColors.mainBackground).toBe('#202124');
  });

  it('are set by the operator too (store:configure, merchant:configure), with a clear error', async () => {
    await suite.cli(
      'merchant:configure',
      '--merchant',
      suite.merchants.shop.merchant.id,
      '--set',
      '{"checkout_colors": {"main_color": "#6a1b9a"}}',
    );
    const done = await suite.cli(
      'store:configure',
      '--store',
      suite.merchants.shop.store.id,
      '--set',
      '{"checkout_colors": {"body_background": "#fff"}}',
    );
    expect(done.effective_configuration.checkout_colors).toMatchObject({
      main_color: '#6a1b9a',
      body_background: '#ffffff',
    });
    expect((await checkoutInfo()).theme.colors.mainColor).toBe('#6a1b9a');
    await expect(
      suite.cli(
        'store:configure',
        '--store',
        suite.merchants.shop.store.id,
        '--set',
        '{"checkout_colors": {"main_color": "purple"}}',
      ),
    ).rejects.toThrow('checkout_colors.main_color: a colour is #rgb or #rrggbb');
    await expect(
      suite.cli(
        'store:configure',
        '--store',
        suite.merchants.shop.store.id,
        '--set',
        '{"checkout_colors": {"main_text": "#7a3fa8"}}',
      ),
    ).rejects.toThrow(/checkout_colors\.main_text on main_color has a contrast of 1\.\d\d:1, below 4\.5:1/);
  });
});

describe('the store’s logo', () => {
  it('is stored from a PNG, JPEG or WebP file, and served by the gateway at the URL /checkout_info gives', async () => {
    const png = solidPng(120, 40, [11, 110, 79]);
    const digest = createHash('sha256').update(png).digest('hex');
    const set = await suite.cli(
      'store:logo',
      '--store',
      suite.merchants.shop.store.id,
      '--file',
      file('logo.png', png),
    );
    expect(set).toMatchObject({
      store_id: suite.merchants.shop.store.id,
      content_type: 'image/png',
      bytes: png.length,
      digest,
    });

    const info = await checkoutInfo();
    expect(info.logoImage).toBe(`${suite.url}/checkout/logos/${suite.merchants.shop.store.id}/${digest}`);
    const served = await get(new URL(info.logoImage ?? '').pathname);
    expect(served.status).toBe(200);
    expect(served.body.equals(png)).toBe(true);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.headers.get('etag')).toBe(`"${digest}"`);

    // a new logo is a new URL; the old one is gone
    const jpeg = Buffer.concat([Buffer.from('ffd8ffe000104a464946000101', 'hex'), Buffer.alloc(64)]);
    const replaced = await suite.cli(
      'store:logo',
      '--store',
      suite.merchants.shop.store.id,
      '--file',
      file('logo.jpg', jpeg),
    );
    expect(replaced.content_type).toBe('image/jpeg');
    expect((await get(`/checkout/logos/${suite.merchants.shop.store.id}/${digest}`)).status).toBe(404);
    expect(
      (await get(`/checkout/logos/${suite.merchants.shop.store.id}/${replaced.digest}`)).headers.get(
        'content-type',
      ),
    ).toBe('image/jpeg');
    const webp = Buffer.concat([
      Buffer.from('RIFF'),
      Buffer.alloc(4),
      Buffer.from('WEBPVP8 '),
      Buffer.alloc(32),
    ]);
    expect(
      await suite.cli(
        'store:logo',
        '--store',
        suite.merchants.shop.store.id,
        '--file',
        file('logo.webp', webp),
      ),
    ).toMatchObject({
      content_type: 'image/webp',
    });

    expect(await suite.cli('store:logo', '--store', suite.merchants.shop.store.id, '--remove')).toEqual({
      store_id: suite.merchants.shop.store.id,
      removed: true,
    });
    expect(await checkoutInfo()).not.toHaveProperty('logoImage');
  });

  it('refuses what is not a small PNG, JPEG or WebP, whatever its name', async () => {
    const svg = file(
      'logo.png',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    );
    await expect(
      suite.cli('store:logo', '--store', suite.merchants.shop.store.id, '--file', svg),
    ).rejects.toThrow('a logo is a PNG, JPEG or WebP image');
    const html = file('logo.jpg', Buffer.from('<html><script>alert(1)</script></html>'));
    await expect(
      suite.cli('store:logo', '--store', suite.merchants.shop.store.id, '--file', html),
    ).rejects.toThrow(AdminError);
    const big = file('big.png', Buffer.concat([solidPng(1, 1, [0, 0, 0]), Buffer.alloc(256 * 1024)]));
    await expect(
      suite.cli('store:logo', '--store', suite.merchants.shop.store.id, '--file', big),
    ).rejects.toThrow('at most 256 KiB');
    await expect(
      suite.cli('store:logo', '--store', suite.merchants.shop.store.id, '--file', join(dir, 'missing.png')),
    ).rejects.toThrow('cannot read');
    await expect(
      suite.cli('store:logo', '--store', '00000000-0000-4000-8000-000000000000', '--file', svg),
    ).rejects.toThrow('no store');
    expect(
      await suite.env.prisma.storeLogo.count({ where: { storeId: suite.merchants.shop.store.id } }),
    ).toBe(0);
    // and a URL that names nothing is 404, in the API's error envelope
    for (const path of [
      `/checkout/logos/${suite.merchants.shop.store.id}/${'0'.repeat(64)}`,
      '/checkout/logos/not-a-uuid/x',
    ]) {
      const missing = await get(path);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(missing.body.toString())).toEqual({ status: 'error', code: 'NOT_FOUND', errors: [] });
    }
  });
});

describe('the pages', () => {
  it('apply the colours in a style block the CSP allows by its hash, and show the logo named by the store', async () => {
    await configure({ checkoutColors: GREEN });
    const png = solidPng(120, 40, [11, 110, 79]);
    const { digest } = await suite.cli(
      'store:logo',
      '--store',
      suite.merchants.shop.store.id,
      '--file',
      file('logo.png', png),
    );
    const link: any = await suite.sdk.shop.ecFormLinks.createTemporary({
      formId: form.id,
      amount: 1500,
      currency: 'JPY',
      tokenType: 'one_time',
    } as any);
    const frameUrl = `/checkout/frame?app_id=${suite.merchants.shop.storeToken.jwt}`;
    for (const path of [
      `/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}&lang=en`,
      frameUrl,
    ]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      const html = res.body.toString();
      const css = /<style>([^<]*)<\/style>/.exec(html)?.[1] ?? '';
      expect(css).toContain('--k-main-color:#0b6e4f');
      expect(css).toContain('--k-body-background:#e8f5e9');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain(`style-src 'self' 'sha256-${createHash('sha256').update(css).digest('base64')}'`);
      expect(csp).toContain("img-src 'self' data:");
      expect(csp).not.toContain('unsafe-inline');
      expect(html).toContain(
        `<img class="logo" src="/checkout/logos/${suite.merchants.shop.store.id}/${digest}" alt="${suite.merchants.shop.store.name}">`,
      );
    }
    // a form that does not show the store's logo
    await suite.cli('checkout:form:update', '--id', form.id, '--set', '{"display_store_logo": false}');
    const plain = await get(`/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}`);
    expect(plain.body.toString()).not.toContain('class="logo"');
    await suite.cli('checkout:form:update', '--id', form.id, '--set', '{"display_store_logo": true}');
  });

  it('keep Kessai’s colours when a merchant’s change made a store’s pair unreadable', async () => {
    const merchantButton = (main_color: string, main_text: string) =>
      suite.cli(
        'merchant:configure',
        '--merchant',
        suite.merchants.shop.merchant.id,
        '--set',
        JSON.stringify({ checkout_colors: { main_color, main_text } }),
      );
    // black on the merchant's yellow, and on the store's own light blue: readable
    await merchantButton('#ffee58', '#000000');
    await configure({ checkoutColors: { mainColor: '#90caf9' } });
    expect((await checkoutInfo()).theme.colors).toMatchObject({ mainColor: '#90caf9', mainText: '#000000' });
    // the merchant's change is checked on its own layer: white text over the store's light blue slips through
    await merchantButton('#1f4fd8', '#ffffff');
    const info = await checkoutInfo();
    expect(info.theme.colors.mainColor).toBe(DEFAULT_CHECKOUT_COLORS.main_color);
    expect(info.theme.colors.mainText).toBe(DEFAULT_CHECKOUT_COLORS.main_text);
  });
});
