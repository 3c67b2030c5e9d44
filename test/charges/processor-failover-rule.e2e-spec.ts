// The failover rule's statements on real Postgres (decision 0056), as replicas would interleave
// them: a charge fails over only in the statement that makes every call started for it counted as
// provably unexecuted, once, and from then on no call may start at its account. No worker runs:
// the calls are the repository's, in the orders a crash or a second replica could produce.
import { runCli } from '@kessai/admin';
import { ChargeOutcomesRepository, ProcessorAccountsRepository } from '@kessai/db';
import { insertCardToken, insertPendingCharge, type SeededMerchant, useSuite } from '@kessai/testing';

type Any = any;

const suite = useSuite({});

const cli = (argv: string[], stdin = ''): Promise<Any> =>
  runCli(argv, {
    env: suite.env.variables,
    credentialsFile: suite.cliCredentialsFile,
    print: () => undefined,
    readStdin: () => Promise.resolve(stdin),
  });

describe('the failover rule’s statements', () => {
  let shop: SeededMerchant;
  let first: Any;
  let fallback: Any;
  let charges: ChargeOutcomesRepository;
  let accounts: ProcessorAccountsRepository;

  beforeAll(async () => {
    shop = await suite.env.seedMerchant('failover-rule');
    const create = () =>
      cli([
        'processor-account:create',
        '--merchant',
        shop.merchant.id,
        '--provider',
        'simulator',
        '--mode',
        'test',
      ]);
    first = await create();
    fallback = await create();
    await cli([
      ...['processor-route:set', '--store', shop.store.id, '--mode', 'test', '--payment-type', 'card'],
      ...['--account', first.id, '--fallback', fallback.id],
    ]);
    charges = new ChargeOutcomesRepository(suite.env.prisma);
    accounts = new ProcessorAccountsRepository(suite.env.prisma);
  });

  const pendingCharge = async () => {
    const token = await insertCardToken(suite.env, shop, { cardNumber: '4242424242424242' });
    return insertPendingCharge(suite.env, shop, token);
  };
  const row = (id: string) => suite.env.prisma.charge.findUniqueOrThrow({ where: { id } });

  it('records the route’s fallback with the account at insert', async () => {
    const id = await pendingCharge();
    expect(await row(id)).toMatchObject({
      processorAccountId: first.id,
      fallbackProcessorAccountId: fallback.id,
      processorFailedOverOn: null,
    });
    expect(await charges.findPending(id)).toMatchObject({
      processorAccountId: first.id,
      fallbackProcessorAccountId: fallback.id,
    });
  });

  it('fails over when the only call started was unexecuted; then every call goes to the fallback', async () => {
    const id = await pendingCharge();
    expect(await charges.startProcessorCall(id)).toBe(true);
    expect(await charges.recordUnexecutedProcessorCall(id)).toBe(true);
    // durable: a worker reading the charge afresh (after a crash) goes to the fallback
    expect(await charges.findPending(id)).toMatchObject({
      processorAccountId: fallback.id,
      fallbackProcessorAccountId: null,
    });
    expect((await accounts.findForCharge(id))?.id).toBe(fallback.id);
    // no call may start at the first account any more, nor a second failover happen
    expect(await charges.startProcessorCall(id)).toBe(false);
    expect(await charges.recordUnexecutedProcessorCall(id)).toBe(false);
    await expect(
      suite.env.prisma.charge.update({ where: { id }, data: { processorFailedOverOn: new Date() } }),
    ).rejects.toThrow(/fails over once/);
  });

  it('does not fail over while another replica’s call may still be executing', async () => {
    const id = await pendingCharge();
    // replicas A and B both start a call; A's is refused unexecuted, B's is still out
    expect(await charges.startProcessorCall(id)).toBe(true);
    expect(await charges.startProcessorCall(id)).toBe(true);
    expect(await charges.recordUnexecutedProcessorCall(id)).toBe(false);
    expect((await row(id)).processorFailedOverOn).toBeNull();
    // B's is refused unexecuted too: now every call is accounted for
    expect(await charges.recordUnexecutedProcessorCall(id)).toBe(true);
  });

  it('never fails over after a call whose outcome nobody learnt (a timeout, a worker killed mid-call)', async () => {
    const id = await pendingCharge();
    expect(await charges.startProcessorCall(id)).toBe(true); // the call that timed out, or whose worker died
    for (let retry = 0; retry < 3; retry++) {
      expect(await charges.startProcessorCall(id)).toBe(true);
      expect(await charges.recordUnexecutedProcessorCall(id)).toBe(false);
    }
    expect(await row(id)).toMatchObject({
      processorFailedOverOn: null,
      processorCallsStarted: 4,
      processorCallsUnexecuted: 3,
    });
    expect((await accounts.findForCharge(id))?.id).toBe(first.id);
  });

  it('keeps a charge’s account and fallback as inserted', async () => {
    const id = await pendingCharge();
    await expect(
      suite.env.prisma.charge.update({ where: { id }, data: { fallbackProcessorAccountId: null } }),
    ).rejects.toThrow(/keeps the processor account/);
  });

  it('counts nothing for a charge without a fallback', async () => {
    await cli([
      'processor-route:set',
      '--store',
      shop.store.id,
      '--mode',
      'test',
      '--payment-type',
      'card',
      '--account',
      first.id,
    ]);
    const id = await pendingCharge();
    expect(await row(id)).toMatchObject({ processorAccountId: first.id, fallbackProcessorAccountId: null });
    expect(await charges.startProcessorCall(id)).toBe(false);
    expect(await charges.recordUnexecutedProcessorCall(id)).toBe(false);
    expect((await row(id)).processorCallsStarted).toBe(0);
  });
});
