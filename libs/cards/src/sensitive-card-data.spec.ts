import { format, inspect } from 'node:util';
import { CardNumber } from './card-number';
import { SensitiveCardData } from './sensitive-card-data';

const PAN = '4000056655665556';
const CVV = '987';

function everyTextForm(value: CardNumber | SensitiveCardData): string {
  return [
    String(value),
    `${value.toString()}`,
    JSON.stringify(value),
    JSON.stringify({ nested: { value } }),
    inspect(value, { depth: 10, showHidden: true }),
    inspect({ nested: [value] }, { depth: 10 }),
    format('%s %o %O %j', value, value, value, value),
    Object.keys(value).join(','),
    JSON.stringify({ ...value }),
  ].join('\n');
}

describe('CardNumber', () => {
  const card = CardNumber.fromDigits(PAN);

  it('shows only the last four in every text form', () => {
    const text = everyTextForm(card);
    expect(text).not.toContain(PAN);
    expect(text).not.toContain('40000566');
    expect(text).toContain('5556');
    expect(inspect(card)).toBe('CardNumber(visa ****5556)');
  });

  it('reveals the digits on request and derives the display fields', () => {
    expect(card.reveal()).toBe(PAN);
    expect(card.lastFour).toBe('5556');
    expect(card.bin).toBe('400005');
    expect(card.brand).toBe('visa');
  });

  it('refuses non-digits without echoing them', () => {
    expect(() => CardNumber.fromDigits('4000 0566 5566 5556')).toThrow(TypeError);
    try {
      CardNumber.fromDigits(`${PAN}x`);
    } catch (error) {
      expect(String(error)).not.toContain(PAN);
    }
  });
});

describe('SensitiveCardData', () => {
  const data = new SensitiveCardData({
    cardNumber: CardNumber.fromDigits(PAN),
    cvv: CVV,
    expMonth: 9,
    expYear: 2028,
    cardholder: 'Taro Yamada',
  });

  it('shows the summary, never the PAN or CVV', () => {
    const text = everyTextForm(data);
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(CVV);
    expect(JSON.parse(JSON.stringify(data))).toEqual({
      cardholder: 'Taro Yamada',
      exp_month: 9,
      exp_year: 2028,
      last_four: '5556',
      brand: 'visa',
      card_bin: '400005',
      card_type: 'debit',
      country: 'JP',
      cvv: '[redacted]',
    });
  });

  it('drops the CVV for the copy that may be kept', () => {
    const kept = data.withoutCvv();
    expect(kept.hasCvv).toBe(false);
    expect(kept.revealCvv()).toBeNull();
    expect(data.revealCvv()).toBe(CVV);
    expect(kept.cardNumber.reveal()).toBe(PAN);
  });

  it('does not leak through an Error built from it', () => {
    const error = new Error(`authorization failed for ${String(data)}`);
    expect(`${error.message} ${inspect(error)}`).not.toContain(PAN);
  });
});
