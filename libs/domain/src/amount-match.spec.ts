import { amountMatches } from './amount-match';

describe('amountMatches', () => {
  it.each([
    ['exact', 1000n, 1000n, true],
    ['exact', 1000n, 999n, false],
    ['exact', 1000n, 1001n, false],
    ['minimum', 1000n, 1000n, true],
    ['minimum', 1000n, 1500n, true],
    ['minimum', 1000n, 999n, false],
    ['maximum', 1000n, 1000n, true],
    ['maximum', 1000n, 1n, true],
    ['maximum', 1000n, 1001n, false],
    ['disabled', 1000n, 1n, true],
    ['disabled', 1000n, 5000n, true],
  ] as const)('%s: requested %p, received %p → %p', (rule, requested, received, expected) => {
    expect(amountMatches(rule, requested, received)).toBe(expected);
  });

  it.each(['exact', 'minimum', 'maximum', 'disabled'] as const)(
    '%s: nothing received pays nothing',
    (rule) => {
      expect(amountMatches(rule, 0n, 0n)).toBe(false);
    },
  );
});
