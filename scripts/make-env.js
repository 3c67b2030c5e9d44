// Copies .env.example to .env, replacing the placeholder keys with fresh random ones.
const { randomBytes } = require('crypto');
const { readFileSync, writeFileSync } = require('fs');

const [from, to] = process.argv.slice(2);
const text = readFileSync(from, 'utf8')
  .replace(/^JWT_SIGNING_KEY=.*$/m, `JWT_SIGNING_KEY=${randomBytes(32).toString('hex')}`)
  .replace(/^VAULT_KEYS=.*$/m, `VAULT_KEYS=k1:${randomBytes(32).toString('base64')}`)
  .replace(/^VAULT_FINGERPRINT_SECRET=.*$/m, `VAULT_FINGERPRINT_SECRET=${randomBytes(32).toString('hex')}`);
writeFileSync(to, text, { mode: 0o600 });
