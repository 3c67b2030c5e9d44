import { parseTokenThreeDsReference, tokenThreeDsReference, tokenThreeDsRefusal } from './token-three-ds';

describe('token 3-D Secure', () => {
  const tokenId = '0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';

  it('names each attempt with its own reference, and reads it back', () => {
    expect(tokenThreeDsReference(tokenId, 2)).toBe(`${tokenId}.three_ds.2`);
    expect(parseTokenThreeDsReference(tokenThreeDsReference(tokenId, 2))).toEqual({ tokenId, attempt: 2 });
  });

  it('does not take a charge reference, or anything else, for a token’s', () => {
    expect(parseTokenThreeDsReference(tokenId)).toBeNull();
    expect(parseTokenThreeDsReference(`${tokenId}.three_ds.0`)).toBeNull();
    expect(parseTokenThreeDsReference(`${tokenId}.three_ds.1x`)).toBeNull();
    expect(parseTokenThreeDsReference('sim_pay_1')).toBeNull();
  });

  it('lets a charge use a token without 3-D Secure, with it disabled, or authenticated', () => {
    expect(tokenThreeDsRefusal(null)).toBeNull();
    expect(tokenThreeDsRefusal({ enabled: false, status: 'failed' })).toBeNull();
    expect(tokenThreeDsRefusal({ enabled: true, status: 'successful' })).toBeNull();
  });

  it('refuses a failed authentication, and one not finished yet', () => {
    expect(tokenThreeDsRefusal({ enabled: true, status: 'failed' })).toBe('THREE_DS_COULD_NOT_BE_COMPLETED');
    expect(tokenThreeDsRefusal({ enabled: true, status: 'error' })).toBe('THREE_DS_COULD_NOT_BE_COMPLETED');
    expect(tokenThreeDsRefusal({ enabled: true, status: 'pending' })).toBe('INVALID_THREE_DS_STATUS');
    expect(tokenThreeDsRefusal({ enabled: true, status: 'awaiting' })).toBe('INVALID_THREE_DS_STATUS');
  });
});
