import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { type ApplePayPaymentData } from '@kessai/processor';

/**
 * Apple Pay as a processor meets it (Apple's "Payment token format reference" and "Restoring the
 * symmetric key"), for EC_v1 payment data: the device encrypts the payment data for the merchant
 * public key of a payment processing certificate; the processor, which holds its private key, opens
 * it with ECDH (P-256) against the header's ephemeral key, the NIST SP 800-56A concatenation KDF
 * (SHA-256; algorithm id 0x0D "id-aes256-GCM", party U "Apple", party V SHA-256 of the merchant
 * identifier) and AES-256-GCM with an IV of 16 zero bytes, the last 16 bytes of `data` its tag.
 *
 * Test mode, what differs from Apple's live tokens: the simulator's merchant key is its own (no
 * Apple-issued certificate), and the signature is the test wallet's ECDSA (P-256, SHA-256, DER)
 * over what Apple signs (ephemeral public key, data, transaction id, application data), checked
 * against the test wallet's key, not a PKCS #7 signature chained to Apple Root CA - G3; no signing
 * time is checked. RSA_v1 is refused. Live Apple Pay is no part of the simulator.
 */

/** the test merchant's identifier (a payment processing certificate's merchant id) */
export const APPLE_PAY_TEST_MERCHANT_IDENTIFIER = 'merchant.test.kessai.simulator';

/** The decrypted payment data (Apple's "Payment data keys"), 3-D Secure kind: what the device tokenised. */
export interface ApplePayDecryptedData {
  /** the device account number (DPAN) */
  applicationPrimaryAccountNumber: string;
  /** YYMMDD */
  applicationExpirationDate: string;
  /** ISO 4217 numeric, as a string */
  currencyCode: string;
  /** in the currency's minor units */
  transactionAmount: number;
  cardholderName?: string;
  deviceManufacturerIdentifier: string;
  paymentDataType: '3DSecure';
  paymentData: { onlinePaymentCryptogram: string; eciIndicator?: string };
}

export type ApplePayOpened =
  { ok: true; data: ApplePayDecryptedData; transactionId: string } | { ok: false; reason: string };

const GCM_IV = Buffer.alloc(16);
const TAG_BYTES = 16;
const ALGORITHM_ID = Buffer.concat([Buffer.from([0x0d]), Buffer.from('id-aes256-GCM', 'ascii')]);
const PARTY_U = Buffer.from('Apple', 'ascii');

/**
 * ISO 4217 numeric codes of the currencies the test wallet and the simulator take (Apple's
 * currencyCode is numeric; the processor's wire names currencies by their letters).
 */
export const ISO_4217_NUMERIC: Readonly<Record<string, string>> = {
  JPY: '392',
  USD: '840',
  EUR: '978',
  GBP: '826',
  AUD: '036',
  CAD: '124',
  CNY: '156',
  HKD: '344',
  KRW: '410',
  SGD: '702',
  TWD: '901',
  THB: '764',
};

/** The symmetric key of EC_v1 payment data: the KDF of "Restoring the symmetric key". */
function symmetricKey(sharedSecret: Buffer, merchantIdentifier: string): Buffer {
  const partyV = createHash('sha256').update(merchantIdentifier, 'ascii').digest();
  return createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(sharedSecret)
    .update(ALGORITHM_ID)
    .update(PARTY_U)
    .update(partyV)
    .digest();
}

/** What Apple's signature covers for EC_v1: ephemeral public key, data, transaction id, application data. */
function signedBytes(paymentData: ApplePayPaymentData): Buffer {
  const { header } = paymentData;
  return Buffer.concat([
    Buffer.from(header.ephemeralPublicKey ?? '', 'base64'),
    Buffer.from(paymentData.data, 'base64'),
    Buffer.from(header.transactionId, 'hex'),
    Buffer.from(header.applicationData ?? '', 'hex'),
  ]);
}

const newP256Key = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

function spkiBase64(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'der' }).toString('base64');
}

/**
 * The simulator's Apple Pay keys: the test merchant's payment processing key (whose public half a
 * device encrypts for) and the test wallet's signing key (what stands in for Apple's). Random per
 * simulator start unless given (PEM, PKCS #8).
 */
export class ApplePayTestKeys {
  readonly merchantIdentifier: string;
  readonly #merchantPrivate: KeyObject;
  readonly merchantPublic: KeyObject;
  readonly #walletPrivate: KeyObject;
  readonly walletPublic: KeyObject;

  constructor(options: { merchantKeyPem?: string; walletKeyPem?: string; merchantIdentifier?: string } = {}) {
    this.merchantIdentifier = options.merchantIdentifier ?? APPLE_PAY_TEST_MERCHANT_IDENTIFIER;
    this.#merchantPrivate = options.merchantKeyPem
      ? createPrivateKey(options.merchantKeyPem)
      : newP256Key().privateKey;
    this.merchantPublic = createPublicKey(this.#merchantPrivate);
    this.#walletPrivate = options.walletKeyPem
      ? createPrivateKey(options.walletKeyPem)
      : newP256Key().privateKey;
    this.walletPublic = createPublicKey(this.#walletPrivate);
  }

  /** base64 SHA-256 of the merchant public key's X.509 SubjectPublicKeyInfo: the header's publicKeyHash */
  get publicKeyHash(): string {
    return createHash('sha256')
      .update(this.merchantPublic.export({ type: 'spki', format: 'der' }))
      .digest('base64');
  }

  /** What GET /apple_pay/test_merchant publishes: enough for a test device to encrypt for the simulator. */
  describe(): { merchant_identifier: string; public_key: string; public_key_hash: string } {
    return {
      merchant_identifier: this.merchantIdentifier,
      public_key: spkiBase64(this.merchantPublic),
      public_key_hash: this.publicKeyHash,
    };
  }

  /**
   * Opens payment data as the processor: the version, the merchant key it was made for, the
   * signature, then the decryption (a wrong key or altered data fails GCM's tag) and the payment
   * data's own form. Never says more than why: the card number stays inside.
   */
  open(paymentData: ApplePayPaymentData): ApplePayOpened {
    if (paymentData.version !== 'EC_v1')
      return { ok: false, reason: `${paymentData.version} is not supported` };
    const { header } = paymentData;
    if (!header.ephemeralPublicKey) return { ok: false, reason: 'the header has no ephemeral public key' };
    if (header.publicKeyHash !== this.publicKeyHash)
      return { ok: false, reason: 'the payment data was encrypted for another merchant key' };
    const signature = Buffer.from(paymentData.signature, 'base64');
    let signed = false;
    try {
      signed = verify('sha256', signedBytes(paymentData), this.walletPublic, signature);
    } catch {
      signed = false;
    }
    if (!signed) return { ok: false, reason: 'the signature does not verify' };
    let plaintext: Buffer;
    try {
      const ephemeral = createPublicKey({
        key: Buffer.from(header.ephemeralPublicKey, 'base64'),
        format: 'der',
        type: 'spki',
      });
      const secret = diffieHellman({ privateKey: this.#merchantPrivate, publicKey: ephemeral });
      const sealed = Buffer.from(paymentData.data, 'base64');
      if (sealed.length <= TAG_BYTES) return { ok: false, reason: 'the payment data is too short' };
      const decipher = createDecipheriv(
        'aes-256-gcm',
        symmetricKey(secret, this.merchantIdentifier),
        GCM_IV,
        {
          authTagLength: TAG_BYTES,
        },
      );
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      plaintext = Buffer.concat([
        decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      return { ok: false, reason: 'the payment data could not be decrypted' };
    }
    const data = decryptedDataOf(plaintext);
    if (!data) return { ok: false, reason: 'the decrypted payment data is malformed' };
    return { ok: true, data, transactionId: header.transactionId.toLowerCase() };
  }

  /**
   * The test wallet: what a device makes for the simulator's merchant key, signed with the test
   * wallet's key. `applicationData` (hex SHA-256 of the request's applicationData) is optional, as
   * in Apple's header.
   */
  seal(data: ApplePayDecryptedData, options: { applicationData?: string } = {}): ApplePayPaymentData {
    const ephemeral = newP256Key();
    const secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: this.merchantPublic });
    const cipher = createCipheriv('aes-256-gcm', symmetricKey(secret, this.merchantIdentifier), GCM_IV, {
      authTagLength: TAG_BYTES,
    });
    const sealed = Buffer.concat([
      cipher.update(JSON.stringify(data), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    const unsigned: ApplePayPaymentData = {
      version: 'EC_v1',
      data: sealed.toString('base64'),
      signature: '',
      header: {
        ephemeralPublicKey: spkiBase64(ephemeral.publicKey),
        publicKeyHash: this.publicKeyHash,
        transactionId: randomBytes(32).toString('hex'),
        ...(options.applicationData ? { applicationData: options.applicationData } : {}),
      },
    };
    const signature = sign('sha256', signedBytes(unsigned), this.#walletPrivate).toString('base64');
    return { ...unsigned, signature };
  }
}

/** The 3-D Secure payment data keys, checked field by field. */
function decryptedDataOf(plaintext: Buffer): ApplePayDecryptedData | null {
  let value: unknown;
  try {
    value = JSON.parse(plaintext.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const data = value as Record<string, unknown>;
  const payment = data.paymentData as Record<string, unknown> | undefined;
  const ok =
    typeof data.applicationPrimaryAccountNumber === 'string' &&
    /^\d{12,19}$/.test(data.applicationPrimaryAccountNumber) &&
    typeof data.applicationExpirationDate === 'string' &&
    /^\d{2}(0[1-9]|1[0-2])\d{2}$/.test(data.applicationExpirationDate) &&
    typeof data.currencyCode === 'string' &&
    /^\d{3}$/.test(data.currencyCode) &&
    typeof data.transactionAmount === 'number' &&
    Number.isSafeInteger(data.transactionAmount) &&
    data.paymentDataType === '3DSecure' &&
    typeof payment === 'object' &&
    payment !== null &&
    typeof payment.onlinePaymentCryptogram === 'string' &&
    payment.onlinePaymentCryptogram.length > 0;
  return ok ? (data as unknown as ApplePayDecryptedData) : null;
}

/** The card an opened payment data authorizes: the device account number, its expiry month's year. */
export function cardOfApplePay(data: ApplePayDecryptedData): {
  number: string;
  exp_month: number;
  exp_year: number;
  cvv: null;
  cardholder: string;
} {
  const date = data.applicationExpirationDate;
  return {
    number: data.applicationPrimaryAccountNumber,
    exp_year: 2000 + Number(date.slice(0, 2)),
    exp_month: Number(date.slice(2, 4)),
    cvv: null,
    cardholder: data.cardholderName ?? 'APPLE PAY',
  };
}
