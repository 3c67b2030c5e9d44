// The daily quota of test-mode charges (1,440 a store per UTC day): the next one is refused with
// RESOURCE_LIMIT_REACHED and writes nothing; live charges do not count. The real gateway in-process,
// Postgres and Redis; no charge-service.
import { DAILY_QUOTAS } from '@kessai/domain';
import { REAL_CARD_NUMBER, setTestChargesToday, testChargesToday, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp });

describe('test charge quota', () => {
  it('refuses the 1,441st test charge of the day with RESOURCE_LIMIT_REACHED; live charges do not count', async () => {
    const busy = await suite.env.seedPciMerchant('busy');
    const busyApi = suite.gateway.as(busy);
    const first = await busyApi.cardToken();
    await busyApi.charge(first);
    expect(await testChargesToday(suite.env, busy)).toBe(1);

    await setTestChargesToday(suite.env, busy, DAILY_QUOTAS.test_charge - 1);
    await busyApi.charge(await busyApi.cardToken());
    expect(await testChargesToday(suite.env, busy)).toBe(1_440);

    const refusedToken = await busyApi.cardToken();
    const refused = await busyApi.postCharge({
      transaction_token_id: refusedToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('RESOURCE_LIMIT_REACHED');
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: refusedToken } })).toBe(0);
    expect(
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: refusedToken } })).usedCount,
    ).toBe(0);
    expect(await testChargesToday(suite.env, busy)).toBe(1_440);

    const live = await suite.env.liveStoreToken(busy);
    const liveApi = suite.gateway.as(live);
    const liveCharge = await liveApi.charge(await liveApi.cardToken({ cardNumber: REAL_CARD_NUMBER }));
    expect(liveCharge).toMatchObject({ mode: 'live', status: 'pending' });
    expect(await testChargesToday(suite.env, busy)).toBe(1_440);
  });
});
