import { isOwnOrigin, originAllowed } from './origin';

describe('originAllowed', () => {
  it.each([
    ['https://shop.example', ['shop.example'], true],
    ['https://shop.example:8443', ['shop.example:8443'], true],
    ['https://shop.example:8443', ['shop.example'], true],
    ['http://localhost:5173', ['localhost'], true],
    ['https://shop.example', ['https://shop.example'], true],
    ['http://shop.example', ['https://shop.example'], false],
    ['https://a.shop.example', ['*.shop.example'], true],
    ['https://shop.example', ['*.shop.example'], false],
    ['https://evilshop.example', ['*.shop.example'], false],
    ['https://shop.example.evil.com', ['shop.example'], false],
    ['https://other.example', ['shop.example'], false],
    [undefined, ['shop.example'], false],
    ['null', ['shop.example'], false],
    ['file:///etc/passwd', ['shop.example'], false],
    ['https://shop.example', [], false],
  ])('%s with %j → %s', (origin, domains, expected) => {
    expect(originAllowed(origin, domains)).toBe(expected);
  });
});

describe('isOwnOrigin', () => {
  const configured = { NODE_ENV: 'production' as const, PUBLIC_BASE_URL: 'https://pay.example.com/' };
  it("is PUBLIC_BASE_URL's origin, scheme and port included, whatever the Host says", () => {
    expect(isOwnOrigin(configured, 'https://pay.example.com', 'evil.example')).toBe(true);
    expect(isOwnOrigin(configured, 'https://PAY.example.com:443', undefined)).toBe(true);
    for (const origin of [
      'http://pay.example.com',
      'https://pay.example.com:8443',
      'https://evil.example',
      'null',
      undefined,
    ])
      expect([origin, isOwnOrigin(configured, origin, 'evil.example')]).toEqual([origin, false]);
  });
  it('falls back to the Host header in development and tests only', () => {
    for (const NODE_ENV of ['development', 'test'] as const)
      expect(
        isOwnOrigin({ NODE_ENV, PUBLIC_BASE_URL: undefined }, 'http://127.0.0.1:3000', '127.0.0.1:3000'),
      ).toBe(true);
    expect(
      isOwnOrigin({ NODE_ENV: 'test', PUBLIC_BASE_URL: undefined }, 'http://127.0.0.1:3000', 'other:3000'),
    ).toBe(false);
    expect(
      isOwnOrigin(
        { NODE_ENV: 'production', PUBLIC_BASE_URL: undefined },
        'http://127.0.0.1:3000',
        '127.0.0.1:3000',
      ),
    ).toBe(false);
  });
});
