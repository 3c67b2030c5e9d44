// A card many charges are created for at once (decision 0076): the charges under its card limit
// take the card's lock by trying it, and while another transaction holds it they wait outside
// Postgres, holding no connection of the gateway's pool; after CREATION_LOCK_WAIT_MS they answer
// 429 TOO_MANY_REQUESTS (reason TOO_MANY_CHARGE_REQUESTS), nothing written, their Idempotency-Key
// released. Another merchant's charges go through meanwhile, on a pool no larger than the hammering
// merchant's share. The real gateway in-process, Postgres and Redis; no charge-service.
import { ordinaryCardNumber, sdkCardToken, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  // one merchant may take the whole pool: only the lock's behaviour keeps it for the others
  variables: { DB_POOL_SIZE: '4', TENANT_WRITE_CONCURRENCY: '4' },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, other: { pci: true } },
});

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

const charge = (transactionTokenId: string, amount: number) =>
  sdk().charges.create({ transactionTokenId, amount, currency: 'JPY' });

const busy = {
  code: 'TOO_MANY_REQUESTS',
  httpCode: 429,
  errors: [{ field: 'transaction_token_id', reason: 'TOO_MANY_CHARGE_REQUESTS' }],
};

beforeAll(async () => {
  await sdk().stores.update(storeId(), {
    configuration: {
      cardConfiguration: { cardLimit: { amount: 1_000_000, currency: 'JPY', duration: 'P1D' } },
    },
  });
});

it("waits for a busy card outside Postgres: another merchant's charges go through, the card's answer 429, then it is charged again", async () => {
  const card = ordinaryCardNumber();
  const tokens = await Promise.all(
    Array.from({ length: 6 }, async () => (await sdkCardToken(sdk(), { cardNumber: card })).id),
  );
  const keyed = (await sdkCardToken(sdk(), { cardNumber: card })).id;
  const [{ fingerprint }] = await suite.env.prisma.$queryRawUnsafe<{ fingerprint: string }[]>(
    `SELECT fingerprint FROM card_vault WHERE transaction_token_id = $1::uuid`,
    tokens[0],
  );

  // the card's lock held, as a long creation of the card's would hold it
  await suite.env.prisma.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(
        `SELECT pg_advisory_xact_lock(hashtextextended('card-limit:' || $1 || ':' || $2, 0))::text`,
        storeId(),
        fingerprint,
      );
      const hammered = Promise.allSettled(tokens.map((token) => charge(token, 100)));
      const withKey = suite.api.shop.postCharge(
        { transaction_token_id: keyed, amount: 100, currency: 'JPY' },
        'busy-card-key',
      );

      // meanwhile, another merchant's charges are created, one after the other
      for (let i = 0; i < 3; i++) {
        const token = await sdkCardToken(suite.sdk.other, { cardNumber: ordinaryCardNumber() });
        const created = await suite.sdk.other.charges.create({
          transactionTokenId: token.id,
          amount: 500,
          currency: 'JPY',
        });
        expect(created.status).toBe('pending');
      }
      // and no connection waits in Postgres for the card
      const [{ waiting }] = await tx.$queryRawUnsafe<{ waiting: number }[]>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      expect(waiting).toBe(0);

      for (const settled of await hammered) {
        expect(settled.status).toBe('rejected');
        const reason = (settled as PromiseRejectedResult).reason as { errorResponse?: unknown };
        expect(reason.errorResponse).toMatchObject(busy);
      }
      const refused = await withKey;
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('idempotency-status')).toBe('not_stored');
    },
    { timeout: 60_000 },
  );

  // nothing was written for them; the lock released, the card is charged, the key used afresh
  expect(
    await suite.env.prisma.charge.count({ where: { transactionTokenId: { in: [...tokens, keyed] } } }),
  ).toBe(0);
  expect((await charge(tokens[0], 100)).status).toBe('pending');
  const retried = await suite.api.shop.postCharge(
    { transaction_token_id: keyed, amount: 100, currency: 'JPY' },
    'busy-card-key',
  );
  expect(retried.status).toBe(201);
  expect(retried.headers.get('idempotency-status')).toBe('successfully_stored');
});
