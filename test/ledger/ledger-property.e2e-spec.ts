// The ledger's invariants under concurrency (issue 31), checked by fast-check: random sequences of
// sales, refunds, adjustments and payouts (a payout day run, a transfer paid, failed or canceled),
// some facts sent twice, carried out by two processes' repositories at once (each its own Postgres
// pool; a payout day always by both), then released by both at once. Whatever the order, the books
// verify, every fact is posted once, each payout day makes one transfer at most, no ledger row is
// paid by two live transfers, a transfer pays exactly the rows it covers (never a negative sum), and
// every balance is what the facts say. A failure prints fast-check's seed and path (replay:
// FC_SEED=<seed> FC_PATH=<path>).
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { LedgerRepository, PayoutsRepository, PrismaService, type PostingRequest } from '@kessai/db';
import {
  adjustmentPosting,
  decidePayout,
  owedToStore,
  refundPosting,
  salePosting,
  type TransferStatus,
} from '@kessai/domain';
import { useSuite } from '@kessai/testing';

const suite = useSuite();
let prismas: PrismaService[];
let posters: LedgerRepository[];
let payouts: PayoutsRepository[];

beforeAll(() => {
  prismas = [new PrismaService(suite.env.config), new PrismaService(suite.env.config)];
  suite.cleanup(() => Promise.all(prismas.map((prisma) => prisma.onModuleDestroy())));
  posters = prismas.map((prisma) => new LedgerRepository(prisma));
  payouts = prismas.map((prisma, i) => new PayoutsRepository(prisma, posters[i]));
});

type Fact =
  | { type: 'sale'; store: number; gross: bigint; fee: bigint; matured: boolean }
  | { type: 'refund'; store: number; amount: bigint }
  | { type: 'adjustment'; store: number; amount: bigint }
  | { type: 'payout' }
  | { type: 'settle'; to: 'paid' | 'failed' | 'canceled' };

const amount = fc.bigInt({ min: 1n, max: 1_000_000n });
const fact: fc.Arbitrary<Fact> = fc.oneof(
  fc
    .record({ store: fc.nat(2), gross: amount, share: fc.nat(100), matured: fc.boolean() })
    .map(({ store, gross, share, matured }) => ({
      type: 'sale' as const,
      store,
      gross,
      fee: (gross * BigInt(share)) / 1000n,
      matured,
    })),
  fc.record({ store: fc.nat(2), amount }).map((f) => ({ type: 'refund' as const, ...f })),
  fc
    .record({ store: fc.nat(2), amount, credit: fc.boolean() })
    .map(({ store, amount: a, credit }) => ({ type: 'adjustment' as const, store, amount: credit ? a : -a })),
  fc.constant({ type: 'payout' as const }),
  fc
    .constantFrom('paid' as const, 'failed' as const, 'canceled' as const)
    .map((to) => ({ type: 'settle' as const, to })),
);

/** The ledger facts of a run (payouts and settlements are carried out, not posted as such). */
type LedgerFact = Extract<Fact, { store: number }>;
const isLedgerFact = (f: Fact): f is LedgerFact => 'store' in f;

/**
 * One run's world: three stores of a merchant of its own (its book apart from the other runs'),
 * fresh accounts, and a verified primary bank account for its payouts (test mode).
 */
async function world() {
  const merchantId = (await suite.env.seedMerchant('property')).merchant.id;
  const bankAccountId = randomUUID();
  await suite.env.prisma.bankAccount.create({
    data: {
      id: bankAccountId,
      merchantId,
      mode: 'test',
      holderName: 'Property KK',
      bankName: 'Mizuho Bank',
      country: 'JP',
      currency: 'JPY',
      accountType: 'checking',
      keyId: 'property',
      iv: randomBytes(12),
      ciphertext: randomBytes(16),
      authTag: randomBytes(16),
      fingerprint: randomUUID(),
      lastFour: '4567',
      status: 'verified',
      primary: true,
    },
  });
  const stores: string[] = [randomUUID(), randomUUID(), randomUUID()];
  const owner = (store: number) => ({ mode: 'test', merchantId, storeId: stores[store], currency: 'JPY' });
  const past = new Date(Date.now() - 3_600_000);
  const future = new Date(Date.now() + 7 * 86_400_000);
  const request = (f: LedgerFact): PostingRequest => {
    const id = randomUUID();
    const posting =
      f.type === 'sale'
        ? salePosting({
            ...owner(f.store),
            chargeId: id,
            grossAmount: f.gross,
            feeAmount: f.fee,
            feeRatePpm: null,
            feeFlatAmount: null,
            availableOn: f.matured ? past : future,
          })
        : f.type === 'refund'
          ? refundPosting({ ...owner(f.store), refundId: id, amount: f.amount })
          : adjustmentPosting({ ...owner(f.store), adjustmentId: id, amount: f.amount, note: 'property' });
    return { posting, createdBy: 'property', causeEventId: null };
  };
  return { merchantId, stores, request };
}

/** Runs payout day `day` (its index: one a day) of the merchant's book; what matured by now is owed. */
function payoutDay(repository: PayoutsRepository, merchantId: string, day: number) {
  const start = Date.UTC(2027, 0, 1 + day);
  return repository.run(
    {
      merchantId,
      mode: 'test',
      currency: 'JPY',
      payoutDay: new Date(start).toISOString().slice(0, 10),
      // every fact posted so far is before the cutoff, no pending sale (a week ahead) after it
      cutoff: new Date(Date.now() + 86_400_000),
      periodFrom: new Date(start - 86_400_000),
      minimum: { amount: 0, currency: 'JPY' },
      startedBy: 'property',
    },
    decidePayout,
  );
}

/** Moves the merchant's latest transfer that may take it to `to` (through processing for paid, failed). */
async function settle(repository: PayoutsRepository, merchantId: string, to: 'paid' | 'failed' | 'canceled') {
  const from: TransferStatus[] = to === 'canceled' ? ['created', 'approved'] : ['approved', 'processing'];
  const transfer = await suite.env.prisma.transfer.findFirst({
    where: { merchantId, status: { in: from } },
    orderBy: { payoutDay: 'desc' },
  });
  if (!transfer) return;
  if (to !== 'canceled' && transfer.status === 'approved')
    await repository.changeStatus(transfer.id, { to: 'processing', reason: 'property', by: 'property' });
  await repository.changeStatus(transfer.id, { to, reason: 'property', by: 'property' });
}

/** What the facts say each store is owed, pending and available, once what matured is released. */
function expected(facts: LedgerFact[]) {
  const owed = [0, 1, 2].map(() => ({ pending: 0n, available: 0n }));
  for (const f of facts) {
    if (f.type === 'sale') owed[f.store][f.matured ? 'available' : 'pending'] += f.gross - f.fee;
    else if (f.type === 'refund') owed[f.store].available -= f.amount;
    else owed[f.store].available += f.amount;
  }
  return owed;
}

/** What the runs made, across them: the property is not met vacuously. */
const seen = { transfers: 0, returned: 0 };

describe('the ledger under concurrency (property)', () => {
  it('posts every fact once, pays each payout day once and keeps every balance exact, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fact, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(1), { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        async (facts, poster, twice) => {
          const { merchantId, stores, request } = await world();
          // each fact to one poster, some to both at once; each poster's share in batches of 1-3;
          // a payout day to both (they race for it), a settlement to one
          type Step =
            { post: PostingRequest } | { payout: number } | { settle: 'paid' | 'failed' | 'canceled' };
          const requests: PostingRequest[] = [];
          const shares: Step[][] = [[], []];
          let days = 0;
          facts.forEach((f, i) => {
            if (f.type === 'payout') {
              const day = days++;
              shares[0].push({ payout: day });
              shares[1].push({ payout: day });
              return;
            }
            if (f.type === 'settle') {
              shares[poster[i]].push({ settle: f.to });
              return;
            }
            const r = request(f);
            requests.push(r);
            shares[poster[i]].push({ post: r });
            if (twice[i]) shares[1 - poster[i]].push({ post: r });
          });
          const carryOut = async (i: number, share: Step[]) => {
            for (let at = 0; at < share.length;) {
              const step = share[at];
              if ('payout' in step) {
                await payoutDay(payouts[i], merchantId, step.payout);
                at += 1;
              } else if ('settle' in step) {
                await settle(payouts[i], merchantId, step.settle);
                at += 1;
              } else {
                const batch: PostingRequest[] = [];
                while (at < share.length && 'post' in share[at] && batch.length < 1 + (at % 3))
                  batch.push((share[at++] as { post: PostingRequest }).post);
                await posters[i].post(batch);
              }
            }
          };
          await Promise.all([carryOut(0, shares[0]), carryOut(1, shares[1])]);
          // both release at once, until nothing matured is left
          while ((await Promise.all(posters.map((p) => p.release(2)))).some((n) => n > 0));

          const posted = await suite.env.prisma.ledgerTransaction.groupBy({
            by: ['sourceId'],
            where: { merchantId, kind: { in: ['sale', 'refund', 'adjustment'] } },
            _count: true,
          });
          expect(posted).toHaveLength(requests.length);
          expect(posted.every((row) => row._count === 1)).toBe(true);

          // one transfer per payout day at most, each paying exactly what it covers, never a debt
          const transfers = await suite.env.prisma.transfer.findMany({
            where: { merchantId },
            include: { ledgers: { include: { ledgerTransaction: true } } },
          });
          const runs = await suite.env.prisma.payoutRun.findMany({ where: { merchantId } });
          expect(runs).toHaveLength(days);
          expect(transfers).toHaveLength(runs.filter((run) => run.outcome === 'transfer').length);
          const live = transfers.filter((t) => t.status !== 'failed' && t.status !== 'canceled');
          seen.transfers += transfers.length;
          seen.returned += transfers.length - live.length;
          const net = (t: (typeof transfers)[number]) =>
            t.ledgers.reduce(
              (sum, l) => sum + l.ledgerTransaction.amount - l.ledgerTransaction.feeAmount,
              0n,
            );
          for (const t of transfers) {
            expect(t.amount).toBeGreaterThan(0n);
            expect(net(t)).toBe(t.amount);
          }
          const covered = live.flatMap((t) => t.ledgers.map((l) => l.ledgerTransactionId));
          expect(new Set(covered).size).toBe(covered.length);
          // a transfer's postings: its payout once, then paid or returned once as it ended
          for (const t of transfers) {
            const kinds = (
              await suite.env.prisma.ledgerTransaction.findMany({
                where: { sourceType: 'transfer', sourceId: t.id },
                select: { kind: true },
              })
            )
              .map((row) => row.kind)
              .sort();
            expect(kinds).toEqual(
              t.status === 'paid'
                ? ['payout', 'payout_paid']
                : t.status === 'failed' || t.status === 'canceled'
                  ? ['payout', 'payout_returned']
                  : ['payout'],
            );
          }

          // what the facts say, less what live transfers took from each store
          const owed = expected(facts.filter(isLedgerFact));
          for (const t of live)
            for (const l of t.ledgers)
              owed[stores.indexOf(l.ledgerTransaction.storeId!)].available -=
                l.ledgerTransaction.amount - l.ledgerTransaction.feeAmount;
          for (const [i, storeId] of stores.entries()) {
            const accounts = await suite.env.prisma.ledgerAccount.findMany({ where: { storeId } });
            const balance = (kind: string) =>
              owedToStore(accounts.find((a) => a.kind === kind)?.balance ?? 0n);
            expect({
              store: i,
              pending: balance('store_pending'),
              available: balance('store_available'),
            }).toEqual({
              store: i,
              ...owed[i],
            });
          }
          expect(await posters[0].verify()).toMatchObject({
            unbalancedTransactions: 0,
            emptyTransactions: 0,
            unbalancedBooks: 0,
            wrongBalances: 0,
            wrongMaturities: 0,
          });
        },
      ),
      {
        numRuns: Number(process.env.FC_RUNS ?? 25),
        // tried before the random runs, so that every run pays a transfer and returns one: the
        // random sequences alone made none returned in one CI run of 25
        examples: [
          [
            [
              { type: 'sale', store: 0, gross: 10_000n, fee: 300n, matured: true },
              { type: 'payout' },
              { type: 'settle', to: 'failed' },
              { type: 'sale', store: 1, gross: 5_000n, fee: 150n, matured: true },
              { type: 'payout' },
              { type: 'settle', to: 'canceled' },
            ],
            Array.from({ length: 40 }, (_, i) => i % 2),
            Array.from({ length: 40 }, () => false),
          ],
        ],
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
      },
    );
    expect(seen.transfers).toBeGreaterThan(0);
    expect(seen.returned).toBeGreaterThan(0);
  }, 240_000);
});
