import {
  cardData,
  createMigratedDatabase,
  eventually,
  GatewayClient,
  PROCESS_START_TIMEOUT_MS,
  startOwnPostgres,
  useSuite,
  type OwnPostgres,
  type SpawnedApp,
} from '@kessai/testing';

/**
 * With Postgres down the gateway answers 503 SERVICE_UNAVAILABLE_TRY_AGAIN with Retry-After, in the
 * error envelope, never 500 (issue 28, item 3); it stays up, and answers as before once Postgres is
 * back. The database is a cluster of the test's own, so stopping it disturbs no other suite.
 */
let postgres: OwnPostgres;
// a cluster of the suite's own, destroyed once the suite's database on it is dropped
beforeAll(async () => {
  postgres = await startOwnPostgres();
  suite.cleanup(() => postgres.destroy());
}, PROCESS_START_TIMEOUT_MS);
const suite = useSuite({
  database: () => createMigratedDatabase(postgres.url),
  // app tokens are not cached, so that authentication itself meets the outage too
  variables: { APP_TOKEN_CACHE_TTL_MS: '0' },
  merchants: { seeded: { pci: true, label: 'outage' } },
});
let gateway: SpawnedApp;
let api: GatewayClient;

beforeAll(async () => {
  // whatever a test did to it, Postgres runs again when the suite's database is dropped
  suite.cleanup(() => postgres.start().catch(() => undefined));
  const started = await suite.startGatewayProcess();
  gateway = started.app;
  api = new GatewayClient(started.url, suite.merchants.seeded.storeToken);
}, PROCESS_START_TIMEOUT_MS);

describe('the gateway while Postgres is down', () => {
  it('answers 503 with Retry-After in the envelope, never 500, and recovers', async () => {
    const tokenId = await api.cardToken();
    expect((await api.request('/charges')).status).toBe(200);

    await postgres.stop();
    const calls = [
      () => api.request('/charges'),
      () => api.request(`/stores/${suite.merchants.seeded.store.id}`),
      () => api.postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' }),
      () => api.postCharge({ transaction_token_id: tokenId, amount: 1300, currency: 'JPY' }, 'outage-key-1'),
      () =>
        api.request('/tokens', {
          method: 'POST',
          json: { payment_type: 'card', type: 'one_time', email: 'buyer@example.test', data: cardData() },
        }),
    ];
    for (const call of calls) {
      const answer = await call();
      expect({ status: answer.status, body: answer.body as unknown }).toEqual({
        status: 503,
        body: { status: 'error', code: 'SERVICE_UNAVAILABLE_TRY_AGAIN', errors: [] },
      });
      expect(answer.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    }
    // the process did not exit
    expect(gateway.child.exitCode).toBeNull();

    await postgres.start();
    await eventually(async () => (await api.request('/charges')).status === 200, {
      timeoutMs: 30_000,
      what: 'GET /charges to answer 200 again',
    });
    const charge = await api.postCharge({ transaction_token_id: tokenId, amount: 1400, currency: 'JPY' });
    expect(charge.status).toBe(201);
  }, 120_000);
});
