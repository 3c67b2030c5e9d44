import fc from 'fast-check';
import { ValidationError } from '@kessai/domain';
import { JSON_LIMITS, parseJsonText, scanJsonText } from './json-text';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const reasonOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  return null;
};

describe('scanJsonText', () => {
  it('refuses nesting beyond maxDepth, and takes maxDepth itself', () => {
    expect(scanJsonText(nested(JSON_LIMITS.maxDepth)).refused).toBeNull();
    expect(scanJsonText(nested(JSON_LIMITS.maxDepth + 1)).refused).toBe('depth');
    expect(scanJsonText(`{"a":${nested(500_000)}}`).refused).toBe('depth');
  });

  it('counts members and items per container, not per text', () => {
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;
    const items = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;
    expect(scanJsonText(members(JSON_LIMITS.maxMembers)).refused).toBeNull();
    expect(scanJsonText(members(JSON_LIMITS.maxMembers + 1)).refused).toBe('members');
    expect(scanJsonText(items(JSON_LIMITS.maxItems)).refused).toBeNull();
    expect(scanJsonText(items(JSON_LIMITS.maxItems + 1)).refused).toBe('items');
    // many small arrays side by side are fine: each has its own count
    expect(scanJsonText(`[${Array.from({ length: 5_000 }, () => '[1,2]').join(',')}]`).refused).toBeNull();
  });

  it('does not count brackets and commas inside strings', () => {
    const text = JSON.stringify({ a: '[[[[,,,,{{{{'.repeat(10_000), b: '\\"[' });
    expect(scanJsonText(text)).toEqual({ refused: null, suspectText: false });
  });

  it('notices U+0000 and lone surrogates spelled as escapes, not pairs or their text', () => {
    expect(scanJsonText('{"a":"x\\u0000"}').suspectText).toBe(true);
    expect(scanJsonText('{"a":"\\ud800"}').suspectText).toBe(true);
    expect(scanJsonText('{"a":"\\uDBFFx"}').suspectText).toBe(true);
    expect(scanJsonText('{"a":"\\udc00"}').suspectText).toBe(true);
    expect(scanJsonText('{"\\ud800":1}').suspectText).toBe(true);
    expect(scanJsonText('{"a":"\\ud800\\u0041"}').suspectText).toBe(true);
    expect(scanJsonText('{"a":"\\ud83d\\ude00"}').suspectText).toBe(false);
    expect(scanJsonText('{"a":"\\\\ud800"}').suspectText).toBe(false); // an escaped backslash, then text
    expect(scanJsonText('{"a":"😀 é"}').suspectText).toBe(false);
  });

  it('agrees with JSON.parse and isWellFormed on generated JSON (fixed seed)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('\ud800', 'x\u0000', '\udc00a', '\ud83d\ude00', '\\ud800'),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const serialised = JSON.stringify(value);
        expect(scanJsonText(serialised).refused).toBeNull();
        // refused exactly when some string or key holds U+0000 or a lone surrogate
        expect(reasonOf(() => parseJsonText(serialised)) !== null).toBe(holdsInvalidText(value));
      }),
      { seed: 27, numRuns: 500 },
    );
  });
});

/** Whether any string or key of a value holds U+0000 or a lone surrogate (recursive: small values). */
function holdsInvalidText(value: unknown): boolean {
  const bad = (s: string) =>
    s.includes('\u0000') || !(s as unknown as { isWellFormed(): boolean }).isWellFormed();
  if (typeof value === 'string') return bad(value);
  if (Array.isArray(value)) return value.some(holdsInvalidText);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).some(([k, v]) => bad(k) || holdsInvalidText(v));
  return false;
}

describe('parseJsonText', () => {
  it('parses what keeps the rules', () => {
    expect(parseJsonText('{"a":[1,"😀"],"b":{"c":null}}')).toEqual({ a: [1, '😀'], b: { c: null } });
  });

  it('names the field that breaks a string rule, under the given path', () => {
    expect(reasonOf(() => parseJsonText('{"a":{"b":["ok","\\ud800"]}}', ['metadata']))).toEqual([
      { field: 'metadata.a.b.1', reason: 'INVALID_FORMAT' },
    ]);
    expect(reasonOf(() => parseJsonText('{"x":"\\u0000"}'))).toEqual([
      { field: 'x', reason: 'INVALID_FORMAT' },
    ]);
  });

  it('refuses a text beyond the limits without parsing it', () => {
    expect(reasonOf(() => parseJsonText(nested(100_000)))).toEqual([
      { field: null, reason: 'NESTED_JSON_NOT_ALLOWED' },
    ]);
  });

  it('throws the parser’s own error on malformed JSON', () => {
    expect(() => parseJsonText('{"a":')).toThrow(SyntaxError);
  });
});
