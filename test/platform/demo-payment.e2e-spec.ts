// The quick start's demo: `bootstrap` (what `npm start` runs) against the suite's database, then the
// README's script (scripts/demo-payment.ts) with the credentials it printed — card token, charge,
// poll to successful — through the official SDK against the real gateway, a charge-service process
// and the processor simulator. A merchant made by merchant:create stays non-compliant.
process.env.POLLING_INTERVAL = '100';

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { runCli, type DemoCredentials } from '@kessai/admin';
import {
  listenLocally,
  RELAXED_RATE_LIMITS,
  sdkCardToken,
  sdkError,
  sdkFor,
  startWorkerProcess,
  TestEnvironment,
  type SpawnedApp,
} from '@kessai/testing';
import {
  startProcessorSimulator,
  type ProcessorSimulator,
} from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { runDemoPayment } from '../../scripts/demo-payment';

let env: TestEnvironment;
let gateway: NestFastifyApplication;
let chargeService: SpawnedApp;
let refundCancelService: SpawnedApp;
let simulator: ProcessorSimulator;
let baseUrl: string;
let cliEnv: NodeJS.ProcessEnv;
const credentialsFile = join(mkdtempSync(join(tmpdir(), 'kessai-demo-')), 'demo-credentials.json');

const cli = (...argv: string[]): Promise<any> =>
  runCli(argv, { env: cliEnv, credentialsFile, print: () => undefined });

beforeAll(async () => {
  env = await TestEnvironment.create({ ...RELAXED_RATE_LIMITS, CHARGE_POLLING_MAX_WAIT_MS: '2000' });
  simulator = await startProcessorSimulator({
    port: 0,
    host: '127.0.0.1',
    callbackSecret: env.config.PROCESSOR_CALLBACK_SECRET,
  });
  gateway = await createGatewayApp(env.config);
  baseUrl = await listenLocally(gateway);
  cliEnv = { ...env.variables, PUBLIC_BASE_URL: baseUrl };
  ({ app: chargeService } = await startWorkerProcess('apps/charge-service/src/main.ts', {
    ...env.variables,
    PROCESSOR_TEST_URL: simulator.url,
    PROCESSOR_CALLBACK_BASE_URL: baseUrl,
  }));
  ({ app: refundCancelService } = await startWorkerProcess('apps/refund-cancel-service/src/main.ts', {
    ...env.variables,
    PROCESSOR_TEST_URL: simulator.url,
  }));
}, 90_000);

afterAll(async () => {
  await chargeService?.stop();
  await refundCancelService?.stop();
  await simulator?.close();
  await env?.close(gateway);
});

describe('the quick start demo', () => {
  it("bootstrap's credentials run the README's payment script: token, charge successful, partial refund successful", async () => {
    const credentials = (await cli('bootstrap', '--json')) as DemoCredentials;
    expect(credentials.base_url).toBe(baseUrl);
    const merchant = await env.prisma.merchant.findUniqueOrThrow({ where: { id: credentials.merchant_id } });
    expect(merchant).toMatchObject({ email: 'demo@kessai.local', pciDssCompliant: true });

    const lines: string[] = [];
    const { token, charge, refund } = await runDemoPayment(credentials, (line) => lines.push(line));
    expect(charge).toMatchObject({
      storeId: credentials.store_id,
      transactionTokenId: token.id,
      status: 'successful',
      chargedAmount: 1000,
      chargedCurrency: 'JPY',
      mode: 'test',
    });
    const row = await env.prisma.charge.findUniqueOrThrow({ where: { id: charge.id } });
    expect(row).toMatchObject({
      status: 'successful',
      chargedAmount: 1000n,
      refundedAmount: 400n,
      merchantId: merchant.id,
    });
    expect(refund).toMatchObject({ chargeId: charge.id, status: 'successful', amount: 400 });
    expect(lines.at(-2)).toContain(`${charge.id}  successful`);
    expect(lines.at(-1)).toContain(`${refund.id}  successful`);
  });

  it('a demo merchant of an earlier bootstrap (not compliant) is made compliant on the next one', async () => {
    const first = (await cli('bootstrap', '--json')) as DemoCredentials;
    await cli('merchant:pci', '--merchant', first.merchant_id, '--off');
    const again = (await cli('bootstrap', '--json')) as DemoCredentials;
    expect(again).toEqual(first);
    const merchant = await env.prisma.merchant.findUniqueOrThrow({ where: { id: first.merchant_id } });
    expect(merchant.pciDssCompliant).toBe(true);
    await expect(sdkCardToken(sdkFor(baseUrl, again))).resolves.toMatchObject({ paymentType: 'card' });
  });

  it('a merchant made by merchant:create is not compliant: card data with its secret is 403', async () => {
    const merchant = await cli('merchant:create', '--name', 'Newcomer', '--email', 'newcomer@example.test');
    expect(merchant).toMatchObject({ pci_dss_compliant: false });
    const store = await cli('store:create', '--merchant', merchant.id, '--name', 'Newcomer Store');
    const token = await cli('token:create', '--merchant', merchant.id, '--store', store.id, '--mode', 'test');
    const error = await sdkError(sdkCardToken(sdkFor(baseUrl, token)));
    expect(error).toMatchObject({ httpCode: 403 });
  });
});
