import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

const sealingKey = (secret: string) =>
  Buffer.from(hkdfSync('sha256', secret, 'kessai', 'idempotency-stored-response', 32));

/**
 * Stored responses are encrypted (AES-256-GCM, key derived from IDEMPOTENCY_KEY_SECRET): a
 * replayable response can hold a newly issued app-token secret or a card's summary, which must not
 * sit in `idempotency_records` readable by anyone with database access. Responses sealed under a
 * previous secret (JWT_SIGNING_KEY's, before decision 0027) still open until they expire.
 */
export class ResponseSealer {
  private readonly key: Buffer;
  private readonly previous: Buffer[];

  constructor(secret: string, previous: readonly string[] = []) {
    this.key = sealingKey(secret);
    this.previous = previous.filter((old) => old !== secret).map(sealingKey);
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
    for (const key of [this.key, ...this.previous]) {
      const opened = openWith(key, iv, tag, ciphertext, binding);
      if (opened !== null) return opened;
    }
    return null;
  }
}

function openWith(key: Buffer, iv: string, tag: string, ciphertext: string, binding: string): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return null;
  }
}
