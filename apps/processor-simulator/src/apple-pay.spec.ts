import { createHash, generateKeyPairSync } from 'node:crypto';
import { ApplePayTestKeys, cardOfApplePay, type ApplePayDecryptedData } from './apple-pay';

const decrypted: ApplePayDecryptedData = {
  applicationPrimaryAccountNumber: '5555555555554444',
  applicationExpirationDate: '301231',
  currencyCode: '392',
  transactionAmount: 2400,
  deviceManufacturerIdentifier: '040010030273',
  paymentDataType: '3DSecure',
  paymentData: { onlinePaymentCryptogram: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=', eciIndicator: '7' },
};

/** base64 with one byte flipped */
function flipped(base64: string, at: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[at] ^= 0x01;
  return bytes.toString('base64');
}

describe('Apple Pay EC_v1 payment data in the simulator', () => {
  const keys = new ApplePayTestKeys();

  it('opens what the test wallet sealed for its merchant key, and publishes that key and its hash', () => {
    const sealed = keys.seal(decrypted);
    expect(sealed).toMatchObject({ version: 'EC_v1', header: { publicKeyHash: keys.publicKeyHash } });
    expect(sealed.header.transactionId).toMatch(/^[0-9a-f]{64}$/);
    // the data is ciphertext: the card number is nowhere in the token
    expect(JSON.stringify(sealed)).not.toContain('5555555555554444');
    expect(keys.open(sealed)).toEqual({
      ok: true,
      data: decrypted,
      transactionId: sealed.header.transactionId,
    });
    const published = keys.describe();
    expect(published.public_key_hash).toBe(
      createHash('sha256').update(Buffer.from(published.public_key, 'base64')).digest('base64'),
    );
  });

  it('refuses data altered, signed over another transaction, made for another merchant key, or RSA_v1', () => {
    const sealed = keys.seal(decrypted);
    expect(keys.open({ ...sealed, data: flipped(sealed.data, 3) })).toEqual({
      ok: false,
      reason: 'the signature does not verify',
    });
    expect(keys.open({ ...sealed, header: { ...sealed.header, transactionId: 'ab'.repeat(32) } })).toEqual({
      ok: false,
      reason: 'the signature does not verify',
    });
    const other = new ApplePayTestKeys().seal(decrypted);
    expect(keys.open(other)).toEqual({
      ok: false,
      reason: 'the payment data was encrypted for another merchant key',
    });
    expect(keys.open({ ...sealed, version: 'RSA_v1' })).toEqual({
      ok: false,
      reason: 'RSA_v1 is not supported',
    });
  });

  it('refuses data sealed for another merchant key but naming this one: GCM’s tag fails', () => {
    // one wallet (the signature verifies), two merchants; the hash is not under the signature
    const walletKeyPem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const ours = new ApplePayTestKeys({ walletKeyPem });
    const theirs = new ApplePayTestKeys({ walletKeyPem });
    const foreign = theirs.seal(decrypted);
    expect(theirs.open(foreign)).toMatchObject({ ok: true });
    expect(
      ours.open({ ...foreign, header: { ...foreign.header, publicKeyHash: ours.publicKeyHash } }),
    ).toEqual({
      ok: false,
      reason: 'the payment data could not be decrypted',
    });
  });

  it('authorizes the device account number, its expiry from YYMMDD', () => {
    expect(cardOfApplePay(decrypted)).toEqual({
      number: '5555555555554444',
      exp_year: 2030,
      exp_month: 12,
      cvv: null,
      cardholder: 'APPLE PAY',
    });
  });
});
