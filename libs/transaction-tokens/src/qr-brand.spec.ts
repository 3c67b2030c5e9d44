import { detectQrBrand } from './qr-brand';

describe('detectQrBrand', () => {
  it.each([
    ['134567890123456789', 'we_chat'],
    ['280000000000000001', 'alipay'],
    ['2512345678901234', 'alipay'],
    ['13456789012345678', null],
    ['990000000000000001', null],
    ['https://qr.example/x', null],
  ])('%s → %s', (code, brand) => {
    expect(detectQrBrand(code)).toBe(brand);
  });
});
