import { createHash } from 'node:crypto';
import { DEFAULT_CHECKOUT_COLORS } from '@kessai/store-configuration';
import {
  checkoutPage,
  contentSecurityPolicy,
  formatAmount,
  frameAncestorSources,
  pickLang,
} from './hosted-pages';
import { pageTheme } from './page-theme';

describe('hosted pages', () => {
  it('formats minor units in the currency’s own digits', () => {
    expect(formatAmount(1500n, 'JPY', 'en')).toBe('¥1,500');
    expect(formatAmount(1250n, 'USD', 'en')).toBe('$12.50');
    expect(formatAmount(1500n, 'JPY', 'ja')).toBe('￥1,500');
  });

  it('picks the language from ?lang=, then the form, then Accept-Language', () => {
    expect(pickLang('ja', 'en_us', 'en')).toBe('ja');
    expect(pickLang(undefined, 'ja_jp', 'en')).toBe('ja');
    expect(pickLang(undefined, null, 'ja-JP,ja;q=0.9')).toBe('ja');
    expect(pickLang(['ja'], null, undefined)).toBe('en');
  });

  it('takes as frame ancestors only domains that cannot smuggle a directive', () => {
    expect(
      frameAncestorSources([
        'shop.example',
        'https://shop.example/',
        '*.shop.example',
        '127.0.0.1:4999',
        "shop.example; script-src 'unsafe-inline'",
        'https://a.example https://b.example',
        'javascript:alert(1)',
      ]),
    ).toEqual(['shop.example', 'https://shop.example', '*.shop.example', '127.0.0.1:4999']);
    expect(contentSecurityPolicy([])).toContain("frame-ancestors 'none'");
  });

  it('keeps its JSON data block closed whatever a form says', () => {
    const html = checkoutPage({
      lang: 'en',
      kind: 'link',
      storeName: '</script><script>alert(1)</script>',
      logo: { src: '/checkout/logos/x/y', alt: '"><script>alert(3)</script>' },
      themeCss: ':root{--k-main-color:#1f4fd8}',
      title: null,
      description: null,
      amount: { minor: 100n, currency: 'JPY' },
      testMode: true,
      methods: [{ id: 'card', label: 'Card' }],
      requireEmail: false,
      showCvv: true,
      submitText: null,
      otherLangHref: '/x',
      config: { note: '</script><script>alert(2)</script>' },
    });
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('alt="&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"');
    expect(html.match(/<script/g)).toHaveLength(2);
  });
});

describe('page theme', () => {
  it('sets the colours in one style block the CSP allows by its hash', () => {
    const theme = pageTheme({ ...DEFAULT_CHECKOUT_COLORS, main_color: '#0b6e4f' });
    expect(theme.css).toContain('--k-main-color:#0b6e4f');
    expect(theme.css).toContain('--k-error-text:#b3261e');
    const hash = createHash('sha256').update(theme.css).digest('base64');
    expect(theme.cspSource).toBe(`'sha256-${hash}'`);
    expect(contentSecurityPolicy([], [theme.cspSource])).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(contentSecurityPolicy([])).not.toContain('unsafe-inline');
  });

  it('shows Kessai’s colours when a pair is unreadable, and writes nothing but hex colours', () => {
    expect(pageTheme({ ...DEFAULT_CHECKOUT_COLORS, main_text: '#fafafa', main_color: '#ffffff' }).css).toBe(
      pageTheme(DEFAULT_CHECKOUT_COLORS).css,
    );
    expect(() =>
      pageTheme({ ...DEFAULT_CHECKOUT_COLORS, main_color: 'red}body{background:url(x)' }),
    ).toThrow();
  });
});
