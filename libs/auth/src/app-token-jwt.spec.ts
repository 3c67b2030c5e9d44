import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { InvalidAppTokenError, signAppToken, verifyAppToken } from './app-token-jwt';
import { parseAuthorizationHeader } from './authorization-header';
import { generateSecret, hashSecret, secretMatches } from './secrets';

const KEY = 'k'.repeat(40);
const input = {
  id: randomUUID(),
  merchantId: randomUUID(),
  storeId: randomUUID(),
  mode: 'test' as const,
  domains: ['shop.example'],
  version: 1,
};

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
function payloadOf(token: string) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('app token JWT', () => {
  it('round-trips the claims the SDKs read', () => {
    const token = signAppToken(input, KEY);
    expect(token.split('.')).toHaveLength(3);
    expect(verifyAppToken(token, KEY)).toMatchObject({
      sub: 'app_token',
      jti: input.id,
      merchant_id: input.merchantId,
      store_id: input.storeId,
      mode: 'test',
      domains: ['shop.example'],
      version: 1,
    });
  });

  it('omits store_id for a merchant token', () => {
    const token = signAppToken({ ...input, storeId: null }, KEY);
    expect(payloadOf(token)).not.toHaveProperty('store_id');
    expect(verifyAppToken(token, KEY).store_id).toBeUndefined();
  });

  it('rejects a token signed with another key', () => {
    expect(() => verifyAppToken(signAppToken(input, 'z'.repeat(40)), KEY)).toThrow(InvalidAppTokenError);
  });

  it('rejects alg=none', () => {
    const claims = payloadOf(signAppToken(input, KEY));
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    expect(() => verifyAppToken(unsigned, KEY)).toThrow(InvalidAppTokenError);
  });

  it('rejects HS512 and HS384 even with the right key (algorithm is pinned)', () => {
    const claims = payloadOf(signAppToken(input, KEY));
    expect(() => verifyAppToken(jwt.sign(claims, KEY, { algorithm: 'HS512' }), KEY)).toThrow(
      InvalidAppTokenError,
    );
    expect(() => verifyAppToken(jwt.sign(claims, KEY, { algorithm: 'HS384' }), KEY)).toThrow(
      InvalidAppTokenError,
    );
  });

  it('rejects RS256 algorithm confusion', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const claims = payloadOf(signAppToken(input, KEY));
    expect(() => verifyAppToken(jwt.sign(claims, privateKey, { algorithm: 'RS256' }), KEY)).toThrow(
      InvalidAppTokenError,
    );
  });

  it('rejects a tampered payload', () => {
    const [header, , signature] = signAppToken(input, KEY).split('.');
    const forged = b64({ ...payloadOf(signAppToken(input, KEY)), merchant_id: randomUUID() });
    expect(() => verifyAppToken(`${header}.${forged}.${signature}`, KEY)).toThrow(InvalidAppTokenError);
  });

  it('rejects a correctly signed token whose claims are not an app token', () => {
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const body = b64({ sub: 'user', jti: input.id });
    const sig = createHmac('sha256', KEY).update(`${header}.${body}`).digest('base64url');
    expect(() => verifyAppToken(`${header}.${body}.${sig}`, KEY)).toThrow(/claims/);
  });
});

describe('app token secrets', () => {
  it('match only the secret they were made from', () => {
    const secret = generateSecret();
    const stored = hashSecret(secret);
    expect(stored).not.toContain(secret);
    expect(secretMatches(secret, stored)).toBe(true);
    expect(secretMatches(generateSecret(), stored)).toBe(false);
    expect(secretMatches('', stored)).toBe(false);
  });

  it('never contain a dot, so `secret.jwt` splits unambiguously', () => {
    for (let i = 0; i < 50; i++) expect(generateSecret()).not.toContain('.');
  });
});

describe('parseAuthorizationHeader', () => {
  const token = signAppToken(input, KEY);
  it.each([
    [undefined, { kind: 'missing' }],
    ['', { kind: 'missing' }],
    ['Bearer', { kind: 'malformed' }],
    ['Token abc', { kind: 'unsupported' }],
    ['Token', { kind: 'unsupported' }],
    ['ApplicationToken abc|def', { kind: 'unsupported' }],
    ['ApplicationToken abc|', { kind: 'unsupported' }],
    ['ApplicationToken abc| def', { kind: 'unsupported' }],
    ['Basic dXNlcjpwYXNz', { kind: 'unsupported' }],
    ['Bearer a.b.c d', { kind: 'malformed' }],
    ['Bearer a.b', { kind: 'malformed' }],
    ['Bearer a.b.c.d.e', { kind: 'malformed' }],
    ['Bearer .a.b.c', { kind: 'malformed' }],
  ])('%j → %j', (header, expected) => {
    expect(parseAuthorizationHeader(header)).toEqual(expected);
  });

  it('splits secret and jwt', () => {
    expect(parseAuthorizationHeader(`Bearer sec.${token}`)).toEqual({
      kind: 'bearer',
      secret: 'sec',
      jwt: token,
    });
    expect(parseAuthorizationHeader(`bearer ${token}`)).toEqual({ kind: 'bearer', secret: null, jwt: token });
  });
});
