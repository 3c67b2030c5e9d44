import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Stored responses are encrypted (AES-256-GCM, key derived from the JWT signing key): a replayable
 * response can hold a newly issued app-token secret or a card's summary, which must not sit in
 * `idempotency_records` readable by anyone with database access.
 */
export class ResponseSealer {
  private readonly key: Buffer;

  constructor(signingKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', signingKey, 'kessai', 'idempotency-stored-response', 32));
  }

  seal(plaintext: string, binding: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(binding));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
      .join('.');
  }

  /** The stored text, or null when it cannot be read (tampered, or sealed under another key). */
  open(sealed: string, binding: string): string | null {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'), {
        authTagLength: 16,
      });
      decipher.setAAD(Buffer.from(binding));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return null;
    }
  }
}
