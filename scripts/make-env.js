// Writes .env for `npm start`. First run: copies .env.example with the placeholder keys replaced by
// fresh random ones and, when it says NODE_ENV=development, the development settings below. Later
// runs (`--add-missing .env`): appends a value for any such setting the existing .env lacks (a
// setting added since it was written), leaving everything else untouched.
const { randomBytes } = require('crypto');
const { appendFileSync, readFileSync, writeFileSync } = require('fs');

const generated = {
  JWT_SIGNING_KEY: () => randomBytes(32).toString('hex'),
  IDEMPOTENCY_KEY_SECRET: () => randomBytes(32).toString('hex'),
  VAULT_KEYS: () => `k1:${randomBytes(32).toString('base64')}`,
  VAULT_FINGERPRINT_SECRET: () => randomBytes(32).toString('hex'),
  PROCESSOR_CALLBACK_SECRET: () => randomBytes(32).toString('hex'),
  METRICS_TOKEN: () => randomBytes(24).toString('hex'),
  CONSOLE_SESSION_SECRET: () => randomBytes(32).toString('hex'),
};

// Settings for a development .env only (NODE_ENV=development): local webhook receivers. Production
// refuses them (libs/config), so they are never in .env.example's values.
const development = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: () => 'true',
};
const isDevelopment = (text) => /^NODE_ENV=development\s*$/m.test(text);

const args = process.argv.slice(2);
if (args[0] === '--add-missing') {
  const file = args[1];
  const text = readFileSync(file, 'utf8');
  const wanted = { ...generated, ...(isDevelopment(text) ? development : {}) };
  const missing = Object.keys(wanted).filter((name) => !new RegExp(`^${name}=`, 'm').test(text));
  if (missing.length > 0) {
    const lines = missing.map((name) => `${name}=${wanted[name]()}`).join('\n');
    appendFileSync(file, `${text.endsWith('\n') ? '' : '\n'}# added by npm start (new settings)\n${lines}\n`);
    console.log(`start: added ${missing.join(', ')} to ${file}`);
  }
} else {
  const [from, to] = args;
  let text = readFileSync(from, 'utf8');
  const values = { ...generated, ...(isDevelopment(text) ? development : {}) };
  for (const [name, make] of Object.entries(values)) {
    const line = new RegExp(`^${name}=.*$`, 'm');
    // a generated key the template lacks is appended rather than left out
    if (line.test(text)) text = text.replace(line, `${name}=${make()}`);
    else text += `${text.endsWith('\n') ? '' : '\n'}${name}=${make()}\n`;
  }
  writeFileSync(to, text, { mode: 0o600 });
}
