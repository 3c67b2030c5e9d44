// Fees (docs/charges.md, "Fees"): set by the operator through the admin CLI, taken from the store's
// configuration when a charge is accepted and recorded with the outcome once money is taken. The
// real gateway, a charge-service process and the processor simulator, through the official SDK.
process.env.POLLING_INTERVAL = '100';

import { runCli } from '@kessai/admin';
import {
  APPROVED_TEST_CARD,
  sdkCardToken,
  sdkError,
  sdkOnlineToken,
  useSuite,
  waitForChargeStatus,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) =>
    startProcessorSimulator({ callbackSecret, timeoutHoldMs: 5_000, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000' },
});

const sdk = () => suite.sdk.shop;
const cli = (...argv: string[]) =>
  runCli(argv, { env: suite.env.variables, credentialsFile: '/dev/null', print: () => undefined });

async function charge(
  cardNumber: string,
  amount: number,
  currency: string,
  extra: Record<string, unknown> = {},
) {
  const token = await sdkCardToken(sdk(), { cardNumber });
  return sdk().charges.create({ transactionTokenId: token.id, amount, currency, ...extra });
}

const poll = (chargeId: string) =>
  sdk().charges.poll(suite.merchants.shop.store.id, chargeId) as Promise<any>;

beforeAll(async () => {
  // the operator's terms: 3.6 %, 2.95 % on Mastercard, and ¥30 per JPY charge
  await cli(
    'store:configure',
    '--store',
    suite.merchants.shop.store.id,
    '--set',
    JSON.stringify({
      percent_fee: 3.6,
      card_brand_percent_fees: { mastercard: 2.95 },
      flat_fees: [{ amount: 30, currency: 'JPY' }],
    }),
  );
}, 60_000);

describe('charge fees', () => {
  it('a successful charge carries percent + flat fee, rounded half up, in its currency', async () => {
    const created = await charge(APPROVED_TEST_CARD, 1250, 'JPY');
    expect(created).toMatchObject({ status: 'pending', feeAmount: null, feeCurrency: null });
    const done = await poll(created.id);
    // 3.6 % of 1,250 is 45 exactly, plus 30
    expect(done).toMatchObject({
      status: 'successful',
      chargedAmount: 1250,
      feeAmount: 75,
      feeCurrency: 'JPY',
      feeAmountFormatted: '75',
    });
    const halfUp = await poll((await charge(APPROVED_TEST_CARD, 125, 'JPY')).id);
    expect(halfUp.feeAmount).toBe(5 + 30); // 4.5 → 5
    expect((await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: halfUp.id } })).feeAmount).toBe(
      35n,
    );
  });

  it("takes the card brand's percent, and no flat fee in a currency without one", async () => {
    const done = await poll((await charge('5555555555554444', 1000, 'USD')).id);
    // 2.95 % of 1,000 cents is 29.5 → 30 cents
    expect(done).toMatchObject({
      status: 'successful',
      feeAmount: 30,
      feeCurrency: 'USD',
      // a string, as the SDK types it
      feeAmountFormatted: '0.3',
    });
  });

  it('charges the fee on what was captured, and none on a declined charge', async () => {
    const authorized = await charge(APPROVED_TEST_CARD, 2000, 'JPY', { capture: false });
    expect((await poll(authorized.id)).status).toBe('authorized');
    await sdk().captures.create(suite.merchants.shop.store.id, authorized.id, {
      amount: 1000,
      currency: 'JPY',
    });
    const captured = await waitForChargeStatus(suite.env, authorized.id, 'successful');
    expect(captured).toMatchObject({ chargedAmount: 1000n, feeAmount: 36n + 30n });

    const declined = await poll((await charge('4111111111111111', 1000, 'JPY')).id);
    expect(declined).toMatchObject({ status: 'failed', feeAmount: null, feeCurrency: null });
  });

  it('records the fee when an awaiting online payment is paid (reconciliation)', async () => {
    const token = await sdkOnlineToken(sdk());
    const created = await sdk().charges.create({
      transactionTokenId: token.id,
      amount: 1000,
      currency: 'JPY',
    });
    await waitForChargeStatus(suite.env, created.id, 'awaiting');
    const issuer: any = await sdk().charges.getIssuerToken(suite.merchants.shop.store.id, created.id);
    const paid = await fetch(issuer.issuerToken, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBeLessThan(400);
    expect(await waitForChargeStatus(suite.env, created.id, 'successful')).toMatchObject({
      chargedAmount: 1000n,
      feeAmount: 36n + 30n,
    });
  });

  it("takes a fee the charge names (a platform's), never below the store's terms (decision 0045)", async () => {
    // the store's terms on ¥1,000: 36 + 30 = 66; the request names 120
    const created = await charge(APPROVED_TEST_CARD, 1000, 'JPY', { feeAmount: 120, feeCurrency: 'JPY' });
    expect(created).toMatchObject({ status: 'pending', feeAmount: null });
    expect(await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({
      feeRatePpm: 0,
      feeFlatAmount: 120n,
    });
    expect(await poll(created.id)).toMatchObject({
      status: 'successful',
      chargedAmount: 1000,
      feeAmount: 120,
      feeCurrency: 'JPY',
      feeAmountFormatted: '120',
    });
    // without fee_currency: the charge's; null fields: the store's terms, as before
    const implied = await poll((await charge(APPROVED_TEST_CARD, 1000, 'JPY', { feeAmount: 66 })).id);
    expect(implied).toMatchObject({ feeAmount: 66, feeCurrency: 'JPY' });
    const nulls = await charge(APPROVED_TEST_CARD, 1000, 'JPY', { feeAmount: null, feeCurrency: null });
    expect(await poll(nulls.id)).toMatchObject({ feeAmount: 66 });

    // a partial capture keeps the named fee whole
    const authorized = await charge(APPROVED_TEST_CARD, 2000, 'JPY', { capture: false, feeAmount: 200 });
    expect((await poll(authorized.id)).status).toBe('authorized');
    await sdk().captures.create(suite.merchants.shop.store.id, authorized.id, {
      amount: 1500,
      currency: 'JPY',
    });
    expect(await waitForChargeStatus(suite.env, authorized.id, 'successful')).toMatchObject({
      chargedAmount: 1500n,
      feeAmount: 200n,
    });
  });

  it.each([
    [{ feeAmount: 65 }, 'fee_amount', 'NUMBER_MIN'], // below the store's 66
    [{ feeAmount: 1001 }, 'fee_amount', 'INVALID_AMOUNT'], // more than the charge
    [{ feeAmount: -1 }, 'fee_amount', 'NUMBER_MIN'],
    [{ feeAmount: 100, feeCurrency: 'USD' }, 'fee_currency', 'CURRENCY_MUST_MATCH_CHARGE'],
    [{ feeCurrency: 'JPY' }, 'fee_amount', 'REQUIRED_VALUE'],
  ])('refuses the named fee %j: %s %s, nothing charged', async (fee, field, reason) => {
    const token = await sdkCardToken(sdk(), { cardNumber: APPROVED_TEST_CARD });
    const refused = await sdkError(
      sdk().charges.create({ transactionTokenId: token.id, amount: 1000, currency: 'JPY', ...fee }),
    );
    expect(refused).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field, reason }] });
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: token.id } })).toBe(0);
  });

  it('keeps the terms a charge was accepted under when the configuration changes before it is captured', async () => {
    const authorized = await charge(APPROVED_TEST_CARD, 1000, 'JPY', { capture: false });
    expect((await poll(authorized.id)).status).toBe('authorized');
    await cli(
      'store:configure',
      '--store',
      suite.merchants.shop.store.id,
      '--set',
      JSON.stringify({ percent_fee: 10 }),
    );
    try {
      await sdk().captures.create(suite.merchants.shop.store.id, authorized.id, {
        amount: 1000,
        currency: 'JPY',
      });
      expect(await waitForChargeStatus(suite.env, authorized.id, 'successful')).toMatchObject({
        feeAmount: 36n + 30n,
      });
    } finally {
      await cli(
        'store:configure',
        '--store',
        suite.merchants.shop.store.id,
        '--set',
        JSON.stringify({ percent_fee: 3.6 }),
      );
    }
  });
});
