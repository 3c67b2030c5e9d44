// The ledger's invariants under concurrency (issue 31), checked by fast-check: random sequences of
// sales, refunds and adjustments, some facts sent twice, posted by two processes' repositories at
// once (each its own Postgres pool), then released by both at once. Whatever the order, the books
// verify, every fact is posted once, and every balance is what the facts say. A failure prints
// fast-check's seed and path (replay: FC_SEED=<seed> FC_PATH=<path>).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { LedgerRepository, PrismaService, type PostingRequest } from '@kessai/db';
import { adjustmentPosting, owedToStore, refundPosting, salePosting } from '@kessai/domain';
import { useSuite } from '@kessai/testing';

const suite = useSuite();
let prismas: PrismaService[];
let posters: LedgerRepository[];

beforeAll(() => {
  prismas = [new PrismaService(suite.env.config), new PrismaService(suite.env.config)];
  suite.cleanup(() => Promise.all(prismas.map((prisma) => prisma.onModuleDestroy())));
  posters = prismas.map((prisma) => new LedgerRepository(prisma));
});

type Fact =
  | { type: 'sale'; store: number; gross: bigint; fee: bigint; matured: boolean }
  | { type: 'refund'; store: number; amount: bigint }
  | { type: 'adjustment'; store: number; amount: bigint };

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
);

/** One run's world: three stores of one merchant, fresh accounts. */
function world() {
  const merchantId = randomUUID();
  const stores = [randomUUID(), randomUUID(), randomUUID()];
  const owner = (store: number) => ({ mode: 'test', merchantId, storeId: stores[store], currency: 'JPY' });
  const past = new Date(Date.now() - 3_600_000);
  const future = new Date(Date.now() + 7 * 86_400_000);
  const request = (f: Fact): PostingRequest => {
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
  return { stores, request };
}

/** What the facts say each store is owed, pending and available, once what matured is released. */
function expected(facts: Fact[]) {
  const owed = [0, 1, 2].map(() => ({ pending: 0n, available: 0n }));
  for (const f of facts) {
    if (f.type === 'sale') owed[f.store][f.matured ? 'available' : 'pending'] += f.gross - f.fee;
    else if (f.type === 'refund') owed[f.store].available -= f.amount;
    else owed[f.store].available += f.amount;
  }
  return owed;
}

describe('the ledger under concurrency (property)', () => {
  it('posts every fact once and keeps every balance exact, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fact, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(1), { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        async (facts, poster, twice) => {
          const { stores, request } = world();
          const requests = facts.map(request);
          // each fact to one poster, some to both at once; each poster's share in batches of 1-3
          const shares: PostingRequest[][] = [[], []];
          requests.forEach((r, i) => {
            shares[poster[i]].push(r);
            if (twice[i]) shares[1 - poster[i]].push(r);
          });
          const inBatches = async (repository: LedgerRepository, share: PostingRequest[]) => {
            for (let i = 0; i < share.length; i += 1 + (i % 3))
              await repository.post(share.slice(i, i + 1 + (i % 3)));
          };
          await Promise.all([inBatches(posters[0], shares[0]), inBatches(posters[1], shares[1])]);
          // both release at once, until nothing matured is left
          while ((await Promise.all(posters.map((p) => p.release(2)))).some((n) => n > 0));

          const posted = await suite.env.prisma.ledgerTransaction.groupBy({
            by: ['sourceId'],
            where: { merchantId: requests[0].posting.merchantId, kind: { not: 'release' } },
            _count: true,
          });
          expect(posted).toHaveLength(requests.length);
          expect(posted.every((row) => row._count === 1)).toBe(true);
          const owed = expected(facts);
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
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
      },
    );
  }, 240_000);
});
