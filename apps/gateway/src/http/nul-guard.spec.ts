import { findInvalidText } from './nul-guard';

describe('findInvalidText', () => {
  it('finds U+0000 in a string, a nested value or a key, naming the first in document order', () => {
    expect(findInvalidText('a\u0000')).toEqual([]);
    expect(findInvalidText({ a: 'ok', b: { c: ['x', 'y\u0000'] }, d: 'z\u0000' })).toEqual(['b', 'c', 1]);
    expect(findInvalidText({ meta: { ['k\u0000']: 1 } })).toEqual(['meta', 'k\u0000']);
    expect(findInvalidText([{ a: 1 }, { b: '\u0000' }])).toEqual([1, 'b']);
  });

  it('finds a lone surrogate in a string or a key, and lets a pair through', () => {
    expect(findInvalidText({ a: 'ok', b: ['x', 'y\ud800z'] })).toEqual(['b', 1]);
    expect(findInvalidText({ a: { ['\udc00']: 1 } })).toEqual(['a', '\udc00']);
    expect(findInvalidText({ a: 'end\ud83d' })).toEqual(['a']);
    expect(findInvalidText({ a: '\ud83d\ude00 ok', b: 'カード' })).toBeNull();
  });

  it('finds nothing in clean values of every JSON type', () => {
    expect(
      findInvalidText({ a: 'text', b: 1, c: true, d: null, e: [1, 'two', { f: 'g' }], h: {} }),
    ).toBeNull();
    expect(findInvalidText(undefined)).toBeNull();
    expect(findInvalidText('\\u0000')).toBeNull(); // the escape's text, not the character
  });

  it('walks any depth without recursion', () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const path: (string | number)[] | null = findInvalidText(deep);
    expect(path).toHaveLength(20_000);
    expect(path?.every((key) => key === 0)).toBe(true);
  });
});
