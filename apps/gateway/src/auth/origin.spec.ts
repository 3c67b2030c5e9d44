import { originAllowed } from './origin';

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
