// A card token's own 3-D Secure through the official univapay-node SDK: the real gateway, a real
// charge-service process, BullMQ, Postgres, Redis and the processor simulator over HTTP. The card is
// authenticated once at tokenization (the issuer page of the simulator, its signed callback), and a
// charge on the token is then refused or taken by what came of it.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import {
  CHARGES_QUEUE,
  jobId,
  TOKEN_THREE_DS_NOTICE_RECEIVED,
  TOKEN_THREE_DS_UPDATED,
} from '@kessai/contracts';
import { threeDsRead, TokenThreeDsRepository } from '@kessai/db';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorCallback } from '@kessai/processor';
import { bullOptions } from '@kessai/runtime';
import {
  APPROVED_TEST_CARD,
  eventually,
  sdkCardToken,
  sdkError,
  useSuite,
  waitForJobs,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const THREE_DS_CARD = '4000000000003220';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
  workers: ['charge-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000' },
});
let queue: Queue;

const sdk = () => suite.sdk.shop;

function threeDsToken(cardNumber: string, mode: 'normal' | 'force' | 'skip' = 'normal') {
  return sdkCardToken(sdk(), {
    cardNumber,
    type: 'recurring',
    extra: { threeDs: { mode, redirectEndpoint: 'https://shop.example.test/3ds-done' } },
  }) as Promise<any>;
}

const getToken = (id: string) =>
  sdk().transactionTokens.get(suite.merchants.shop.store.id, id) as Promise<any>;

/** The token once its 3-D Secure status is `status` (charge-service works asynchronously). */
const tokenWithStatus = (id: string, status: string) =>
  eventually(
    async () => {
      const token = await getToken(id);
      return token.data.threeDs?.status === status ? token : null;
    },
    { timeoutMs: 10_000, what: `token ${id} 3-D Secure ${status}` },
  );

/** What the cardholder does on the simulator's issuer page. */
async function completeOnIssuerPage(tokenId: string, result: 'authenticated' | 'failed') {
  const issuer: any = await sdk().transactionTokens.threeDsIssuerToken(
    suite.merchants.shop.store.id,
    tokenId,
  );
  expect(issuer).toMatchObject({ paymentType: 'card' });
  expect(issuer.issuerToken).toMatch(new RegExp(`^${suite.simulator.url}/3ds/`));
  const answer = await fetch(issuer.issuerToken, {
    method: 'POST',
    body: new URLSearchParams({ ...(issuer.payload ?? {}), result }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  expect(answer.status).toBeLessThan(400);
}

const charge = (tokenId: string) =>
  sdk().charges.create({ transactionTokenId: tokenId, amount: 1500, currency: 'JPY' }) as Promise<any>;
const pollCharge = (id: string) =>
  sdk().charges.poll(suite.merchants.shop.store.id, id, undefined, undefined, {
    successCondition: (c: any) => c.status !== 'pending' && c.status !== 'awaiting',
  }) as Promise<any>;

const updatedEvents = (tokenId: string) =>
  suite.env.prisma.outboxEvent.findMany({
    where: { aggregateId: tokenId, eventType: TOKEN_THREE_DS_UPDATED },
    orderBy: { sequence: 'asc' },
  });

beforeAll(() => {
  queue = new Queue(CHARGES_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(() => queue.close());
}, 60_000);

describe('token 3-D Secure through the univapay-node SDK', () => {
  it('create with three_ds → issuer page → authenticated → successful → charged', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    expect(token.data.threeDs).toMatchObject({ enabled: true, status: 'pending', mode: 'normal' });
    // not chargeable until the cardholder has authenticated
    expect((await sdkError(charge(token.id))).code).toBe('INVALID_THREE_DS_STATUS');

    await tokenWithStatus(token.id, 'awaiting');
    await completeOnIssuerPage(token.id, 'authenticated');
    const done = await tokenWithStatus(token.id, 'successful');
    expect(done.data.threeDs).not.toHaveProperty('issuerToken');
    expect(done.data.threeDs).not.toHaveProperty('attempt');
    // the authentication's hold was voided, once; the page is not served any more
    const reference = `${token.id}.three_ds.1`;
    expect(operationStats(suite.simulator.stats(), 'authorize', reference).executions).toBe(1);
    expect(operationStats(suite.simulator.stats(), 'void', `${reference}.void`).executions).toBe(1);
    expect(
      (await sdkError(sdk().transactionTokens.threeDsIssuerToken(suite.merchants.shop.store.id, token.id)))
        .code,
    ).toBe('INVALID_THREE_DS_STATUS');

    // the charge goes through without a second challenge (the authentication is provided)
    const created = await charge(token.id);
    expect((await pollCharge(created.id)).status).toBe('successful');
    expect((await updatedEvents(token.id)).map((e) => e.payload)).toEqual([
      {
        transaction_token_id: token.id,
        store_id: suite.merchants.shop.store.id,
        status: 'awaiting',
        enabled: true,
      },
      {
        transaction_token_id: token.id,
        store_id: suite.merchants.shop.store.id,
        status: 'successful',
        enabled: true,
      },
    ]);
  });

  it('a card the issuer lets through without a challenge is successful at once', async () => {
    const token = await threeDsToken(APPROVED_TEST_CARD);
    await tokenWithStatus(token.id, 'successful');
    expect((await pollCharge((await charge(token.id)).id)).status).toBe('successful');
  });

  it('a failed authentication refuses the charge; enableThreeDs starts it again', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    await tokenWithStatus(token.id, 'awaiting');
    await completeOnIssuerPage(token.id, 'failed');
    const failed = await tokenWithStatus(token.id, 'failed');
    expect(failed.data.threeDs.error).toMatchObject({ code: 358 });
    expect((await sdkError(charge(token.id))).code).toBe('THREE_DS_COULD_NOT_BE_COMPLETED');

    const again: any = await sdk().transactionTokens.enableThreeDs(suite.merchants.shop.store.id, token.id);
    expect(again).toMatchObject({ id: token.id, data: { threeDs: { enabled: true, status: 'pending' } } });
    await tokenWithStatus(token.id, 'awaiting');
    await completeOnIssuerPage(token.id, 'authenticated');
    await tokenWithStatus(token.id, 'successful');
    expect((await pollCharge((await charge(token.id)).id)).status).toBe('successful');
    // the second attempt is a payment of its own at the processor
    expect(operationStats(suite.simulator.stats(), 'authorize', `${token.id}.three_ds.2`).executions).toBe(1);
  });

  it('an authentication nobody completes expires: the hold voided, the token failed (358), once', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    const awaiting = await tokenWithStatus(token.id, 'awaiting');
    expect(awaiting.data.threeDs).not.toHaveProperty('expiresOn');
    const stored = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: token.id } });
    const deadline = Date.parse((stored.data as any).three_ds.expires_on);
    expect(deadline).toBeGreaterThan(Date.now());
    // the deadline reached: moved into the past rather than waited for (CHARGE_AWAITING_EXPIRY_SECONDS)
    await suite.env.prisma.$executeRaw`
      UPDATE transaction_tokens
         SET data = jsonb_set(data, '{three_ds,expires_on}', to_jsonb(now() - interval '1 second'))
       WHERE id = ${token.id}::uuid`;

    // charge-service's sweeper finds it and the job voids the authorization nobody finished
    const failed = await tokenWithStatus(token.id, 'failed');
    expect(failed.data.threeDs.error).toMatchObject({ code: 358 });
    const reference = `${token.id}.three_ds.1`;
    expect(operationStats(suite.simulator.stats(), 'void', `${reference}.expiry`).executions).toBe(1);
    expect((await sdkError(charge(token.id))).code).toBe('THREE_DS_COULD_NOT_BE_COMPLETED');
    expect((await updatedEvents(token.id)).map((e) => (e.payload as any).status)).toEqual([
      'awaiting',
      'failed',
    ]);

    // enableThreeDs starts a new attempt, with a deadline of its own, which the cardholder meets
    await sdk().transactionTokens.enableThreeDs(suite.merchants.shop.store.id, token.id);
    await tokenWithStatus(token.id, 'awaiting');
    await completeOnIssuerPage(token.id, 'authenticated');
    await tokenWithStatus(token.id, 'successful');
    // the expired attempt was voided once, whatever the sweeps did meanwhile; the new one released
    expect(operationStats(suite.simulator.stats(), 'void', `${reference}.expiry`).executions).toBe(1);
    expect(operationStats(suite.simulator.stats(), 'void', `${token.id}.three_ds.2.void`).executions).toBe(1);
  });

  it('a disabled token’s authentication still expires (its hold is not left behind)', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    await tokenWithStatus(token.id, 'awaiting');
    await sdk().transactionTokens.disableThreeDs(suite.merchants.shop.store.id, token.id);
    await suite.env.prisma.$executeRaw`
      UPDATE transaction_tokens
         SET data = jsonb_set(data, '{three_ds,expires_on}', to_jsonb(now() - interval '1 second'))
       WHERE id = ${token.id}::uuid`;
    const failed = await tokenWithStatus(token.id, 'failed');
    expect(failed.data.threeDs).toMatchObject({ enabled: false, error: { code: 358 } });
    expect(operationStats(suite.simulator.stats(), 'void', `${token.id}.three_ds.1.expiry`).executions).toBe(
      1,
    );
    // disabled, it gates nothing: the charge is the charge's
    expect((await charge(token.id)).status).toBe('pending');
  });

  it('charge-service records its outcome over a disable made during its call, and the disable stays', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    await tokenWithStatus(token.id, 'awaiting');
    const repository = new TokenThreeDsRepository(suite.env.prisma);
    const read = (await repository.findToAuthenticate(token.id, 1_200))!.threeDs!;
    await sdk().transactionTokens.disableThreeDs(suite.merchants.shop.store.id, token.id);
    const next = { ...read, status: 'failed' as const, issuer_token: null, expires_on: null };
    // as the gateway changes it (enabled compared): refused, the merchant's switch moved
    expect(await repository.update(token.id, threeDsRead(read), next, { requested: false })).toBe(false);
    // as charge-service records (enabled not compared): applied, enabled kept as switched
    const recorded = { ...threeDsRead(read), enabled: null };
    expect(await repository.update(token.id, recorded, next, { requested: false })).toBe(true);
    expect((await getToken(token.id)).data.threeDs).toMatchObject({ status: 'failed', enabled: false });
  });

  it('disableThreeDs answers the token with a body and lets charges through; enable on success changes nothing', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    await tokenWithStatus(token.id, 'awaiting');
    const disabled: any = await sdk().transactionTokens.disableThreeDs(
      suite.merchants.shop.store.id,
      token.id,
    );
    expect(disabled).toMatchObject({ id: token.id, data: { threeDs: { enabled: false } } });
    // without the token's 3-D Secure the charge is the charge's: this card is challenged there
    const created = await charge(token.id);
    expect(created.status).toBe('pending');

    const plain = await threeDsToken(APPROVED_TEST_CARD);
    await tokenWithStatus(plain.id, 'successful');
    const before = (await updatedEvents(plain.id)).length;
    const enabled: any = await sdk().transactionTokens.enableThreeDs(suite.merchants.shop.store.id, plain.id);
    expect(enabled.data.threeDs).toMatchObject({ enabled: true, status: 'successful' });
    expect((await updatedEvents(plain.id)).length).toBe(before);
  });

  it('mode skip asks nothing of the processor', async () => {
    const token = await threeDsToken(APPROVED_TEST_CARD, 'skip');
    expect(token.data.threeDs).toMatchObject({ enabled: false, mode: 'skip' });
    expect((await pollCharge((await charge(token.id)).id)).status).toBe('successful');
    expect(operationStats(suite.simulator.stats(), 'authorize', `${token.id}.three_ds.1`).requests).toBe(0);
  });

  it('a repeated signed notice is a command each time, and changes nothing once the token is final', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    await tokenWithStatus(token.id, 'awaiting');
    await completeOnIssuerPage(token.id, 'authenticated');
    await tokenWithStatus(token.id, 'successful');
    const reference = `${token.id}.three_ds.1`;
    const post = async (ref: string) => {
      const body = JSON.stringify({
        id: randomUUID(),
        event: 'three_ds',
        payment_id: 'sim_pay_repeat',
        reference: ref,
        status: 'authorized',
        error: null,
        occurred_on: new Date().toISOString(),
      });
      const answer = await fetch(`${suite.url}/processor/callbacks`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          [PROCESSOR_SIGNATURE_HEADER]: signProcessorCallback(
            body,
            suite.env.config.PROCESSOR_CALLBACK_SECRET,
          ),
        },
      });
      return answer.status;
    };
    expect(await post(reference)).toBe(204);
    expect(await post(reference)).toBe(204);
    // a token that is not ours
    expect(await post(`${randomUUID()}.three_ds.1`)).toBe(404);

    const notices = await eventually(async () => {
      const events = await suite.env.prisma.outboxEvent.findMany({
        where: { aggregateId: token.id, eventType: TOKEN_THREE_DS_NOTICE_RECEIVED },
      });
      // the simulator's own notice and the two repeats
      return events.length === 3 ? events : null;
    });
    const states = await waitForJobs(
      queue,
      notices.map((event) => jobId('authenticate_token', event.id)),
      { timeoutMs: 10_000 },
    );
    expect(states).toEqual(['completed', 'completed', 'completed']);
    expect((await updatedEvents(token.id)).map((e) => (e.payload as any).status)).toEqual([
      'awaiting',
      'successful',
    ]);
    expect(operationStats(suite.simulator.stats(), 'void', `${reference}.void`).executions).toBe(1);
  });

  it('a pending authentication whose job was lost is swept: authenticated once, even beside the lost job', async () => {
    const token = await threeDsToken(APPROVED_TEST_CARD);
    await tokenWithStatus(token.id, 'successful');
    // attempt 2 pending past TOKEN_THREE_DS_STALE_SECONDS, as an enableThreeDs whose job was lost
    // (Redis flushed) leaves it: no job was queued for it
    const pendingWithLostJob = (attempt: number) => suite.env.prisma.$executeRaw`
      UPDATE transaction_tokens
         SET data = jsonb_set(jsonb_set(data, '{three_ds,status}', '"pending"'),
                              '{three_ds,attempt}', to_jsonb(${attempt}::int)),
             updated_on = now() - interval '1 hour'
       WHERE id = ${token.id}::uuid`;
    await pendingWithLostJob(2);
    expect((await getToken(token.id)).data.threeDs.status).toBe('pending');

    // charge-service's sweeper gives it its job again: held and voided under the attempt's reference
    await tokenWithStatus(token.id, 'successful');
    const reference = `${token.id}.three_ds.2`;
    expect(operationStats(suite.simulator.stats(), 'authorize', reference).executions).toBe(1);
    expect(operationStats(suite.simulator.stats(), 'void', `${reference}.void`).executions).toBe(1);

    // attempt 3: the lost job comes back beside the sweep's; the hold is still made once
    await pendingWithLostJob(3);
    await queue.add(
      'authenticate_token',
      { aggregateId: token.id, eventType: 'token_three_ds_requested' },
      { jobId: jobId('authenticate_token', token.id, 'lost', '3') },
    );
    await tokenWithStatus(token.id, 'successful');
    const third = `${token.id}.three_ds.3`;
    expect(operationStats(suite.simulator.stats(), 'authorize', third).executions).toBe(1);
    expect(operationStats(suite.simulator.stats(), 'void', `${third}.void`).executions).toBe(1);
    expect((await pollCharge((await charge(token.id)).id)).status).toBe('successful');
  });

  it('another merchant reaches none of it (404)', async () => {
    const token = await threeDsToken(THREE_DS_CARD);
    await tokenWithStatus(token.id, 'awaiting');
    const other = suite.sdk.foreign;
    for (const call of [
      other.transactionTokens.threeDsIssuerToken(suite.merchants.shop.store.id, token.id),
      other.transactionTokens.enableThreeDs(suite.merchants.shop.store.id, token.id),
      other.transactionTokens.disableThreeDs(suite.merchants.shop.store.id, token.id),
      other.transactionTokens.threeDsIssuerToken(suite.merchants.foreign.store.id, token.id),
      other.transactionTokens.enableThreeDs(suite.merchants.foreign.store.id, token.id),
      other.transactionTokens.disableThreeDs(suite.merchants.foreign.store.id, token.id),
    ]) {
      const error = await sdkError(call);
      expect(error).toMatchObject({ httpCode: 404, code: 'NOT_FOUND' });
    }
    expect((await getToken(token.id)).data.threeDs).toMatchObject({ enabled: true, status: 'awaiting' });
  });
});
