// The quick start's demo: `bootstrap` (what `npm start` runs) against the suite's database, then the
// README's script (scripts/demo-payment.ts) with the credentials it printed — card token, charge,
// poll to successful — through the official SDK against the real gateway, a charge-service process
// and the processor simulator. A merchant made by merchant:create stays non-compliant.
process.env.POLLING_INTERVAL = '100';

import { type DemoCredentials } from '@kessai/admin';
import { sdkCardToken, sdkError, sdkFor, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { runDemoPayment } from '../../scripts/demo-payment';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret }),
  gateway: createGatewayApp,
  workers: ['charge-service', 'refund-cancel-service'],
  callbacks: true,
});

describe('the quick start demo', () => {
  it("bootstrap's credentials run the README's payment script: token, charge successful, partial refund successful", async () => {
    const credentials = (await suite.cli('bootstrap', '--json')) as DemoCredentials;
    expect(credentials.base_url).toBe(suite.url);
    const merchant = await suite.env.prisma.merchant.findUniqueOrThrow({
      where: { id: credentials.merchant_id },
    });
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
    const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: charge.id } });
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
    const first = (await suite.cli('bootstrap', '--json')) as DemoCredentials;
    await suite.cli('merchant:pci', '--merchant', first.merchant_id, '--off');
    const again = (await suite.cli('bootstrap', '--json')) as DemoCredentials;
    expect(again).toEqual(first);
    const merchant = await suite.env.prisma.merchant.findUniqueOrThrow({ where: { id: first.merchant_id } });
    expect(merchant.pciDssCompliant).toBe(true);
    await expect(sdkCardToken(sdkFor(suite.url, again))).resolves.toMatchObject({ paymentType: 'card' });
  });

  it('a merchant made by merchant:create is not compliant: card data with its secret is 403', async () => {
    const merchant = await suite.cli(
      'merchant:create',
      '--name',
      'Newcomer',
      '--email',
      'newcomer@example.test',
    );
    expect(merchant).toMatchObject({ pci_dss_compliant: false });
    const store = await suite.cli('store:create', '--merchant', merchant.id, '--name', 'Newcomer Store');
    const token = await suite.cli(
      'token:create',
      '--merchant',
      merchant.id,
      '--store',
      store.id,
      '--mode',
      'test',
    );
    const error = await sdkError(sdkCardToken(sdkFor(suite.url, token)));
    expect(error).toMatchObject({ httpCode: 403 });
  });
});
