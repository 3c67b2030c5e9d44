import {
  checkoutPage,
  contentSecurityPolicy,
  formatAmount,
  frameAncestorSources,
  pickLang,
} from './hosted-pages';

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
    expect(html.match(/<script/g)).toHaveLength(2);
  });
});
