// The daily quota of test-mode charges (1,440 a store per UTC day): the next one is refused with
// RESOURCE_LIMIT_REACHED and writes nothing; live charges do not count. The real gateway in-process,
// Postgres and Redis; no charge-service.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DAILY_QUOTAS } from '@kessai/domain';
import {
  GatewayClient,
  listenLocally,
  REAL_CARD_NUMBER,
  RELAXED_RATE_LIMITS,
  setTestChargesToday,
  TestEnvironment,
  testChargesToday,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

let env: TestEnvironment;
let app: NestFastifyApplication;
let gateway: GatewayClient;

beforeAll(async () => {
  env = await TestEnvironment.create(RELAXED_RATE_LIMITS);
  app = await createGatewayApp(env.config);
  gateway = new GatewayClient(await listenLocally(app));
});

afterAll(async () => {
  await env?.close(app);
});

describe('test charge quota', () => {
  it('refuses the 1,441st test charge of the day with RESOURCE_LIMIT_REACHED; live charges do not count', async () => {
    const busy = await env.seedPciMerchant('busy');
    const busyApi = gateway.as(busy);
    const first = await busyApi.cardToken();
    await busyApi.charge(first);
    expect(await testChargesToday(env, busy)).toBe(1);

    await setTestChargesToday(env, busy, DAILY_QUOTAS.test_charge - 1);
    await busyApi.charge(await busyApi.cardToken());
    expect(await testChargesToday(env, busy)).toBe(1_440);

    const refusedToken = await busyApi.cardToken();
    const refused = await busyApi.postCharge({
      transaction_token_id: refusedToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('RESOURCE_LIMIT_REACHED');
    expect(await env.prisma.charge.count({ where: { transactionTokenId: refusedToken } })).toBe(0);
    expect(
      (await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: refusedToken } })).usedCount,
    ).toBe(0);
    expect(await testChargesToday(env, busy)).toBe(1_440);

    const live = await env.liveStoreToken(busy);
    const liveApi = gateway.as(live);
    const liveCharge = await liveApi.charge(await liveApi.cardToken({ cardNumber: REAL_CARD_NUMBER }));
    expect(liveCharge).toMatchObject({ mode: 'live', status: 'pending' });
    expect(await testChargesToday(env, busy)).toBe(1_440);
  });
});
