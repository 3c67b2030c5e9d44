// refers.sendCode and refers.authorize under the limits as configured (not the suites' relaxed
// ones): each customer of a store (store and email) is throttled as POST /authenticate is, whichever
// app token asks, beside each token's own buckets (decision 0058).
import SDK from 'univapay-node';
import { useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  relaxedRateLimits: false,
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, domains: ['shop.throttle.test'] } },
});

/**
 * Requests each app token sends at once: under its own exact bucket's burst (RATE_LIMIT_EXACT_BURST
 * 10, .env.example), so that no token's own bucket refuses any of them.
 */
const PER_TOKEN = 9;
const TOKENS = 6;

describe('the customer login throttle', () => {
  it('refuses one customer past its burst whichever tokens ask, and not another customer', async () => {
    const storeId = suite.merchants.shop.store.id;
    const tokens = await Promise.all(
      Array.from({ length: TOKENS }, () =>
        suite.env.admin.issueAppToken({
          merchantId: suite.merchants.shop.merchant.id,
          storeId,
          mode: 'test',
        }),
      ),
    );
    const clients = tokens.map(
      (token) => new SDK({ endpoint: suite.url, jwt: token.jwt, secret: token.secret }),
    );
    // an address that is no customer: answered alike, and nothing is written or mailed for it
    const email = 'throttled@example.test';
    const answers = await Promise.all(
      clients.flatMap((client) =>
        Array.from({ length: PER_TOKEN }, () =>
          client.refers.sendCode(storeId, { email }).then(
            () => 'sent',
            (error: { errorResponse?: { code?: string; httpCode?: number } }) =>
              `${error.errorResponse?.httpCode} ${error.errorResponse?.code}`,
          ),
        ),
      ),
    );
    // 54 at once against one customer's burst of 10 (refilled one per 50 ms): some are refused,
    // and only with 429: no token's own bucket could refuse its 9
    expect(answers.filter((a) => a === '429 TOO_MANY_REQUESTS').length).toBeGreaterThan(0);
    expect(answers.filter((a) => a !== 'sent' && a !== '429 TOO_MANY_REQUESTS')).toEqual([]);
    expect(answers.filter((a) => a === 'sent').length).toBeGreaterThanOrEqual(10);
    // another customer of the store, through the same tokens, at once
    expect(await clients[0].refers.sendCode(storeId, { email: 'someone-else@example.test' })).toEqual({});
  });
});
