import { CARD_NUMBER_LENGTHS, cvvLengths, detectCardBrand } from './brands';

describe('detectCardBrand', () => {
  it.each([
    ['4111111111111111', 'visa'],
    ['4222222222008', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['5105105105105100', 'mastercard'],
    ['2221000000000009', 'mastercard'],
    ['2720990000000000', 'mastercard'],
    ['378282246310005', 'american_express'],
    ['341111111111111', 'american_express'],
    ['30569309025904', 'diners_club'],
    ['36227206271667', 'diners_club'],
    ['3095000000000000', 'diners_club'],
    ['3841001111222233', 'diners_club'],
    ['3530111333300000', 'jcb'],
    ['3589000000000000', 'jcb'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['6500000000000002', 'discover'],
    ['6200000000000005', 'unionpay'],
    ['6250947000000006', 'unionpay'],
    ['8171999927660000', 'unionpay'],
    ['6759649826438453', 'maestro'],
    ['5018000000000009', 'maestro'],
    ['6304000000000000', 'maestro'],
    // just outside ranges, or ranges we do not support (Mir, UATP)
    ['2220990000000000', 'unknown'],
    ['2721000000000000', 'unknown'],
    ['2200000000000004', 'unknown'],
    ['3527000000000000', 'unknown'],
    ['3590000000000000', 'unknown'],
    ['122000000000003', 'unknown'],
    ['9000000000000000', 'unknown'],
    ['', 'unknown'],
  ])('%s → %s', (digits, brand) => {
    expect(detectCardBrand(digits)).toBe(brand);
  });

  it('prefers the longest matching prefix (3528–3589 JCB inside the 35 space, 6011 Discover)', () => {
    expect(detectCardBrand('3528000000000000')).toBe('jcb');
    expect(detectCardBrand('6011000990139424')).toBe('discover');
  });
});

describe('brand rules', () => {
  it('has the published lengths', () => {
    expect(CARD_NUMBER_LENGTHS.american_express).toEqual([15]);
    expect(CARD_NUMBER_LENGTHS.visa).toEqual([13, 16, 19]);
    expect(CARD_NUMBER_LENGTHS.mastercard).toEqual([16]);
    expect(CARD_NUMBER_LENGTHS.diners_club).toContain(14);
    expect(CARD_NUMBER_LENGTHS.maestro).toContain(12);
  });

  it('asks 4 CVV digits of American Express, 3 of the others, either when unknown', () => {
    expect(cvvLengths('american_express')).toEqual([4]);
    expect(cvvLengths('visa')).toEqual([3]);
    expect(cvvLengths('jcb')).toEqual([3]);
    expect(cvvLengths('unknown')).toEqual([3, 4]);
  });
});
