import { ConfigError, loadConfig } from './load-config';

const key = Buffer.alloc(32, 7).toString('base64');
const valid = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/kessai',
  REDIS_URL: 'redis://127.0.0.1:6379',
  JWT_SIGNING_KEY: 'x'.repeat(32),
  IDEMPOTENCY_KEY_SECRET: 'i'.repeat(32),
  VAULT_KEYS: `k1:${key}`,
  VAULT_FINGERPRINT_SECRET: 'f'.repeat(32),
  PROCESSOR_CALLBACK_SECRET: 'p'.repeat(32),
  CONSOLE_SESSION_SECRET: 'c'.repeat(32),
};

/** Production's address, which production requires. */
const PUBLIC_BASE_URL = 'https://pay.example.com';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults to a minimal valid environment', () => {
    const config = loadConfig(valid);
    expect(config.PORT).toBe(3000);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.REDIS_PREFIX).toBe('kessai');
    expect(config.VAULT_KEYS).toEqual([{ id: 'k1', key: Buffer.alloc(32, 7) }]);
  });

  it('takes an empty value as unset: the default applies, an optional setting stays unset, a required one is missing', () => {
    const config = loadConfig({
      ...valid,
      PORT: '',
      APP_TOKEN_CACHE_TTL_MS: '',
      METRICS_TOKEN: '',
      QUEUE_DASHBOARD_PASSWORD: '',
    });
    expect(config.PORT).toBe(3000);
    // not coerced to 0
    expect(config.APP_TOKEN_CACHE_TTL_MS).toBe(1_000);
    expect(config.METRICS_TOKEN).toBeUndefined();
    expect(config.QUEUE_DASHBOARD_PASSWORD).toBeUndefined();
    expect(problemsOf({ ...valid, JWT_SIGNING_KEY: '' })).toEqual(['JWT_SIGNING_KEY is required']);
    expect(problemsOf({ ...valid, QUEUE_DASHBOARD_ENABLED: 'true', QUEUE_DASHBOARD_PASSWORD: '' })).toEqual([
      'QUEUE_DASHBOARD_PASSWORD is required when QUEUE_DASHBOARD_ENABLED=true',
    ]);
  });

  it('keeps a refund re-drive schedule within 12 hours', () => {
    // 340 × 127 = 43,180 s
    expect(
      loadConfig({ ...valid, REFUND_REDRIVE_MAX: '7', REFUND_REDRIVE_BASE_SECONDS: '340' }),
    ).toMatchObject({
      REFUND_REDRIVE_MAX: 7,
    });
    expect(problemsOf({ ...valid, REFUND_REDRIVE_MAX: '7', REFUND_REDRIVE_BASE_SECONDS: '341' })).toEqual([
      expect.stringContaining('REFUND_REDRIVE_BASE_SECONDS × (2^REFUND_REDRIVE_MAX − 1) is 43307 s'),
    ]);
    expect(loadConfig({ ...valid, REFUND_REDRIVE_MAX: '0' }).REFUND_REDRIVE_MAX).toBe(0);
  });

  it('coerces PORT from the environment string', () => {
    expect(loadConfig({ ...valid, PORT: '4123' }).PORT).toBe(4123);
  });

  it('names every missing variable', () => {
    const problems = problemsOf({});
    expect(problems).toEqual(
      expect.arrayContaining([
        'DATABASE_URL is required',
        'REDIS_URL is required',
        'JWT_SIGNING_KEY is required',
        'IDEMPOTENCY_KEY_SECRET is required',
        'VAULT_KEYS is required',
        'VAULT_FINGERPRINT_SECRET is required',
        'PROCESSOR_CALLBACK_SECRET is required',
      ]),
    );
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['REDIS_URL', 'not a url'],
    ['JWT_SIGNING_KEY', 'short'],
    ['IDEMPOTENCY_KEY_SECRET', 'short'],
    ['VAULT_KEYS', 'k1:dG9vc2hvcnQ='],
    ['VAULT_KEYS', `k1:${key},k1:${key}`],
    ['VAULT_FINGERPRINT_SECRET', 'short'],
    ['CVV_TTL_SECONDS', '0'],
    ['LOG_LEVEL', 'loud'],
    ['REDIS_PREFIX', 'has:colon'],
  ])('rejects %s=%s with a message naming it', (name, value) => {
    const problems = problemsOf({ ...valid, [name]: value });
    expect(problems.length).toBeGreaterThanOrEqual(1);
    for (const problem of problems) expect(problem).toMatch(new RegExp(`^${name} `));
  });

  it('keeps webhooks off private targets by default; production refuses the blanket setting, not the list', () => {
    expect(loadConfig(valid)).toMatchObject({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      WEBHOOK_ALLOWED_PRIVATE_TARGETS: [],
    });
    expect(
      loadConfig({ ...valid, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS,
    ).toBe(true);
    expect(
      problemsOf({
        ...valid,
        NODE_ENV: 'production',
        PUBLIC_BASE_URL,
        HOST: '127.0.0.1',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      }),
    ).toEqual([
      expect.stringMatching(/^WEBHOOK_ALLOW_PRIVATE_TARGETS=true is refused when NODE_ENV=production/),
    ]);
    const listed = loadConfig({
      ...valid,
      NODE_ENV: 'production',
      PUBLIC_BASE_URL,
      HOST: '127.0.0.1',
      WEBHOOK_ALLOWED_PRIVATE_TARGETS: '127.0.0.1:23199, [::1]:8443',
    });
    expect(listed.WEBHOOK_ALLOWED_PRIVATE_TARGETS).toEqual(['127.0.0.1:23199', '[::1]:8443']);
    for (const bad of [
      'localhost:80',
      '127.0.0.1',
      '::1:80',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '10.0.0.1:80/x',
    ])
      expect(problemsOf({ ...valid, WEBHOOK_ALLOWED_PRIVATE_TARGETS: bad })).toEqual([
        expect.stringMatching(/^WEBHOOK_ALLOWED_PRIVATE_TARGETS each entry must be/),
      ]);
  });

  it('keeps the queue dashboard off by default, and on only with a password', () => {
    expect(loadConfig(valid).QUEUE_DASHBOARD_ENABLED).toBe(false);
    expect(problemsOf({ ...valid, QUEUE_DASHBOARD_ENABLED: 'true' })).toEqual([
      'QUEUE_DASHBOARD_PASSWORD is required when QUEUE_DASHBOARD_ENABLED=true',
    ]);
    const secret = 'a-long-enough-dashboard-password';
    const config = loadConfig({
      ...valid,
      QUEUE_DASHBOARD_ENABLED: 'true',
      QUEUE_DASHBOARD_PASSWORD: secret,
    });
    expect(config).toMatchObject({ QUEUE_DASHBOARD_ENABLED: true, QUEUE_DASHBOARD_USERNAME: 'admin' });
    const short = problemsOf({
      ...valid,
      QUEUE_DASHBOARD_ENABLED: 'true',
      QUEUE_DASHBOARD_PASSWORD: 'short-secret',
    });
    expect(short).toEqual(['QUEUE_DASHBOARD_PASSWORD must be at least 16 characters']);
    expect(problemsOf({ ...valid, QUEUE_DASHBOARD_USERNAME: 'ops:team' })[0]).toMatch(
      /^QUEUE_DASHBOARD_USERNAME /,
    );
  });

  it(".env.example's placeholder secrets pass in development only", () => {
    const placeholder = 'change-me-to-at-least-32-random-characters';
    const withPlaceholders = {
      ...valid,
      JWT_SIGNING_KEY: placeholder,
      IDEMPOTENCY_KEY_SECRET: placeholder,
      VAULT_FINGERPRINT_SECRET: placeholder,
      PROCESSOR_CALLBACK_SECRET: placeholder,
    };
    expect(loadConfig({ ...withPlaceholders, NODE_ENV: 'development' }).JWT_SIGNING_KEY).toBe(placeholder);
    for (const NODE_ENV of ['test', 'production']) {
      expect(problemsOf({ ...withPlaceholders, NODE_ENV, HOST: '127.0.0.1', PUBLIC_BASE_URL })).toEqual([
        "JWT_SIGNING_KEY is .env.example's placeholder: set a random value (node scripts/make-env.js)",
        "IDEMPOTENCY_KEY_SECRET is .env.example's placeholder: set a random value (node scripts/make-env.js)",
        "VAULT_FINGERPRINT_SECRET is .env.example's placeholder: set a random value (node scripts/make-env.js)",
        "PROCESSOR_CALLBACK_SECRET is .env.example's placeholder: set a random value (node scripts/make-env.js)",
      ]);
    }
  });

  it('refuses an open /metrics on a non-loopback address in production', () => {
    expect(problemsOf({ ...valid, NODE_ENV: 'production', HOST: '0.0.0.0', PUBLIC_BASE_URL })).toEqual([
      'METRICS_TOKEN is required in production when HOST (0.0.0.0) is not a loopback address: /metrics would be open',
    ]);
    expect(
      loadConfig({
        ...valid,
        NODE_ENV: 'production',
        HOST: '0.0.0.0',
        METRICS_TOKEN: 'm'.repeat(16),
        PUBLIC_BASE_URL,
      }).HOST,
    ).toBe('0.0.0.0');
    for (const HOST of ['127.0.0.1', '::1', 'localhost'])
      expect(loadConfig({ ...valid, NODE_ENV: 'production', HOST, PUBLIC_BASE_URL }).HOST).toBe(HOST);
    expect(loadConfig({ ...valid, NODE_ENV: 'development', HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it('requires PUBLIC_BASE_URL in production: absolute URLs never come from a request header', () => {
    expect(problemsOf({ ...valid, NODE_ENV: 'production', HOST: '127.0.0.1' })).toEqual([
      'PUBLIC_BASE_URL is required in production (e.g. https://pay.example.com): the URLs the API hands out are built from it',
    ]);
    expect(loadConfig({ ...valid, NODE_ENV: 'development' }).PUBLIC_BASE_URL).toBeUndefined();
    expect(loadConfig({ ...valid, PUBLIC_BASE_URL: 'https://pay.example.com/kessai' }).PUBLIC_BASE_URL).toBe(
      'https://pay.example.com/kessai',
    );
    for (const bad of [
      'ftp://pay.example.com',
      'https://pay.example.com/?a=b',
      'https://pay.example.com/#x',
      'pay.example.com',
    ])
      expect(problemsOf({ ...valid, PUBLIC_BASE_URL: bad })).toEqual([
        expect.stringMatching(/^PUBLIC_BASE_URL /),
      ]);
  });

  it('reads TRUST_PROXY as a list of addresses and ranges, refusing anything else', () => {
    expect(loadConfig(valid).TRUST_PROXY).toBeUndefined();
    expect(loadConfig({ ...valid, TRUST_PROXY: '10.0.0.0/8, ::1,127.0.0.1' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '::1',
      '127.0.0.1',
    ]);
    for (const bad of ['true', '10.0.0.0/33', 'proxy.example', '10.0.0.1,*'])
      expect(problemsOf({ ...valid, TRUST_PROXY: bad })).toEqual([expect.stringMatching(/^TRUST_PROXY /)]);
  });

  it('requires of each process the secrets it uses, and only those', () => {
    const shared = { DATABASE_URL: valid.DATABASE_URL, REDIS_URL: valid.REDIS_URL };
    expect(loadConfig(shared, 'subscription-service').JWT_SIGNING_KEY).toBeUndefined();
    // it opens webhooks' sealed secrets (decision 0086): the vault's keys, nothing else secret
    const hooks = loadConfig({ ...shared, VAULT_KEYS: valid.VAULT_KEYS }, 'webhook-service');
    expect(hooks.JWT_SIGNING_KEY).toBeUndefined();
    expect(hooks.VAULT_FINGERPRINT_SECRET).toBeUndefined();
    const vault = { VAULT_KEYS: valid.VAULT_KEYS, VAULT_FINGERPRINT_SECRET: valid.VAULT_FINGERPRINT_SECRET };
    // it opens processor accounts' credentials, never a card: the vault's keys, not its fingerprint secret
    const refunds = loadConfig({ ...shared, VAULT_KEYS: valid.VAULT_KEYS }, 'refund-cancel-service');
    expect(refunds.JWT_SIGNING_KEY).toBeUndefined();
    expect(refunds.VAULT_FINGERPRINT_SECRET).toBeUndefined();
    expect(loadConfig({ ...shared, ...vault }, 'charge-service').VAULT_KEYS).toHaveLength(1);
    const problems = (env: NodeJS.ProcessEnv, process: Parameters<typeof loadConfig>[1]) => {
      try {
        loadConfig(env, process);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems(shared, 'refund-cancel-service')).toEqual([
      'VAULT_KEYS is required (the refund-cancel-service uses it)',
    ]);
    expect(problems(shared, 'webhook-service')).toEqual([
      'VAULT_KEYS is required (the webhook-service uses it)',
    ]);
    expect(problems(shared, 'charge-service')).toEqual([
      'VAULT_KEYS is required (the charge-service uses it)',
      'VAULT_FINGERPRINT_SECRET is required (the charge-service uses it)',
    ]);
    expect(problems({ ...shared, ...vault }, 'gateway')).toEqual([
      'JWT_SIGNING_KEY is required (the gateway uses it)',
      'IDEMPOTENCY_KEY_SECRET is required (the gateway uses it)',
      'PROCESSOR_CALLBACK_SECRET is required (the gateway uses it)',
    ]);
    expect(loadConfig(valid, 'gateway').IDEMPOTENCY_KEY_SECRET).toBe(valid.IDEMPOTENCY_KEY_SECRET);
    // a secret a process does not use is still checked when given: a placeholder is refused
    expect(
      problems(
        {
          ...shared,
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL,
          VAULT_KEYS: valid.VAULT_KEYS,
          JWT_SIGNING_KEY: 'change-me'.padEnd(32, '-'),
        },
        'webhook-service',
      ),
    ).toEqual([
      "JWT_SIGNING_KEY is .env.example's placeholder: set a random value (node scripts/make-env.js)",
    ]);
  });

  it('keeps rotation keys in order, the first one active', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    const config = loadConfig({ ...valid, VAULT_KEYS: `new:${other}, old:${key}` });
    expect(config.VAULT_KEYS.map((k) => k.id)).toEqual(['new', 'old']);
  });
});
