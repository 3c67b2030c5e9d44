// Bank-transfer and konbini charges through the official univapay-node SDK
// (docs/bank-transfer-and-konbini.md): token → charge (awaiting, with the consumer's instructions)
// → charges.expiry → paid at the simulated bank or konbini → successful with its events; money that
// does not match (match_amount) leaves the charge awaiting and is recorded; extensions within and
// beyond the store's limits; unpaid at the deadline → failed, exactly once with two charge-service
// processes; another merchant sees none of it. The gateway in-process, two charge-service processes,
// Postgres, Redis and BullMQ real; the bank and the konbini network are the processor simulator.
process.env.POLLING_INTERVAL = '100';

import { PaymentType, WebHookTrigger } from 'univapay-node';
import { BANK_TRANSFER_STATUS_UPDATED, CHARGE_FINISHED, CHARGE_UPDATED } from '@kessai/contracts';
import { eventually, sdkError, startCallbackReceiver, useSuite, type SeededMerchant } from '@kessai/testing';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { randomUUID } from 'node:crypto';
import { runCli } from '@kessai/admin';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

/** The automatic extension test's deadlines and extension period, in seconds. */
const EXTENSION_S = 3;

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: {}, foreign: {} },
  // two charge-service replicas: the deadline sweep runs in both
  workers: ['charge-service', 'charge-service', 'webhook-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000', CHARGE_SWEEP_INTERVAL_MS: '200' },
});
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;

const sdk = () => suite.sdk.shop;
const api = () => suite.api.shop;
/** the gateway as a merchant-wide token of `who` */
const merchantApi = async (who: SeededMerchant) => suite.gateway.as(await suite.env.merchantToken(who));

type Any = any;

const bankToken = (data: Record<string, unknown> = {}) =>
  sdk().transactionTokens.create({
    paymentType: PaymentType.BANK_TRANSFER,
    type: 'one_time',
    email: 'buyer@example.test',
    data: { brand: 'bank_test_brand', ...data },
  } as Any) as Promise<Any>;

const konbiniToken = (data: Record<string, unknown> = {}) =>
  sdk().transactionTokens.create({
    paymentType: PaymentType.KONBINI,
    type: 'one_time',
    email: 'buyer@example.test',
    data: {
      customerName: 'Yamada Taro',
      convenienceStore: 'seven_eleven',
      phoneNumber: { countryCode: '81', localNumber: '9012345678' },
      ...data,
    },
  } as Any) as Promise<Any>;

const charge = (tokenId: string, extra: Record<string, unknown> = {}) =>
  sdk().charges.create({
    transactionTokenId: tokenId,
    amount: 5000,
    currency: 'JPY',
    ...extra,
  }) as Promise<Any>;

/** The charge once it is awaiting, with its instructions (GET .../issuer_token, as the gateway answers it). */
async function awaitingWithInstructions(chargeId: string) {
  const awaiting: Any = await sdk().charges.poll(suite.merchants.shop.store.id, chargeId);
  expect(awaiting.status).toBe('awaiting');
  const res = await api().request(
    `/stores/${suite.merchants.shop.store.id}/charges/${chargeId}/issuer_token`,
  );
  expect(res.status).toBe(200);
  return res.body as {
    issuer_token: string;
    call_method: string;
    payload: Record<string, string>;
    payment_type: string;
  };
}

/** Money sent from outside: a transfer to the account, or a payment of the code at the counter. */
async function pay(kind: 'bank' | 'konbini', key: string, amount: number) {
  const [path, field] =
    kind === 'bank' ? ['/bank/transfers', 'account_number'] : ['/konbini/payments', 'payment_code'];
  const res = await fetch(`${suite.simulator.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ [field]: key, amount }),
  });
  return res.status;
}

const eventTypes = async (chargeId: string) =>
  (
    await suite.env.prisma.outboxEvent.findMany({
      where: { aggregateId: chargeId },
      orderBy: { sequence: 'asc' },
      select: { eventType: true },
    })
  ).map((event) => event.eventType);

const statusOf = async (chargeId: string) =>
  ((await sdk().charges.get(suite.merchants.shop.store.id, chargeId)) as Any).status;

/** Runs `body` with the shop's bank_transfer_configuration changed, then puts the default back. */
async function withBankConfiguration(changes: Record<string, unknown>, body: () => Promise<void>) {
  const patched = await api().request(`/stores/${suite.merchants.shop.store.id}`, {
    method: 'PATCH',
    json: { configuration: { bank_transfer_configuration: changes } },
  });
  expect(patched.status).toBe(200);
  try {
    await body();
  } finally {
    await api().request(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      json: { configuration: { bank_transfer_configuration: null } },
    });
  }
}

/** The charge as charges.poll answers it once it is no longer awaiting. */
const pastAwaiting = (chargeId: string): Promise<Any> =>
  sdk().charges.poll(suite.merchants.shop.store.id, chargeId, undefined, undefined, {
    successCondition: (c: Any) => c.status !== 'awaiting',
  });

/** The charge once it is no longer awaiting. */
const ended = (chargeId: string, timeoutMs = 15_000): Promise<Any> =>
  eventually(
    async () => {
      const c: Any = await sdk().charges.get(suite.merchants.shop.store.id, chargeId);
      return c.status !== 'awaiting' && c;
    },
    { timeoutMs, what: `charge ${chargeId} to end` },
  );

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  suite.cleanup(() => receiver.close());
}, 60_000);

describe('bank transfer through the SDK', () => {
  it('token → awaiting charge with a virtual account → expiry → paid exactly → successful, with its events', async () => {
    const token = await bankToken();
    expect(token).toMatchObject({
      paymentType: 'bank_transfer',
      type: 'one_time',
      data: { brand: 'bank_test_brand', bankCode: '9999', bankName: 'Kessai Test Bank', accountNumber: null },
    });
    const created = await charge(token.id);
    expect(created).toMatchObject({ status: 'pending', requestedAmount: 5000, requestedCurrency: 'JPY' });

    const instructions = await awaitingWithInstructions(created.id);
    expect(instructions).toMatchObject({
      call_method: 'http_get',
      payment_type: 'bank_transfer',
      payload: {
        bank_code: '9999',
        bank_name: 'Kessai Test Bank',
        branch_code: '101',
        account_number: expect.stringMatching(/^\d{7}$/),
        account_holder_name: 'KESSAI TEST',
        amount: '5000',
      },
    });
    expect(instructions.issuer_token).toContain(`account_number=${instructions.payload.account_number}`);
    // the token shows the virtual account its charge was given (the SDK's TransactionTokenBankTransferData)
    const storeId = suite.merchants.shop.store.id;
    const withAccount: Any = await sdk().transactionTokens.get(storeId, token.id);
    expect(withAccount.data).toEqual({
      brand: 'bank_test_brand',
      bankCode: instructions.payload.bank_code,
      bankName: instructions.payload.bank_name,
      branchCode: instructions.payload.branch_code,
      branchName: instructions.payload.branch_name,
      accountId: instructions.payload.account_id,
      accountNumber: instructions.payload.account_number,
      accountHolderName: 'KESSAI TEST',
    });
    const listed: Any = await sdk().transactionTokens.list(
      { paymentType: 'bank_transfer' } as never,
      undefined,
      storeId,
    );
    expect(listed.items.find((item: Any) => item.id === token.id).data).toEqual(withAccount.data);

    const expiry: Any = await sdk().charges.expiry(
      created.id,
      undefined,
      undefined,
      suite.merchants.shop.store.id,
    );
    expect(expiry).toMatchObject({ chargeId: created.id, extensionCount: 0 });
    // the store's default: 7 days from when the charge was accepted (the expiry's creation)
    expect(new Date(expiry.expirationDate).getTime() - new Date(expiry.createdOn).getTime()).toBe(
      7 * 86_400_000,
    );
    expect(instructions.payload.expiration_date).toBe(new Date(expiry.expirationDate).toISOString());

    expect(await pay('bank', instructions.payload.account_number, 5000)).toBe(200);
    const paid: Any = await pastAwaiting(created.id);
    expect(paid).toMatchObject({ status: 'successful', chargedAmount: 5000, chargedCurrency: 'JPY' });
    expect(
      await eventually(
        async () => (await eventTypes(created.id)).includes(CHARGE_FINISHED) && eventTypes(created.id),
      ),
    ).toEqual([
      'charge_requested',
      CHARGE_UPDATED,
      'processor_notice_received',
      BANK_TRANSFER_STATUS_UPDATED,
      CHARGE_FINISHED,
    ]);
    const deposits = await suite.env.prisma.chargeDeposit.findMany({ where: { chargeId: created.id } });
    expect(deposits).toEqual([expect.objectContaining({ amount: 5000n, matched: true })]);

    // paid by bank transfer: neither refunded nor canceled (api-reference §5.4, §5.5)
    const refund = await sdkError(
      sdk().refunds.create(suite.merchants.shop.store.id, created.id, { amount: 5000, currency: 'JPY' }),
    );
    expect(refund).toMatchObject({
      code: 'REFUND_NOT_ALLOWED',
      errors: [{ field: 'charge_id', reason: 'REFUND_NOT_ALLOWED' }],
    });
    expect(await sdkError(sdk().cancels.create(suite.merchants.shop.store.id, created.id, {}))).toMatchObject(
      {
        code: 'CANCEL_NOT_ALLOWED',
      },
    );
  });

  it('match_amount exact: less than asked leaves it awaiting, recorded unmatched; the rest completes it', async () => {
    const created = await charge((await bankToken()).id);
    const { payload } = await awaitingWithInstructions(created.id);
    expect(await pay('bank', payload.account_number, 3000)).toBe(200);
    const unmatched = await eventually(() =>
      suite.env.prisma.chargeDeposit.findFirst({ where: { chargeId: created.id } }),
    );
    expect(unmatched).toMatchObject({ amount: 3000n, matched: false });
    expect(await statusOf(created.id)).toBe('awaiting');
    expect(await eventTypes(created.id)).not.toContain(CHARGE_FINISHED);

    expect(await pay('bank', payload.account_number, 2000)).toBe(200);
    const paid: Any = await pastAwaiting(created.id);
    expect(paid).toMatchObject({ status: 'successful', chargedAmount: 5000 });
    const events = await eventTypes(created.id);
    expect(events.filter((e) => e === BANK_TRANSFER_STATUS_UPDATED)).toHaveLength(2);
    expect(events.filter((e) => e === CHARGE_FINISHED)).toHaveLength(1);

    // the virtual account's ledger: the payment asked for, then each transfer, with the balance;
    // a merchant token's, as the reference says ([A]), a store token's refused
    const ledgersPath = `/stores/${suite.merchants.shop.store.id}/charges/${created.id}/bank_transfer_ledgers`;
    const byStore = await api().request(ledgersPath);
    expect(byStore.status).toBe(403);
    expect(byStore.body.code).toBe('INVALID_PERMISSIONS');
    const ledgers = await (await merchantApi(suite.merchants.shop)).request(ledgersPath);
    expect(ledgers.status).toBe(200);
    const account = {
      virtual_bank_account_number: payload.account_number,
      virtual_bank_account_holder_name: 'KESSAI TEST',
      virtual_account_id: payload.account_id,
      mode: 'test',
      currency: 'JPY',
    };
    expect(ledgers.body).toMatchObject({
      has_more: false,
      items: [
        { bank_ledger_type: 'payment', amount: 5000, balance: -5000, ...account },
        { bank_ledger_type: 'deposit', amount: 3000, balance: -2000, ...account },
        { bank_ledger_type: 'deposit', amount: 2000, balance: 0, ...account },
      ],
    });
    expect(ledgers.body.items[1].transaction_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('extends the deadline within the maximum, refuses beyond it, and refuses a period and a date together', async () => {
    const created = await charge((await bankToken()).id);
    await awaitingWithInstructions(created.id);
    const before: Any = await sdk().charges.expiry(
      created.id,
      undefined,
      undefined,
      suite.merchants.shop.store.id,
    );
    const extend = (body: unknown) =>
      api().request(`/stores/${suite.merchants.shop.store.id}/charges/${created.id}/expiry`, {
        method: 'POST',
        json: body,
      });

    const extended = await extend({ expiration_period: 'P3D' });
    expect(extended.status).toBe(200);
    expect(extended.body).toMatchObject({ id: before.id, charge_id: created.id, extension_count: 1 });
    expect(
      new Date(extended.body.expiration_date).getTime() - new Date(before.expirationDate).getTime(),
    ).toBe(3 * 86_400_000);
    // the default maximum is P30D for one extension
    const tooFar = await extend({ expiration_period: 'P31D' });
    expect(tooFar.status).toBe(400);
    expect(tooFar.body).toEqual({
      status: 'error',
      code: 'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED',
      errors: [{ field: 'expiration_date', reason: 'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED' }],
    });
    const both = await extend({ expiration_period: 'P1D', expiration_date: '2099-01-01T00:00:00+09:00' });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([{ field: 'expiration_date', reason: 'EITHER_PERIOD_OR_DATE' }]);
    expect((await extend({ expiration_period: 'soon' })).body.code).toBe('VALIDATION_ERROR');
    const after: Any = await sdk().charges.expiry(
      created.id,
      undefined,
      undefined,
      suite.merchants.shop.store.id,
    );
    expect(after).toMatchObject({ extensionCount: 1, expirationDate: extended.body.expiration_date });
    expect(
      (await api().request(`/stores/${suite.merchants.shop.store.id}/charges/${created.id}`)).body.status,
    ).toBe('awaiting');

    // MAXIMUM_EXTENSIONS_REACHED after five
    for (let i = 0; i < 4; i += 1) expect((await extend({ expiration_period: 'P1D' })).status).toBe(200);
    const sixth = await extend({});
    expect(sixth.body.code).toBe('MAXIMUM_EXTENSIONS_REACHED');
  });

  it('unpaid at its deadline: failed (327), voided and announced exactly once across two charge-service replicas', async () => {
    // the token's own period: a deadline two seconds after the charge is accepted
    const created = await charge((await bankToken({ expirationPeriod: 'PT2S' })).id);
    const { payload } = await awaitingWithInstructions(created.id);
    const ended: Any = await eventually(
      async () => {
        const c: Any = await sdk().charges.get(suite.merchants.shop.store.id, created.id);
        return c.status !== 'awaiting' && c;
      },
      { timeoutMs: 15_000, what: 'the charge to expire' },
    );
    expect(ended).toMatchObject({
      status: 'failed',
      error: { code: 327, message: 'CONFIRMATION_PERIOD_EXPIRED' },
    });
    expect((await eventTypes(created.id)).filter((e) => e === CHARGE_FINISHED)).toHaveLength(1);
    expect(operationStats(suite.simulator.stats(), 'void', `expiry-${created.id}`).executions).toBe(1);
    // the bank takes no more money for it, and an extension is refused
    expect(await pay('bank', payload.account_number, 5000)).toBe(410);
    const late = await api().request(
      `/stores/${suite.merchants.shop.store.id}/charges/${created.id}/expiry`,
      {
        method: 'POST',
        json: {},
      },
    );
    expect(late.body.code).toBe('INVALID_CHARGE_STATUS');
  });

  it('automatic extension: extended at each deadline up to the maximum (five), then failed, each exactly once across two replicas; paid meanwhile, successful', async () => {
    // each deadline EXTENSION_S after the last: the charges must still be awaiting when this reads
    // them, which a busy machine made past the five extensions of one second each (then failed)
    const period = `PT${EXTENSION_S}S`;
    await withBankConfiguration(
      {
        automatic_extension_enabled: true,
        default_extension_period: period,
        maximum_extension_period: period,
      },
      async () => {
        // deadlines EXTENSION_S after acceptance, then EXTENSION_S more at each automatic extension
        const unpaid = await charge((await bankToken({ expirationPeriod: period })).id);
        const konbini = await charge((await konbiniToken({ expirationPeriod: period })).id);
        const paidLate = await charge((await bankToken({ expirationPeriod: period })).id);
        const { payload } = await awaitingWithInstructions(paidLate.id);
        await awaitingWithInstructions(unpaid.id);
        await awaitingWithInstructions(konbini.id);
        const first: Any = await sdk().charges.expiry(
          unpaid.id,
          undefined,
          undefined,
          suite.merchants.shop.store.id,
        );

        // past its first deadline and extended: the money still pays it
        await eventually(
          async () =>
            (
              (await sdk().charges.expiry(
                paidLate.id,
                undefined,
                undefined,
                suite.merchants.shop.store.id,
              )) as Any
            ).extensionCount >= 1,
          { timeoutMs: 10_000 + EXTENSION_S * 1000, what: 'a first automatic extension' },
        );
        expect(await pay('bank', payload.account_number, 5000)).toBe(200);
        expect(await ended(paidLate.id)).toMatchObject({ status: 'successful', chargedAmount: 5000 });

        for (const created of [unpaid, konbini]) {
          expect(await ended(created.id, 30_000 + 6 * EXTENSION_S * 1000)).toMatchObject({
            status: 'failed',
            error: { code: 327, message: 'CONFIRMATION_PERIOD_EXPIRED' },
          });
          const expiry: Any = await sdk().charges.expiry(
            created.id,
            undefined,
            undefined,
            suite.merchants.shop.store.id,
          );
          expect(expiry.extensionCount).toBe(5);
          const events = await eventTypes(created.id);
          // awaiting once, then once per extension (charge_updated: it awaits a new deadline)
          expect(events.filter((e) => e === CHARGE_UPDATED)).toHaveLength(6);
          expect(events.filter((e) => e === CHARGE_FINISHED)).toHaveLength(1);
          expect(operationStats(suite.simulator.stats(), 'void', `expiry-${created.id}`).executions).toBe(1);
        }
        const last: Any = await sdk().charges.expiry(
          unpaid.id,
          undefined,
          undefined,
          suite.merchants.shop.store.id,
        );
        expect(new Date(last.expirationDate).getTime() - new Date(first.expirationDate).getTime()).toBe(
          // `first` was read before its first extension or, on a busy machine, after some of them
          (5 - first.extensionCount) * EXTENSION_S * 1000,
        );
      },
    );
  }, 120_000);

  it('capture_at is the payment deadline (api-reference §5.2): taken as given, at most 60 days ahead', async () => {
    const at = new Date(Date.now() + 2 * 86_400_000 + 12_345);
    const created = await charge((await bankToken({ expirationPeriod: 'P1D' })).id, {
      captureAt: at.toISOString(),
    });
    expect(created.captureAt).toBe(at.toISOString());
    const expiry: Any = await sdk().charges.expiry(
      created.id,
      undefined,
      undefined,
      suite.merchants.shop.store.id,
    );
    expect(expiry.expirationDate).toBe(at.toISOString());
    const { payload } = await awaitingWithInstructions(created.id);
    expect(payload.expiration_date).toBe(at.toISOString());

    const konbini = await charge((await konbiniToken()).id, { captureAt: Math.floor(at.getTime() / 1000) });
    const konbiniExpiry: Any = await sdk().charges.expiry(
      konbini.id,
      undefined,
      undefined,
      suite.merchants.shop.store.id,
    );
    expect(konbiniExpiry.expirationDate).toBe(new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString());

    for (const captureAt of [Date.now() + 61 * 86_400_000, '2001-01-01T00:00:00Z']) {
      const refused = await sdkError(charge((await bankToken()).id, { captureAt }));
      expect(refused).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'capture_at', reason: 'INVALID_SCHEDULED_CAPTURE_DATE' }],
      });
    }
    // nothing to capture later: capture false is refused as for every payment but a card
    const held = await sdkError(
      charge((await konbiniToken()).id, { capture: false, captureAt: at.toISOString() }),
    );
    expect(held).toMatchObject({ code: 'CAPTURE_ONLY_FOR_CARD_PAYMENT' });
  });

  it('refuses other currencies, other token types and unknown brands with clear errors', async () => {
    const usd = await api().postCharge({
      transaction_token_id: (await bankToken()).id,
      amount: 5000,
      currency: 'USD',
    });
    expect(usd.status).toBe(400);
    expect(usd.body.errors).toEqual([{ field: 'currency', reason: 'CURRENCY_NOT_SUPPORTED' }]);
    const recurring = await sdkError(
      sdk().transactionTokens.create({
        paymentType: PaymentType.BANK_TRANSFER,
        type: 'recurring',
        email: 'buyer@example.test',
        data: { brand: 'bank_test_brand' },
      } as Any),
    );
    expect(recurring).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }],
    });
    const brand = await sdkError(bankToken({ brand: 'gringotts' }));
    expect(brand).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'data.brand' })],
    });
    const period = await sdkError(bankToken({ expirationPeriod: 'P400D' }));
    expect(period.errors).toEqual([{ field: 'data.expiration_period', reason: 'INVALID_TIME_PERIOD' }]);
  });
});

describe('stray money', () => {
  /** the operator's view (admin CLI deposits:stray) */
  const stray = (...argv: string[]): Promise<Any> =>
    runCli(['deposits:stray', ...argv], {
      env: suite.env.variables,
      credentialsFile: '/dev/null',
      print: () => undefined,
    });

  it('money after the charge was paid: recorded unmatched and after its end, announced, the charge unchanged', async () => {
    const created = await charge((await bankToken()).id);
    const { payload } = await awaitingWithInstructions(created.id);
    expect(await pay('bank', payload.account_number, 5000)).toBe(200);
    expect(await ended(created.id)).toMatchObject({ status: 'successful', chargedAmount: 5000 });
    // the virtual account still takes money, as a bank's does
    expect(await pay('bank', payload.account_number, 700)).toBe(200);
    const late = await eventually(() =>
      suite.env.prisma.chargeDeposit.findFirst({ where: { chargeId: created.id, receivedAfterEnd: true } }),
    );
    expect(late).toMatchObject({ amount: 700n, matched: false });
    expect(await sdk().charges.get(suite.merchants.shop.store.id, created.id)).toMatchObject({
      status: 'successful',
      chargedAmount: 5000,
    });
    const events: string[] = await eventually(async () => {
      const all = await eventTypes(created.id);
      return all.filter((e) => e === BANK_TRANSFER_STATUS_UPDATED).length === 2 ? all : null;
    });
    expect(events.filter((e) => e === CHARGE_FINISHED)).toHaveLength(1);
    expect(await suite.env.prisma.chargeDeposit.count({ where: { chargeId: created.id } })).toBe(2);

    const listed = await stray('--merchant', suite.merchants.shop.merchant.id);
    expect(listed.unassigned).toEqual([]);
    expect(listed.after_end).toContainEqual(
      expect.objectContaining({
        id: late.id,
        charge_id: created.id,
        charge_status: 'successful',
        amount: 700,
      }),
    );
    expect((await stray('--merchant', suite.merchants.foreign.merchant.id)).after_end).toEqual([]);
  });

  it('money for no charge of ours: the signed notice is taken and the money recorded unassigned, once', async () => {
    // a virtual account the test bank gave out for a payment Kessai never asked for
    const reference = randomUUID();
    const opened = await fetch(`${suite.simulator.url}/v1/deferred-payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': reference },
      body: JSON.stringify({
        reference,
        amount: 1200,
        currency: 'JPY',
        method: { type: 'bank_transfer', brand: 'bank_test_brand' },
        expires_on: new Date(Date.now() + 86_400_000).toISOString(),
        callback_url: `${suite.url}/processor/callbacks`,
      }),
    });
    expect(opened.status).toBe(200);
    const account = ((await opened.json()) as Any).payment.deferred.instructions.account_number as string;
    expect(await pay('bank', account, 1200)).toBe(200);
    const unassigned = await eventually(() =>
      suite.env.prisma.unassignedDeposit.findFirst({ where: { reference } }),
    );
    expect(unassigned).toMatchObject({ amount: 1200n, currency: 'JPY' });
    expect(await suite.env.prisma.unassignedDeposit.count({ where: { reference } })).toBe(1);
    expect(await suite.env.prisma.outboxEvent.count({ where: { aggregateId: reference } })).toBe(0);
    expect((await stray()).unassigned).toContainEqual(
      expect.objectContaining({ id: unassigned.id, reference, amount: 1200, currency: 'JPY' }),
    );
  });
});

describe('webhooks', () => {
  it('delivers bank_transfer_status_updated for each transfer, matched or not, then charge_finished', async () => {
    await sdk().webHooks.create(
      {
        triggers: [WebHookTrigger.BANK_TRANSFER_STATUS_UPDATED, WebHookTrigger.CHARGE_FINISHED],
        url: receiver.url,
      },
      undefined,
      suite.merchants.shop.store.id,
    );
    const created = await charge((await bankToken()).id);
    const { payload } = await awaitingWithInstructions(created.id);
    expect(await pay('bank', payload.account_number, 1000)).toBe(200);
    await eventually(() => suite.env.prisma.chargeDeposit.findFirst({ where: { chargeId: created.id } }));
    expect(await pay('bank', payload.account_number, 4000)).toBe(200);

    const bodies = () =>
      receiver.received
        .map((request) => JSON.parse(request.body) as { event: string; data: Any })
        .filter((body) => body.data.charge_id === created.id || body.data.id === created.id);
    const delivered = await eventually(
      () => {
        const all = bodies();
        return all.length >= 3 ? all : null;
      },
      { timeoutMs: 15_000, what: 'three deliveries' },
    );
    const transfers = delivered.filter((body) => body.event === BANK_TRANSFER_STATUS_UPDATED);
    expect(transfers.map((body) => [body.data.amount, body.data.matched]).sort()).toEqual([
      [1000, false],
      [4000, true],
    ]);
    expect(transfers[0]?.data).toMatchObject({
      charge_id: created.id,
      store_id: suite.merchants.shop.store.id,
      currency: 'JPY',
      requested_amount: 5000,
    });
    expect(delivered.filter((body) => body.event === CHARGE_FINISHED)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ id: created.id, status: 'successful' }) }),
    ]);
  });
});

describe('konbini through the SDK', () => {
  it('a payment code and slip; with match_amount minimum an overpayment completes it at the amount received', async () => {
    const patched = await api().request(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      json: { configuration: { bank_transfer_configuration: { match_amount: 'minimum' } } },
    });
    expect(patched.status).toBe(200);
    try {
      const token = await konbiniToken();
      expect(token.data).toMatchObject({ convenienceStore: 'seven_eleven', customerName: 'Yamada Taro' });
      const created = await charge(token.id);
      const instructions = await awaitingWithInstructions(created.id);
      expect(instructions).toMatchObject({
        payment_type: 'konbini',
        payload: { convenience_store: 'seven_eleven', payment_code: expect.stringMatching(/^\d{12}$/) },
      });
      const slip = await fetch(instructions.issuer_token);
      expect(await slip.text()).toContain(instructions.payload.payment_code);
      const expiry: Any = await sdk().charges.expiry(
        created.id,
        undefined,
        undefined,
        suite.merchants.shop.store.id,
      );
      expect(expiry.extensionCount).toBe(0);
      // extended as a bank transfer is, within bank_transfer_configuration's limits
      const extend = (body: unknown) =>
        api().request(`/stores/${suite.merchants.shop.store.id}/charges/${created.id}/expiry`, {
          method: 'POST',
          json: body,
        });
      const extended = await extend({ expiration_period: 'P1D' });
      expect(extended.body).toMatchObject({ charge_id: created.id, extension_count: 1 });
      expect(
        new Date(extended.body.expiration_date).getTime() - new Date(expiry.expirationDate).getTime(),
      ).toBe(86_400_000);
      expect((await extend({ expiration_period: 'P31D' })).body.code).toBe(
        'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED',
      );

      expect(await pay('konbini', instructions.payload.payment_code, 4000)).toBe(200);
      await eventually(() => suite.env.prisma.chargeDeposit.findFirst({ where: { chargeId: created.id } }));
      expect(await statusOf(created.id)).toBe('awaiting');
      expect(await pay('konbini', instructions.payload.payment_code, 1500)).toBe(200);
      const paid: Any = await pastAwaiting(created.id);
      expect(paid).toMatchObject({ status: 'successful', chargedAmount: 5500 });
      // a payment code has no virtual account: no bank-transfer ledger
      const ledgers = await (
        await merchantApi(suite.merchants.shop)
      ).request(`/stores/${suite.merchants.shop.store.id}/charges/${created.id}/bank_transfer_ledgers`);
      expect(ledgers.status).toBe(404);
      // konbini money is recorded, but bank_transfer_status_updated is the bank's event only
      expect(await eventTypes(created.id)).not.toContain(BANK_TRANSFER_STATUS_UPDATED);
    } finally {
      await api().request(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        json: { configuration: { bank_transfer_configuration: null } },
      });
    }
  });

  it('is refused when the store turned konbini off', async () => {
    const token = await konbiniToken();
    await api().request(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      json: { configuration: { convenience_configuration: { enabled: false } } },
    });
    try {
      const refused = await sdkError(charge(token.id));
      expect(refused).toMatchObject({ code: 'CONVENIENCE_PROCESSING_DISABLED' });
      // a new konbini token is refused when it is made, with the same code
      expect(await sdkError(konbiniToken())).toMatchObject({
        code: 'CONVENIENCE_PROCESSING_DISABLED',
        errors: [{ field: 'payment_type', reason: 'CONVENIENCE_PROCESSING_DISABLED' }],
      });
    } finally {
      await api().request(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        json: { configuration: { convenience_configuration: null } },
      });
    }
  });
});

describe('another merchant', () => {
  it('sees none of it: the expiry, the instructions, the ledger and the extension are 404', async () => {
    const created = await charge((await bankToken()).id);
    await awaitingWithInstructions(created.id);
    const other = suite.sdk.foreign;
    expect(
      await sdkError(other.charges.expiry(created.id, undefined, undefined, suite.merchants.shop.store.id)),
    ).toMatchObject({
      code: 'NOT_FOUND',
    });
    const otherApi = suite.api.foreign;
    for (const path of ['expiry/latest', 'issuer_token']) {
      const res = await otherApi.request(
        `/stores/${suite.merchants.foreign.store.id}/charges/${created.id}/${path}`,
      );
      expect(res.status).toBe(404);
    }
    const otherMerchant = await merchantApi(suite.merchants.foreign);
    for (const storeId of [suite.merchants.foreign.store.id, suite.merchants.shop.store.id]) {
      const res = await otherMerchant.request(
        `/stores/${storeId}/charges/${created.id}/bank_transfer_ledgers`,
      );
      expect(res.status).toBe(404);
    }
    const extend = await otherApi.request(
      `/stores/${suite.merchants.foreign.store.id}/charges/${created.id}/expiry`,
      {
        method: 'POST',
        json: {},
      },
    );
    expect(extend.status).toBe(404);
  });
});
