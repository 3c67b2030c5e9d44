import { randomUUID } from 'node:crypto';
import { verifyAppToken, InvalidAppTokenError } from './app-token-jwt';
import {
  checkoutLinkSecret,
  checkoutLinkSecretMatches,
  signCheckoutLink,
  verifyCheckoutLink,
} from './checkout-link';

const KEY = 'k'.repeat(40);
const link = {
  id: randomUUID(),
  merchantId: randomUUID(),
  storeId: randomUUID(),
  formId: randomUUID(),
  mode: 'test',
  createdOn: new Date('2030-01-01T00:00:00Z'),
  expiry: new Date('2030-01-02T00:00:00Z'),
};

describe('checkout link credentials', () => {
  it('derive the same secret and jwt for the same link, and different ones for another link or key', () => {
    expect(checkoutLinkSecret(link.id, KEY)).toBe(checkoutLinkSecret(link.id.toUpperCase(), KEY));
    expect(signCheckoutLink(link, KEY)).toBe(signCheckoutLink(link, KEY));
    expect(checkoutLinkSecret(randomUUID(), KEY)).not.toBe(checkoutLinkSecret(link.id, KEY));
    expect(checkoutLinkSecret(link.id, 'x'.repeat(40))).not.toBe(checkoutLinkSecret(link.id, KEY));
    expect(checkoutLinkSecret(link.id, KEY)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('match only the link own secret', () => {
    const secret = checkoutLinkSecret(link.id, KEY);
    expect(checkoutLinkSecretMatches(link.id, secret, KEY)).toBe(true);
    expect(checkoutLinkSecretMatches(link.id, `${secret}x`, KEY)).toBe(false);
    expect(checkoutLinkSecretMatches(link.id, '', KEY)).toBe(false);
    expect(checkoutLinkSecretMatches(randomUUID(), secret, KEY)).toBe(false);
  });

  it('sign a jwt that names the link and expires with it, and that is no app token', () => {
    const token = signCheckoutLink(link, KEY);
    expect(verifyCheckoutLink(token, KEY, new Date('2030-01-01T12:00:00Z'))).toMatchObject({
      sub: 'checkout_link',
      jti: link.id,
      store_id: link.storeId,
      form_id: link.formId,
      exp: Math.floor(link.expiry.getTime() / 1000),
    });
    expect(verifyCheckoutLink(token, KEY, new Date('2030-01-03T00:00:00Z'))).toBeNull();
    expect(verifyCheckoutLink(token, 'x'.repeat(40), new Date('2030-01-01T12:00:00Z'))).toBeNull();
    expect(() => verifyAppToken(token, KEY)).toThrow(InvalidAppTokenError);
  });
});
