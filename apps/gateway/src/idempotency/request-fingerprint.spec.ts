import { fingerprintKey, requestFingerprint } from './request-fingerprint';

describe('requestFingerprint', () => {
  const key = fingerprintKey('a'.repeat(32));
  const base = requestFingerprint(key, 'POST', '/charges', { amount: 100, list: [1, 2] });

  it('ignores key order and whitespace', () => {
    const reordered = JSON.parse('{ "list": [1, 2],\n "amount": 100 }') as unknown;
    expect(requestFingerprint(key, 'POST', '/charges', reordered)).toBe(base);
  });

  it.each([
    ['method', 'PATCH', '/charges', { amount: 100, list: [1, 2] }],
    ['path', 'POST', '/charges?x=1', { amount: 100, list: [1, 2] }],
    ['value', 'POST', '/charges', { amount: 101, list: [1, 2] }],
    ['value type', 'POST', '/charges', { amount: '100', list: [1, 2] }],
    ['array order', 'POST', '/charges', { amount: 100, list: [2, 1] }],
    ['missing body', 'POST', '/charges', undefined],
  ])('tells requests apart by %s', (_, method, url, body) => {
    expect(requestFingerprint(key, method, url, body)).not.toBe(base);
  });

  it('is keyed: another server key gives another fingerprint, so stored values reveal nothing', () => {
    const other = fingerprintKey('b'.repeat(32));
    expect(requestFingerprint(other, 'POST', '/charges', { amount: 100, list: [1, 2] })).not.toBe(base);
  });
});
