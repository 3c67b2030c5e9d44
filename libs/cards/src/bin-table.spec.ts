import { CARD_TYPES, lookupBin } from './bin-table';
import { cardIssuerOf } from './card-issuer';
import { TEST_CARDS } from './test-cards';

describe('lookupBin', () => {
  it.each([
    // JCB 3528–3589: credit, Japan
    ['3530111300091111', 'credit', 'JP'],
    ['3528000700004242', 'credit', 'JP'],
    ['3589000000030000', 'credit', 'JP'],
    // Visa Electron prefixes: debit, country unknown
    ['4026000000020000', 'debit', null],
    ['4175000000010000', 'debit', null],
    ['4917000000040000', 'debit', null],
    // Maestro: debit
    ['5020000000050000', 'debit', null],
    ['6759649826438453', 'debit', null],
    // Discover's own ranges: credit, United States
    ['6011000000040000', 'credit', 'US'],
    ['6445000000000000', 'credit', 'US'],
    // UnionPay: China, type unknown
    ['6212345678010000', 'unknown', 'CN'],
  ] as const)('%s → %s, %s', (digits, cardType, country) => {
    expect(lookupBin(digits)).toEqual({ cardType, country });
  });

  it.each([
    '4539578700041111', // Visa outside the Electron prefixes
    '4175010000000000', // next to 417500
    '5425233430071111', // Mastercard
    '371449630001881', // American Express
    '3527000000080000', // just below JCB
    '3590000000000000', // just above JCB
    '6500000000020000', // Discover 65, shared with RuPay
    '',
  ])('knows nothing of %s: unknown, null', (digits) => {
    expect(lookupBin(digits)).toEqual({ cardType: 'unknown', country: null });
  });

  it('prefers the longest matching range', () => {
    // 417500 is Visa Electron, the rest of 4 is not in the table
    expect(lookupBin('4175000000000000').cardType).toBe('debit');
    expect(lookupBin('4174990000000000').cardType).toBe('unknown');
  });
});

describe('cardIssuerOf', () => {
  it("gives a catalogue card its entry's values, typed with spaces or not", () => {
    expect(cardIssuerOf('4000056655665556')).toEqual({ cardType: 'debit', country: 'JP' });
    expect(cardIssuerOf('4000 0566 5566 5556')).toEqual({ cardType: 'debit', country: 'JP' });
    expect(cardIssuerOf('4242424242424242')).toEqual({ cardType: 'credit', country: 'JP' });
    expect(cardIssuerOf('371449635398431')).toEqual({ cardType: 'charge_card', country: 'US' });
    expect(cardIssuerOf('2223003122003222')).toEqual({ cardType: 'unknown', country: null });
  });

  it('falls back on the BIN table for other numbers', () => {
    expect(cardIssuerOf('3530111300091111')).toEqual({ cardType: 'credit', country: 'JP' });
    expect(cardIssuerOf('4539578700004242')).toEqual({ cardType: 'unknown', country: null });
    expect(cardIssuerOf('not a card')).toEqual({ cardType: 'unknown', country: null });
  });

  it('gives every catalogue card a CardType and an ISO alpha-2 country or null', () => {
    for (const card of TEST_CARDS) {
      expect(CARD_TYPES).toContain(card.cardType);
      if (card.country !== null) expect(card.country).toMatch(/^[A-Z]{2}$/);
    }
    expect(new Set(TEST_CARDS.map((c) => c.cardType))).toEqual(new Set(CARD_TYPES));
  });

  it('never lets the catalogue contradict what the BIN table knows of a range', () => {
    for (const card of TEST_CARDS) {
      const known = lookupBin(card.number);
      if (known.cardType !== 'unknown')
        expect([card.number, card.cardType]).toEqual([card.number, known.cardType]);
      if (known.country !== null) expect([card.number, card.country]).toEqual([card.number, known.country]);
    }
  });
});
