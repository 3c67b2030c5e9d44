import fc from 'fast-check';
import {
  canonicalJson,
  fingerprintKey,
  RequestFingerprints,
  requestFingerprint,
} from './request-fingerprint';

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

describe('RequestFingerprints', () => {
  const body = { amount: 100, list: [1, 2] };

  it("fingerprints under the current secret and recognises a previous secret's fingerprint of the same request", () => {
    const fingerprints = new RequestFingerprints('i'.repeat(32), ['j'.repeat(32)]);
    const current = fingerprints.of('POST', '/charges', body);
    expect(current).toBe(requestFingerprint(fingerprintKey('i'.repeat(32)), 'POST', '/charges', body));
    const legacy = requestFingerprint(fingerprintKey('j'.repeat(32)), 'POST', '/charges', body);
    expect(fingerprints.matches(current, current, 'POST', '/charges', body)).toBe(true);
    expect(fingerprints.matches(legacy, current, 'POST', '/charges', body)).toBe(true);
    // another request under the previous secret is still another request
    const otherLegacy = requestFingerprint(fingerprintKey('j'.repeat(32)), 'POST', '/charges', {
      amount: 101,
    });
    expect(fingerprints.matches(otherLegacy, current, 'POST', '/charges', body)).toBe(false);
    // without the previous secret, a record it keyed is no match
    const alone = new RequestFingerprints('i'.repeat(32));
    expect(alone.matches(legacy, current, 'POST', '/charges', body)).toBe(false);
  });
});

describe('canonicalJson', () => {
  /** The recursive form it replaced: stored fingerprints must not change. */
  function recursive(value: unknown): string {
    if (Array.isArray(value)) return `[${value.map(recursive).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${recursive(v)}`).join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
  }

  it('writes what the recursive form wrote (fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 'x'), (value, extra) => {
        const withUndefined = { value, list: [extra, 1], skipped: undefined };
        expect(canonicalJson(value)).toBe(recursive(value));
        expect(canonicalJson(withUndefined)).toBe(recursive(withUndefined));
      }),
      { seed: 27, numRuns: 300 },
    );
    expect(canonicalJson({ b: [1, { d: 2, c: [] }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":[],"d":2}]}');
  });

  it('takes any depth without recursion', () => {
    let deep: unknown = { end: true };
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    // 100,000 objects {"k":…} (6 characters each) and 100,000 arrays […] (2 each) around the end
    expect(canonicalJson(deep)).toHaveLength(100_000 * 6 + 100_000 * 2 + '{"end":true}'.length);
  });
});
