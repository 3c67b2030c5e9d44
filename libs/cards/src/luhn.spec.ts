import { mayHoldCardNumber, luhnCheckDigit, passesLuhn } from './luhn';

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

describe('mayHoldCardNumber', () => {
  it('finds a Luhn-valid 13–19 digit run, grouped or not', () => {
    expect(mayHoldCardNumber('4000056655665556')).toBe(true);
    expect(mayHoldCardNumber('req-4000-0566-5566-5556')).toBe(true);
    expect(mayHoldCardNumber('a.4000.0566.5566.5556.b')).toBe(true);
  });

  it('leaves other ids alone', () => {
    expect(mayHoldCardNumber('4000056655665557')).toBe(false); // fails Luhn
    expect(mayHoldCardNumber('38059c0f-6f6d-4d05-8a34-b979119e5e13')).toBe(false);
    expect(mayHoldCardNumber('order-20261125-000123-456789')).toBe(false); // 20 digits
    expect(mayHoldCardNumber('123456789012')).toBe(false); // 12 digits
  });
});
