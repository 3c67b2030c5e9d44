import { CARD_NUMBER_LENGTHS, detectCardBrand } from './brands';
import {
  findTestCard,
  isTestCard,
  TEST_CARDS,
  testCardFor,
  type TestCardOutcome,
  testCardOutcome,
} from './test-cards';
import { normalizeCardNumber } from './card-number';
import { passesLuhn } from './luhn';

describe('test card catalogue', () => {
  it.each(TEST_CARDS.map((card) => [card.number, card.brand, card.outcome] as const))(
    '%s is a valid %s number (%s)',
    (number, brand) => {
      expect(passesLuhn(number)).toBe(true);
      expect(detectCardBrand(number)).toBe(brand);
      expect(CARD_NUMBER_LENGTHS[brand]).toContain(number.length);
    },
  );

  it('lists each number once', () => {
    expect(new Set(TEST_CARDS.map((c) => c.number)).size).toBe(TEST_CARDS.length);
  });

  it("follows UnivaPay's rules: ending 1111 declines, 4242… refund fails, …1881 void fails", () => {
    for (const card of TEST_CARDS.filter((c) => c.number.endsWith('1111')))
      expect(card.outcome).toBe('declined');
    expect(findTestCard('4111111111111111')?.outcome).toBe('declined');
    expect(findTestCard('4242424242424242')?.outcome).toBe('refund_fails');
    expect(findTestCard('4012888888881881')?.outcome).toBe('void_fails');
  });

  it('has a distinct card for every outcome', () => {
    const outcomes: TestCardOutcome[] = [
      'approved',
      'declined',
      'refund_fails',
      'void_fails',
      'insufficient_funds',
      'expired_at_processor',
      'cvv_check_fails',
      'three_ds_required',
      'processor_timeout',
      'processor_unavailable',
    ];
    expect(new Set(TEST_CARDS.map((c) => c.outcome))).toEqual(new Set(outcomes));
    for (const outcome of outcomes) expect(testCardFor(outcome).outcome).toBe(outcome);
  });

  it('has approved numbers for every brand, including 15-digit amex and jcb', () => {
    const approvedBrands = new Set(TEST_CARDS.filter((c) => c.outcome === 'approved').map((c) => c.brand));
    expect(approvedBrands).toEqual(
      new Set([
        'visa',
        'mastercard',
        'american_express',
        'jcb',
        'diners_club',
        'discover',
        'unionpay',
        'maestro',
      ]),
    );
    expect(findTestCard('378282246310005')?.outcome).toBe('approved');
  });

  it('recognises test cards typed with spaces or hyphens, and nothing else', () => {
    expect(isTestCard('4111 1111 1111 1111')).toBe(true);
    expect(isTestCard('4111-1111-1111-1111')).toBe(true);
    expect(isTestCard('4539578763621486')).toBe(false);
    expect(isTestCard('not a card')).toBe(false);
  });
});

describe('testCardOutcome', () => {
  it('gives every catalogue card its scripted outcome', () => {
    for (const card of TEST_CARDS) expect(testCardOutcome(card.number)).toBe(card.outcome);
    expect(testCardOutcome('4000 0000 0000 3220')).toBe('three_ds_required');
  });

  it.each([
    // UnivaPay's test-mode rules for numbers outside the catalogue, by their last four digits
    ['4539578700041111', 'declined'],
    ['5425233430071111', 'declined'],
    ['3530111300091111', 'declined'],
    ['4539578700004242', 'refund_fails'],
    ['3528000700004242', 'refund_fails'],
    ['4539578700021881', 'void_fails'],
    ['371449630001881', 'void_fails'],
    ['4539578763621486', 'approved'],
    ['4539-5787-0004-1111', 'declined'],
    // near misses of the endings
    ['4539578700011114', 'approved'],
    ['4539578700042424', 'approved'],
    ['4539578700018812', 'approved'],
  ] as const)('%s → %s', (number, outcome) => {
    expect(passesLuhn(normalizeCardNumber(number) ?? '')).toBe(true);
    expect(isTestCard(number)).toBe(false);
    expect(testCardOutcome(number)).toBe(outcome);
  });
});
