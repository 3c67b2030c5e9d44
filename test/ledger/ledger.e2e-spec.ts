// The ledger (issue 31; docs/ledger.md): ledger-service posts what real charges and refunds did,
// once each, with the store's fee and wait period; pending money is released once available; the
// books verify; and the database itself refuses whatever would break them. The real gateway in
// process, charge-service, refund-cancel-service and ledger-service processes, the simulator.
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { BankAccountType, LedgerOrigin } from 'univapay-node';
import { LedgerRepository, PayoutsRepository, PrismaService, type PostingRequest } from '@kessai/db';
import { owedToStore, salePosting } from '@kessai/domain';
import { availableOn } from '@kessai/schedule';
import { APPROVED_TEST_CARD, CapturedLog, eventually, sdkCardToken, sdkFor, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { LedgerMetrics } from '../../apps/ledger-service/src/ledger-metrics';
import { PayoutEngine } from '../../apps/ledger-service/src/payout-engine';

const DECLINED_CARD = '4111111111111111';

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  variables: {
    LEDGER_POST_INTERVAL_MS: '100',
    LEDGER_RELEASE_INTERVAL_MS: '200',
    LEDGER_VERIFY_INTERVAL_MS: '200',
  },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'ledger' } },
  workers: ['charge-service', 'refund-cancel-service', 'ledger-service'],
});
let prisma: PrismaService;
let ledger: LedgerRepository;

beforeAll(async () => {
  // 3.6 % of every charge, and money available three days after it was taken, in Tokyo
  await suite.cli(
    'merchant:configure',
    '--merchant',
    suite.merchants.shop.merchant.id,
    '--set',
    '{"percent_fee": 3.6, "wait_period": "P3D"}',
  );
  prisma = new PrismaService(suite.env.config);
  suite.cleanup(() => prisma.onModuleDestroy());
  ledger = new LedgerRepository(prisma);
}, 60_000);

async function finalCharge(id: string, status: string) {
  return eventually(
    async () => {
      const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id } });
      return row.status === status ? row : null;
    },
    { timeoutMs: 30_000, what: `charge ${id} ${status}` },
  );
}

const postingOf = (kind: 'sale' | 'refund', sourceId: string) =>
  suite.env.prisma.ledgerTransaction.findFirst({ where: { kind, sourceId }, include: { entries: true } });

async function storeBalances() {
  const accounts = await suite.env.prisma.ledgerAccount.findMany({
    where: { storeId: suite.merchants.shop.store.id },
  });
  return Object.fromEntries(accounts.map((a) => [a.kind, owedToStore(a.balance)]));
}

async function platformBalance(kind: 'processor_clearing' | 'platform_fee_revenue') {
  return (
    await suite.env.prisma.ledgerAccount.findFirstOrThrow({ where: { kind, mode: 'test', currency: 'JPY' } })
  ).balance;
}

describe('posting what charges and refunds did', () => {
  it('posts each successful charge and refund once, with its fee and availability, and nothing for a decline', async () => {
    const paid = await suite.api.shop.charge(await suite.api.shop.cardToken(), { amount: 1000 });
    const held = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      amount: 2000,
      capture: false,
    });
    const declined = await suite.api.shop.charge(
      await suite.api.shop.cardToken({ cardNumber: DECLINED_CARD }),
      { amount: 700 },
    );
    await finalCharge(paid.id, 'successful');
    await finalCharge(held.id, 'authorized');
    await finalCharge(declined.id, 'failed');
    // a partial capture: only what was captured is taken
    const captured = await suite.api.shop.request(
      `/stores/${suite.merchants.shop.store.id}/charges/${held.id}/capture`,
      {
        method: 'POST',
        json: { amount: 1500, currency: 'JPY' },
      },
    );
    expect(captured.status).toBe(200);
    await finalCharge(held.id, 'successful');
    const refund = await suite.api.shop.request(
      `/stores/${suite.merchants.shop.store.id}/charges/${paid.id}/refunds`,
      {
        method: 'POST',
        json: { amount: 400, currency: 'JPY' },
      },
    );
    expect(refund.status).toBe(201);
    const refundId = (refund.body as { id: string }).id;

    await eventually(
      async () => (await postingOf('refund', refundId)) && (await postingOf('sale', held.id)),
      {
        timeoutMs: 30_000,
        what: 'the sales and the refund to be posted',
      },
    );
    const first = (await postingOf('sale', paid.id))!;
    const second = (await postingOf('sale', held.id))!;
    expect(first).toMatchObject({
      amount: 1000n,
      feeAmount: 36n,
      feeRatePpm: 36_000,
      currency: 'JPY',
      mode: 'test',
    });
    expect(second).toMatchObject({ amount: 1500n, feeAmount: 54n });
    expect(await postingOf('sale', declined.id)).toBeNull();
    expect(await postingOf('refund', refundId)).toMatchObject({ amount: -400n, feeAmount: 0n });
    // available from the start of the Tokyo day after three days from the charge's end
    const finished = await suite.env.prisma.outboxEvent.findFirstOrThrow({
      where: { aggregateId: paid.id, eventType: 'charge_finished' },
    });
    expect(first.availableOn).toEqual(availableOn(finished.createdOn, 'P3D', 'Asia/Tokyo'));
    expect(first.entries.filter((e) => e.availableOn !== null).map((e) => e.availableOn)).toEqual([
      first.availableOn,
      first.availableOn,
    ]);

    // one posting per fact, however often the poster ran
    expect(
      await suite.env.prisma.ledgerTransaction.count({
        where: { sourceId: { in: [paid.id, held.id, refundId] } },
      }),
    ).toBe(3);
    // the books, by hand: the store is owed 964 + 1,446 once available, and paid back 400 already
    expect(await storeBalances()).toEqual({ store_pending: 964n + 1446n, store_available: -400n });
    expect(await platformBalance('processor_clearing')).toBe(1000n + 1500n - 400n);
    expect(await platformBalance('platform_fee_revenue')).toBe(-(36n + 54n));
    expect(await ledger.verify()).toMatchObject({
      unbalancedTransactions: 0,
      emptyTransactions: 0,
      unbalancedBooks: 0,
      wrongBalances: 0,
      wrongMaturities: 0,
    });
    expect(await suite.cli('ledger:verify')).toMatchObject({ ok: true, transactions: 3 });
  }, 90_000);

  it('releases pending money once its instant has come, exactly what it holds', async () => {
    const before = await storeBalances();
    const past = new Date(Date.now() - 3_600_000);
    const matured: PostingRequest = {
      posting: salePosting({
        chargeId: crypto.randomUUID(),
        mode: 'test',
        merchantId: suite.merchants.shop.merchant.id,
        storeId: suite.merchants.shop.store.id,
        currency: 'JPY',
        grossAmount: 5000n,
        feeAmount: 180n,
        feeRatePpm: 36_000,
        feeFlatAmount: null,
        availableOn: past,
      }),
      createdBy: 'test',
      causeEventId: null,
    };
    expect((await ledger.post([matured])).written).toHaveLength(1);
    await eventually(async () => (await storeBalances()).store_available === before.store_available + 4820n, {
      timeoutMs: 15_000,
      what: 'the matured 4,820 to be released',
    });
    expect(await storeBalances()).toEqual({
      store_pending: before.store_pending,
      store_available: before.store_available + 4820n,
    });
    const pending = await suite.env.prisma.ledgerAccount.findFirstOrThrow({
      where: { storeId: suite.merchants.shop.store.id, kind: 'store_pending' },
    });
    expect(
      await suite.env.prisma.ledgerMaturity.findUniqueOrThrow({
        where: { accountId_availableOn: { accountId: pending.id, availableOn: past } },
      }),
    ).toMatchObject({ amount: 0n });
    expect(
      await suite.env.prisma.ledgerTransaction.count({
        where: { kind: 'release', storeId: suite.merchants.shop.store.id },
      }),
    ).toBe(1);
  }, 30_000);

  it('posts a fact twice as one, and never accepts it again with other amounts', async () => {
    const chargeId = crypto.randomUUID();
    const sale = (grossAmount: bigint): PostingRequest => ({
      posting: salePosting({
        chargeId,
        mode: 'test',
        merchantId: suite.merchants.shop.merchant.id,
        storeId: suite.merchants.shop.store.id,
        currency: 'JPY',
        grossAmount,
        feeAmount: 0n,
        feeRatePpm: 0,
        feeFlatAmount: null,
        availableOn: new Date(Date.now() + 86_400_000),
      }),
      createdBy: 'test',
      causeEventId: null,
    });
    expect(await ledger.post([sale(300n)])).toMatchObject({
      written: [expect.anything()],
      repeated: 0,
      conflicts: [],
    });
    const books = await storeBalances();
    expect(await ledger.post([sale(300n)])).toMatchObject({ written: [], repeated: 1, conflicts: [] });
    expect(await ledger.post([sale(301n)])).toMatchObject({
      written: [],
      repeated: 0,
      conflicts: [{ kind: 'sale', sourceId: chargeId, stored: { amount: 300n }, wanted: { amount: 301n } }],
    });
    expect(await storeBalances()).toEqual(books);
  });
});

describe('ledger_id on charges and refunds (decisions 0052, 0080)', () => {
  it("points at the ledger row that ledgers.get and a transfer's ledgers.list answer for it", async () => {
    const sdk = suite.sdk.shop;
    const storeId = suite.merchants.shop.store.id;
    const token = await sdkCardToken(sdk, { cardNumber: APPROVED_TEST_CARD });
    const created = await sdk.charges.create({ transactionTokenId: token.id, amount: 2500, currency: 'JPY' });
    const charge = await sdk.charges.poll(storeId, created.id);
    expect(charge.status).toBe('successful');
    const refund = await sdk.refunds.poll(
      storeId,
      charge.id,
      (await sdk.refunds.create(storeId, charge.id, { amount: 700, currency: 'JPY' })).id,
    );
    expect(refund.status).toBe('successful');

    // absent until the ledger posts them, then the id of their posting
    const posted = await eventually(
      async () => {
        const [c, r] = await Promise.all([
          sdk.charges.get(storeId, charge.id),
          sdk.refunds.get(storeId, charge.id, refund.id),
        ]);
        return c.ledgerId && r.ledgerId ? { charge: c, refund: r } : null;
      },
      { timeoutMs: 30_000, what: "the charge's and the refund's ledger_id" },
    );
    const sale = await suite.env.prisma.ledgerTransaction.findFirstOrThrow({
      where: { kind: 'sale', sourceType: 'charge', sourceId: charge.id },
    });
    const returned = await suite.env.prisma.ledgerTransaction.findFirstOrThrow({
      where: { kind: 'refund', sourceType: 'refund', sourceId: refund.id },
    });
    expect(posted.charge.ledgerId).toBe(sale.id);
    expect(posted.refund.ledgerId).toBe(returned.id);
    // a charge's is read by the ledger's key (decision 0080): every read answers it, the list and the
    // metadata PATCH's answer too, and the posting did not rewrite the charge's row
    const page = await sdk.charges.list(undefined, undefined, storeId);
    expect(page.items.find((item) => item.id === charge.id)?.ledgerId).toBe(sale.id);
    const patched = await suite.api.shop.request(`/stores/${storeId}/charges/${charge.id}`, {
      method: 'PATCH',
      json: { metadata: { order: 'ledger-1' } },
    });
    expect(patched.status).toBe(200);
    expect((patched.body as { ledger_id?: string }).ledger_id).toBe(sale.id);
    expect(
      (await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: charge.id } })).ledgerId,
    ).toBeNull();
    // a charge that took nothing has none
    const declined = await sdk.charges.create({
      transactionTokenId: (await sdkCardToken(sdk, { cardNumber: DECLINED_CARD })).id,
      amount: 900,
      currency: 'JPY',
    });
    expect((await sdk.charges.poll(storeId, declined.id)).ledgerId).toBeUndefined();

    const merchantSdk = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop, 'test'));
    expect(await merchantSdk.ledgers.get(posted.charge.ledgerId!)).toMatchObject({
      id: sale.id,
      origin: LedgerOrigin.CHARGE,
      amount: 2500 - 90,
      storeId,
    });
    expect(await merchantSdk.ledgers.get(posted.refund.ledgerId!)).toMatchObject({
      id: returned.id,
      origin: LedgerOrigin.REFUND,
      amount: -700,
    });

    // a transfer that pays them lists them under the same ids (the engine's clock 40 days on)
    await merchantSdk.bankAccounts.create({
      accountNumber: '1234567',
      country: 'JP',
      currency: 'JPY',
      holderName: 'Ledger KK',
      bankName: 'Mizuho Bank',
      accountType: BankAccountType.CHECKING,
    });
    const payouts = new PayoutsRepository(prisma, ledger);
    const engine = new PayoutEngine(
      payouts,
      new LedgerMetrics(new Registry()),
      new CapturedLog().logger('ledger-service'),
      suite.env.config,
    );
    await engine.runOnce(new Date(Date.now() + 40 * 86_400_000));
    const transfer = await suite.env.prisma.transfer.findFirstOrThrow({
      where: { merchantId: suite.merchants.shop.merchant.id },
      orderBy: { payoutDay: 'desc' },
    });
    const listed = (await merchantSdk.ledgers.list(transfer.id, { limit: 100 })).items;
    expect(listed.map((item) => item.id)).toEqual(
      expect.arrayContaining([posted.charge.ledgerId, posted.refund.ledgerId]),
    );
    expect(listed.find((item) => item.id === posted.charge.ledgerId)).toMatchObject({
      origin: LedgerOrigin.CHARGE,
      transferId: transfer.id,
    });
  }, 90_000);
});

describe('the database keeps the books', () => {
  let sql: Client;
  beforeAll(async () => {
    sql = new Client({ connectionString: suite.env.database.url });
    await sql.connect();
  });
  afterAll(() => sql?.end());

  const refused = async (statement: string, message: RegExp) =>
    expect(sql.query(statement)).rejects.toThrow(message);

  it('refuses to change or remove an entry or a transaction', async () => {
    await refused('UPDATE ledger_entries SET amount = amount + 1', /append-only: UPDATE on ledger_entries/);
    await refused('DELETE FROM ledger_entries', /append-only: DELETE on ledger_entries/);
    await refused('TRUNCATE ledger_entries CASCADE', /append-only: TRUNCATE/);
    await refused(`UPDATE ledger_transactions SET amount = 1`, /append-only: UPDATE on ledger_transactions/);
    await refused('DELETE FROM ledger_transactions', /append-only: DELETE on ledger_transactions/);
  });

  it('refuses a balance or a maturity written by hand', async () => {
    await refused('UPDATE ledger_accounts SET balance = 0', /balance is the sum of its entries/);
    await refused('DELETE FROM ledger_accounts', /DELETE refused/);
    await refused('UPDATE ledger_maturities SET amount = 0', /maturity is the sum/);
  });

  it('refuses a transaction that does not balance, one without entries, and entries added later', async () => {
    const [clearing, fees] = await Promise.all([
      suite.env.prisma.ledgerAccount.findFirstOrThrow({
        where: { kind: 'processor_clearing', mode: 'test' },
      }),
      suite.env.prisma.ledgerAccount.findFirstOrThrow({
        where: { kind: 'platform_fee_revenue', mode: 'test' },
      }),
    ]);
    const transaction = (id: string) => `
      INSERT INTO ledger_transactions (id, kind, source_type, source_id, mode, merchant_id, currency, amount, created_by)
      VALUES ('${id}', 'adjustment', 'adjustment', gen_random_uuid(), 'test', '${suite.merchants.shop.merchant.id}', 'JPY', 5, 'test')`;
    const unbalanced = crypto.randomUUID();
    await refused(
      `WITH t AS (${transaction(unbalanced)} RETURNING id)
       INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
       SELECT id, '${clearing.id}', 'JPY', 5 FROM t`,
      /does not balance: its JPY entries sum to 5/,
    );
    await refused(transaction(crypto.randomUUID()), /has no entries/);
    // the sale posted above: two more entries that would balance, in a later transaction
    const posted = await suite.env.prisma.ledgerTransaction.findFirstOrThrow({ where: { kind: 'sale' } });
    await refused(
      `INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
       VALUES ('${posted.id}', '${clearing.id}', 'JPY', 7), ('${posted.id}', '${fees.id}', 'JPY', -7)`,
      /posted by another database transaction: its entries are closed/,
    );
    expect(await ledger.verify()).toMatchObject({ unbalancedTransactions: 0, wrongBalances: 0 });
  });
});
