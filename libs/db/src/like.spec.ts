import { likeLiteral } from './like';

describe('likeLiteral', () => {
  it('escapes the wildcards and the escape character, and nothing else', () => {
    expect(likeLiteral('bob_smith@example.test')).toBe('bob\\_smith@example.test');
    expect(likeLiteral('100%')).toBe('100\\%');
    expect(likeLiteral('a\\b')).toBe('a\\\\b');
    expect(likeLiteral('Plain Store 1')).toBe('Plain Store 1');
  });
});
