import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { signLoginToken, unverifiedSubject } from './login-token-jwt';
import { CUSTOMER_TOKEN_SUBJECT, signCustomerToken, verifyCustomerToken } from './customer-token-jwt';

const KEY = 'k'.repeat(40);
const issuedAt = new Date('2026-05-01T10:00:00.000Z');
const input = {
  id: randomUUID(),
  merchantId: randomUUID(),
  storeId: randomUUID(),
  mode: 'test' as const,
  email: 'hanako@example.test',
  storeName: 'Hanako Store',
  lang: 'JA_JP',
  logoUri: '',
  ipAddress: '127.0.0.1',
  expiresOn: new Date('2026-05-01T10:30:00.000Z'),
};

describe('customer token JWT', () => {
  it("carries the SDK's ParsedAuthenticateToken claims and Kessai's scope, and verifies until exp", () => {
    const token = signCustomerToken(input, KEY, issuedAt);
    expect(unverifiedSubject(token)).toBe(CUSTOMER_TOKEN_SUBJECT);
    expect(verifyCustomerToken(token, KEY, new Date('2026-05-01T10:29:59.000Z'))).toEqual({
      sub: CUSTOMER_TOKEN_SUBJECT,
      jti: input.id,
      merchant_id: input.merchantId,
      store_id: input.storeId,
      mode: 'test',
      email: input.email,
      roles: ['subscription_update_token', 'subscription_delete'],
      name: input.storeName,
      lang: 'JA_JP',
      logo_uri: '',
      ip_address: '127.0.0.1',
      iat: issuedAt.getTime() / 1000,
      exp: input.expiresOn.getTime() / 1000,
    });
    expect(verifyCustomerToken(token, KEY, input.expiresOn)).toBe('expired');
  });

  it('refuses another key, a tampered payload, another subject and another algorithm', () => {
    const token = signCustomerToken(input, KEY, issuedAt);
    expect(verifyCustomerToken(token, 'x'.repeat(40), issuedAt)).toBeNull();
    const [head, , signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...jwt.decode(token, { json: true }), roles: ['subscription_read'] }),
    ).toString('base64url');
    expect(verifyCustomerToken(`${head}.${forged}.${signature}`, KEY, issuedAt)).toBeNull();
    const login = signLoginToken(
      {
        sessionId: randomUUID(),
        merchantId: input.merchantId,
        userId: randomUUID(),
        expiresOn: input.expiresOn,
      },
      KEY,
      issuedAt,
    );
    expect(verifyCustomerToken(login, KEY, issuedAt)).toBeNull();
    const unsigned = jwt.sign({ ...jwt.decode(token, { json: true }) }, '', { algorithm: 'none' });
    expect(verifyCustomerToken(unsigned, KEY, issuedAt)).toBeNull();
  });
});
