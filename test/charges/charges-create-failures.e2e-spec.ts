// POST /charges when its write fails: inside Postgres (the transaction rolls back whole) or outside it
// (a connection that cannot be opened, an answer lost after the write ran), and what the request's
// Idempotency-Key then holds. The real gateway in-process, Postgres and Redis; no charge-service.
import { Client as PgClient } from 'pg';
import { PrismaService } from '@kessai/db';
import { testChargesToday, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

describe('POST /charges', () => {
  it('writes nothing when the transaction fails half-way: no charge, the token unused, no quota taken', async () => {
    const tokenId = await suite.api.shop.cardToken();
    const quotaBefore = await testChargesToday(suite.env, suite.merchants.shop);
    await suite.env.prisma.$executeRawUnsafe(`
      CREATE FUNCTION fail_charge_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.event_type = 'charge_requested' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await suite.env.prisma.$executeRawUnsafe(
      `CREATE TRIGGER fail_charge_event BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION fail_charge_event()`,
    );
    try {
      const res = await suite.api.shop.postCharge({
        transaction_token_id: tokenId,
        amount: 1200,
        currency: 'JPY',
      });
      expect(res.status).toBe(500);
    } finally {
      await suite.env.prisma.$executeRawUnsafe(`DROP TRIGGER fail_charge_event ON outbox_events`);
      await suite.env.prisma.$executeRawUnsafe(`DROP FUNCTION fail_charge_event()`);
    }
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(0);
    expect(
      await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } }),
    ).toMatchObject({
      usedCount: 0,
      active: true,
    });
    expect(await testChargesToday(suite.env, suite.merchants.shop)).toBe(quotaBefore);
    await suite.api.shop.charge(tokenId);
  });

  describe('when the create statement fails outside Postgres', () => {
    /**
     * Runs `work` with the charge's creation failing outside Postgres: `before`, no connection can be
     * opened for it; `after`, the one-charge statement commits and its answer is lost; `commit`, the
     * same for the COMMIT of a duplicate-rule charge's transaction.
     */
    async function failingCreate<T>(fail: 'before' | 'after' | 'commit', work: () => Promise<T>): Promise<T> {
      let spy: jest.SpyInstance;
      if (fail === 'before') {
        // no connection can be opened for the statement (pool.connect() without a callback is what
        // the create statement's write asks; pool.query, which the request's reads use, passes one)
        const pool = suite.app.get(PrismaService).pool;
        const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
        spy = jest
          .spyOn(pool, 'connect')
          .mockImplementation(((...args: unknown[]) =>
            args.length === 0
              ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
              : connect(...args)) as never);
      } else {
        // the statement runs and commits; its answer is lost on the way back
        const query = PgClient.prototype.query as (this: PgClient, ...args: unknown[]) => Promise<unknown>;
        // pg's query overloads include the callback form, whose result is void
        // eslint-disable-next-line @typescript-eslint/no-misused-promises
        spy = jest.spyOn(PgClient.prototype, 'query').mockImplementation(async function (
          this: PgClient,
          ...args: unknown[]
        ) {
          const result = await query.apply(this, args);
          const lost =
            fail === 'after'
              ? (args[0] as { name?: string }).name === 'charges_create'
              : args[0] === 'COMMIT';
          if (lost) throw new Error('Connection terminated unexpectedly');
          return result;
        });
      }
      try {
        return await work();
      } finally {
        spy.mockRestore();
      }
    }

    // a recurring online token: neither the one_time claim nor the 311 rule would stop a second charge
    const recurringOnlineToken = () => suite.api.shop.onlineToken({ type: 'recurring' });

    it('a connection lost after it ran: 500, and its Idempotency-Key stays held, so a retry charges nothing', async () => {
      const tokenId = await recurringOnlineToken();
      const json = { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' };
      const lost = await failingCreate('after', () => suite.api.shop.postCharge(json, 'lost-answer-1'));
      expect(lost.status).toBe(500);
      expect(lost.body).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', error_id: expect.any(String) });
      expect(lost.headers.get('idempotency-status')).toBe('not_stored');
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);

      const retry = await suite.api.shop.postCharge(json, 'lost-answer-1');
      expect(retry.status).toBe(409);
      expect(retry.body.errors).toEqual([{ field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' }]);
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    });

    it('a COMMIT whose answer is lost (a duplicate-rule charge runs in a transaction): the key stays held too', async () => {
      const tokenId = await suite.api.shop.cardToken({ type: 'recurring' });
      const json = { transaction_token_id: tokenId, amount: 1300, currency: 'JPY' };
      const lost = await failingCreate('commit', () => suite.api.shop.postCharge(json, 'lost-commit-1'));
      expect(lost.status).toBe(500);
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
      const retry = await suite.api.shop.postCharge(json, 'lost-commit-1');
      expect(retry.status).toBe(409);
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    });

    it('a connection that could not be opened: 503 with Retry-After, the key released, and a retry under it charges once', async () => {
      const tokenId = await recurringOnlineToken();
      const json = { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' };
      const refused = await failingCreate('before', () => suite.api.shop.postCharge(json, 'refused-1'));
      // nothing was sent: Postgres is unavailable, not the write's outcome unknown (decision 0025)
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE_TRY_AGAIN' });
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(0);

      const retry = await suite.api.shop.postCharge(json, 'refused-1');
      expect(retry.status).toBe(201);
      expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    });
  });
});
