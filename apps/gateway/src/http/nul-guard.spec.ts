import { findNul } from './nul-guard';

describe('findNul', () => {
  it('finds U+0000 in a string, a nested value or a key, naming the first in document order', () => {
    expect(findNul('a\u0000')).toEqual([]);
    expect(findNul({ a: 'ok', b: { c: ['x', 'y\u0000'] }, d: 'z\u0000' })).toEqual(['b', 'c', 1]);
    expect(findNul({ meta: { ['k\u0000']: 1 } })).toEqual(['meta', 'k\u0000']);
    expect(findNul([{ a: 1 }, { b: '\u0000' }])).toEqual([1, 'b']);
  });

  it('finds nothing in clean values of every JSON type', () => {
    expect(findNul({ a: 'text', b: 1, c: true, d: null, e: [1, 'two', { f: 'g' }], h: {} })).toBeNull();
    expect(findNul(undefined)).toBeNull();
    expect(findNul('\\u0000')).toBeNull(); // the escape's text, not the character
  });

  it('walks any depth without recursion', () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const path = findNul(deep);
    expect(path).toHaveLength(20_000);
    expect(path?.every((key) => key === 0)).toBe(true);
  });
});
