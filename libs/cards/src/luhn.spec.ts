import { luhnCheckDigit, passesLuhn } from './luhn';

describe('passesLuhn', () => {
  it.each([
    ['4111111111111111', true],
    ['4242424242424242', true],
    ['378282246310005', true],
    ['30569309025904', true],
    ['79927398713', true],
    ['4111111111111112', false],
    ['4242424242424241', false],
    ['79927398710', false],
    ['', false],
    ['4111 1111 1111 1111', false],
    ['abc', false],
  ])('%j → %s', (digits, expected) => {
    expect(passesLuhn(digits)).toBe(expected);
  });
});

describe('luhnCheckDigit', () => {
  it.each([
    ['7992739871', 3],
    ['411111111111111', 1],
    ['424242424242424', 2],
    ['37828224631000', 5],
  ])('%s → %i', (partial, digit) => {
    expect(luhnCheckDigit(partial)).toBe(digit);
    expect(passesLuhn(`${partial}${digit}`)).toBe(true);
  });

  it('refuses non-digits', () => {
    expect(() => luhnCheckDigit('12a')).toThrow(/digits only/);
  });
});
