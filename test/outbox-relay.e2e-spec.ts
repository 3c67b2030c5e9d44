import { Queue } from 'bullmq';
import { WEBHOOK_EVENTS_QUEUE } from '@kessai/contracts';
import type { PrismaService } from '@kessai/db';
import { OutboxRelay, startWorkerService } from '@kessai/runtime';
import { CapturedLog, TestEnvironment } from '@kessai/testing';

let env: TestEnvironment;
let queue: Queue;
let merchantId: string;
const log = new CapturedLog();

function relay(prisma: PrismaService = env.prisma, batchSize = 40) {
  return new OutboxRelay(prisma, log.logger('relay'), {
    connection: { url: env.config.REDIS_URL, prefix: env.config.REDIS_PREFIX },
    batchSize,
    idleDelayMs: 10,
  });
}

async function appendEvents(count: number): Promise<string[]> {
  const rows = await env.prisma.outboxEvent.createManyAndReturn({
    data: Array.from({ length: count }, (_, i) => ({
      merchantId,
      aggregateType: 'test',
      aggregateId: merchantId,
      eventType: 'token_created',
      payload: { n: i },
    })),
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

async function jobIds(): Promise<string[]> {
  const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
  return jobs.map((job) => job.id!);
}

async function drain(relays: OutboxRelay[]) {
  await Promise.all(
    relays.map(async (r) => {
      while ((await r.publishBatch()) > 0);
    }),
  );
}

beforeAll(async () => {
  env = await TestEnvironment.create();
  merchantId = (await env.seedMerchant('outbox')).merchant.id;
  queue = new Queue(WEBHOOK_EVENTS_QUEUE.name, {
    connection: { url: env.config.REDIS_URL },
    prefix: env.config.REDIS_PREFIX,
  });
});

afterEach(async () => {
  await queue.obliterate({ force: true });
  await env.prisma.outboxEvent.deleteMany();
});

afterAll(async () => {
  await queue?.close();
  await env?.close();
});

describe('outbox relay', () => {
  it('publishes every event exactly once with three relays racing', async () => {
    const ids = await appendEvents(250);
    const relays = [relay(), relay(), relay()];
    await drain(relays);
    await Promise.all(relays.map((r) => r.stop()));

    expect(await env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    const published = await jobIds();
    expect(published).toHaveLength(250);
    expect(new Set(published)).toEqual(new Set(ids.map((id) => `dispatch_event.${id}`)));
    const job = await queue.getJob(`dispatch_event.${ids[0]}`);
    expect(job?.data).toEqual({ eventId: ids[0], eventType: 'token_created', aggregateId: merchantId });
  });

  it('loses nothing and duplicates nothing when a relay dies between publishing and committing', async () => {
    const ids = await appendEvents(30);
    // a relay whose transaction never commits: the jobs reach Redis, the rows stay unpublished
    const crashing = {
      inTransaction: (fn: (tx: unknown) => Promise<unknown>) =>
        env.prisma.inTransaction(async (tx) => {
          await fn(tx);
          throw new Error('process died before commit');
        }),
    } as unknown as PrismaService;
    const doomed = relay(crashing, 100);
    await expect(doomed.publishBatch()).rejects.toThrow('process died before commit');
    await doomed.stop();
    expect(await env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(30);
    expect(await jobIds()).toHaveLength(30);

    const survivor = relay();
    await drain([survivor]);
    await survivor.stop();
    expect(await env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    const published = await jobIds();
    expect(published).toHaveLength(30);
    expect(new Set(published)).toEqual(new Set(ids.map((id) => `dispatch_event.${id}`)));
  });

  it('keeps publishing events committed while it runs, and stops cleanly', async () => {
    const running = relay();
    running.start();
    await appendEvents(5);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await appendEvents(5);
    const deadline = Date.now() + 10_000;
    while (
      (await env.prisma.outboxEvent.count({ where: { publishedOn: null } })) > 0 &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await running.stop();
    expect(await env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    expect(await jobIds()).toHaveLength(10);
  });

  it('runs inside a worker service that asks for it, and stops with it', async () => {
    const service = await startWorkerService({
      name: 'relay-host',
      config: env.config,
      healthPort: 0,
      outboxRelay: true,
    });
    try {
      await appendEvents(3);
      const deadline = Date.now() + 10_000;
      while (
        (await env.prisma.outboxEvent.count({ where: { publishedOn: null } })) > 0 &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await jobIds()).toHaveLength(3);
    } finally {
      await service.stop();
    }
  });
});
