import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { signAppToken, verifyAppToken, InvalidAppTokenError } from './app-token-jwt';
import {
  InvalidLoginTokenError,
  signLoginToken,
  unverifiedSubject,
  verifyLoginToken,
} from './login-token-jwt';

const KEY = 'k'.repeat(40);
const issuedAt = new Date('2026-05-01T10:00:00.000Z');
const input = {
  sessionId: randomUUID(),
  merchantId: randomUUID(),
  userId: randomUUID(),
  expiresOn: new Date('2026-05-01T11:00:00.000Z'),
};

function thrown(fn: () => unknown): InvalidLoginTokenError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidLoginTokenError) return error;
    throw error;
  }
  throw new Error('expected an InvalidLoginTokenError');
}

describe('login token JWT', () => {
  it('round-trips its claims while unexpired', () => {
    const token = signLoginToken(input, KEY, issuedAt);
    expect(token.split('.')).toHaveLength(3);
    expect(verifyLoginToken(token, KEY, new Date('2026-05-01T10:59:59.000Z'))).toEqual({
      sub: 'login_token',
      jti: input.sessionId,
      merchant_id: input.merchantId,
      user_id: input.userId,
      iat: issuedAt.getTime() / 1000,
      exp: input.expiresOn.getTime() / 1000,
    });
  });

  it('says "expired" once its expiry has passed', () => {
    const token = signLoginToken(input, KEY, issuedAt);
    const error = thrown(() => verifyLoginToken(token, KEY, new Date('2026-05-01T11:00:01.000Z')));
    expect(error.expired).toBe(true);
  });

  it('rejects another key, another algorithm and a tampered payload, as invalid (not expired)', () => {
    const now = new Date('2026-05-01T10:30:00.000Z');
    const token = signLoginToken(input, KEY, issuedAt);
    expect(thrown(() => verifyLoginToken(token, 'z'.repeat(40), now)).expired).toBe(false);
    const claims = jwt.decode(token) as object;
    expect(
      thrown(() => verifyLoginToken(jwt.sign(claims, KEY, { algorithm: 'HS512' }), KEY, now)).expired,
    ).toBe(false);
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, merchant_id: randomUUID() })).toString(
      'base64url',
    );
    expect(() => verifyLoginToken(`${header}.${forged}.${signature}`, KEY, now)).toThrow(
      InvalidLoginTokenError,
    );
  });

  it('is never accepted as an app token, and an app token never as a login token', () => {
    const login = signLoginToken(input, KEY, issuedAt);
    expect(() => verifyAppToken(login, KEY)).toThrow(InvalidAppTokenError);
    const app = signAppToken(
      {
        id: randomUUID(),
        merchantId: input.merchantId,
        storeId: null,
        mode: 'test',
        domains: [],
        version: 1,
      },
      KEY,
    );
    expect(() => verifyLoginToken(app, KEY)).toThrow(/claims/);
  });

  it('needs an expiry: a correctly signed login token without exp is refused', () => {
    const noExp = jwt.sign(
      { sub: 'login_token', jti: input.sessionId, merchant_id: input.merchantId, user_id: input.userId },
      KEY,
      { algorithm: 'HS256' },
    );
    expect(() => verifyLoginToken(noExp, KEY)).toThrow(/claims/);
  });

  it('peeks at the subject without verifying, to choose a verifier', () => {
    expect(unverifiedSubject(signLoginToken(input, KEY, issuedAt))).toBe('login_token');
    expect(unverifiedSubject('not.a.jwt')).toBeNull();
    expect(unverifiedSubject(jwt.sign({ sub: 42 }, KEY))).toBeNull();
  });
});
