import { randomBytes, randomUUID } from 'node:crypto';
import { format, inspect } from 'node:util';
import { ProcessorCredentialsCipher } from './processor-credentials-cipher';
import type { VaultKey } from './sealing-keys';
import { UnknownVaultKeyError } from './vault-errors';
import { WebhookSecretsCipher, WebhookSecretsIntegrityError } from './webhook-secrets-cipher';

const key = (id: string): VaultKey => ({ id, key: randomBytes(32) });
const k1 = key('k1');
const k2 = key('k2');
const SECRETS = {
  signingSecret: `whsec_${randomBytes(32).toString('base64')}`,
  previousSigningSecret: `whsec_${randomBytes(32).toString('base64')}`,
  authToken: 'Bearer cipher-spec-token',
};

describe('WebhookSecretsCipher', () => {
  const cipher = new WebhookSecretsCipher([k1]);

  it('round-trips the secrets bound to their webhook, nothing of them in the clear', () => {
    const id = randomUUID();
    const entry = cipher.seal(SECRETS, id);
    expect(entry.keyId).toBe('k1');
    const stored = Buffer.from(entry.ciphertext).toString('latin1');
    for (const secret of Object.values(SECRETS)) expect(stored).not.toContain(secret);
    expect(cipher.open(entry, id)).toEqual(SECRETS);
    const bare = { signingSecret: SECRETS.signingSecret, previousSigningSecret: null, authToken: null };
    expect(cipher.open(cipher.seal(bare, id), id)).toEqual(bare);
  });

  it('reads an old row’s plaintext as it is, a sealed row by opening it', () => {
    const id = randomUUID();
    expect(cipher.read({ sealed: null, plain: SECRETS }, id)).toBe(SECRETS);
    expect(cipher.read({ sealed: cipher.seal(SECRETS, id), plain: null }, id)).toEqual(SECRETS);
  });

  it('refuses secrets moved onto another webhook, altered, or sealed as something else', () => {
    const id = randomUUID();
    const entry = cipher.seal(SECRETS, id);
    expect(() => cipher.open(entry, randomUUID())).toThrow(WebhookSecretsIntegrityError);
    const authTag = Uint8Array.from(entry.authTag, (b, i) => (i === 0 ? b ^ 1 : b));
    expect(() => cipher.open({ ...entry, authTag }, id)).toThrow(WebhookSecretsIntegrityError);
    const credentials = new ProcessorCredentialsCipher([k1]).seal(
      { secretKey: 'sk', webhookSecret: null },
      id,
    );
    expect(() => cipher.open(credentials, id)).toThrow(WebhookSecretsIntegrityError);
  });

  it('opens under an older key after rotation and re-encrypts under the active one', () => {
    const id = randomUUID();
    const old = new WebhookSecretsCipher([k1]).seal(SECRETS, id);
    const rotated = new WebhookSecretsCipher([k2, k1]);
    expect(rotated.open(old, id)).toEqual(SECRETS);
    const next = rotated.reencrypt(old, id);
    expect(next.keyId).toBe('k2');
    expect(new WebhookSecretsCipher([k2]).open(next, id)).toEqual(SECRETS);
    expect(() => new WebhookSecretsCipher([k2]).open(old, id)).toThrow(UnknownVaultKeyError);
  });

  it('shows no key when logged', () => {
    for (const text of [format('%o', cipher), inspect(cipher), JSON.stringify(cipher)])
      expect(text).not.toContain(k1.key.toString('base64'));
  });
});
