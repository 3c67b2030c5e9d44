import { Queue } from 'bullmq';
import { z } from 'zod';
import {
  CHARGE_REQUESTED,
  CHARGES_QUEUE,
  defineQueue,
  PROCESS_CHARGES_BATCH,
  WEBHOOK_DELIVERIES_QUEUE,
  type OutboxBatchJobData,
} from '@kessai/contracts';
import {
  OUTBOX_TAKE_BATCH,
  OUTBOX_TAKE_BATCH_SETTINGS,
  OutboxRepository,
  type PrismaService,
} from '@kessai/db';
import {
  bullOptions,
  ContractQueue,
  OutboxRelay,
  OutboxRelayModule,
  startWorkerService,
} from '@kessai/runtime';
import { CapturedLog, useSuite } from '@kessai/testing';

/** A queue this suite consumes, so that the relay publishes token_created to it (a route for tests). */
const RELAY_TEST_QUEUE = defineQueue({
  name: 'relay-test',
  consumer: 'relay-test',
  jobs: { deliver: z.object({ eventId: z.string() }) },
  jobOptions: { attempts: 1, removeOnComplete: { count: 10 }, removeOnFail: { count: 10 } },
});
const TEST_ROUTES = { token_created: [{ queue: RELAY_TEST_QUEUE, job: 'deliver' }] };

const suite = useSuite();
let queue: Queue;
let chargesQueue: Queue;
let webhookQueue: Queue;
let merchantId: string;
const log = new CapturedLog();

function relay(prisma: PrismaService = suite.env.prisma, batchSize = 40) {
  const queues = new Map<string, Queue>([
    [RELAY_TEST_QUEUE.name, queue],
    [CHARGES_QUEUE.name, chargesQueue],
    [WEBHOOK_DELIVERIES_QUEUE.name, webhookQueue],
  ]);
  return new OutboxRelay(new OutboxRepository(prisma), log.logger('relay'), {
    queue: (definition) => new ContractQueue(definition, queues.get(definition.name)!),
    batchSize,
    idleDelayMs: 10,
    routes: TEST_ROUTES,
  });
}

async function appendEvents(count: number, eventType = 'token_created'): Promise<string[]> {
  const rows = await suite.env.prisma.outboxEvent.createManyAndReturn({
    data: Array.from({ length: count }, (_, i) => ({
      merchantId,
      aggregateType: 'test',
      aggregateId: merchantId,
      eventType,
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

/** One batch by a relay whose transaction never commits: the jobs reach Redis, the rows stay unpublished. */
async function publishAndDieBeforeCommit(batchSize: number) {
  const crashing = {
    inTransaction: (fn: (tx: unknown) => Promise<unknown>) =>
      suite.env.prisma.inTransaction(async (tx) => {
        await fn(tx);
        throw new Error('process died before commit');
      }),
  } as unknown as PrismaService;
  const doomed = relay(crashing, batchSize);
  await expect(doomed.publishBatch()).rejects.toThrow('process died before commit');
  await doomed.stop();
}

async function drain(relays: OutboxRelay[]) {
  await Promise.all(
    relays.map(async (r) => {
      while ((await r.publishBatch()) > 0);
    }),
  );
}

beforeAll(async () => {
  merchantId = (await suite.env.seedMerchant('outbox')).merchant.id;
  queue = new Queue(RELAY_TEST_QUEUE.name, bullOptions(suite.env.config));
  chargesQueue = new Queue(CHARGES_QUEUE.name, bullOptions(suite.env.config));
  webhookQueue = new Queue(WEBHOOK_DELIVERIES_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(() => Promise.all([queue.close(), chargesQueue.close(), webhookQueue.close()]));
});

afterEach(async () => {
  await queue.obliterate({ force: true });
  await chargesQueue.obliterate({ force: true });
  await webhookQueue.obliterate({ force: true });
  await suite.env.prisma.outboxEvent.deleteMany();
});

describe('outbox relay', () => {
  it('publishes every event exactly once with three relays racing', async () => {
    const ids = await appendEvents(250);
    const relays = [relay(), relay(), relay()];
    await drain(relays);
    await Promise.all(relays.map((r) => r.stop()));

    expect(await suite.env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    const published = await jobIds();
    expect(published).toHaveLength(250);
    expect(new Set(published)).toEqual(new Set(ids.map((id) => `deliver.${id}`)));
    const job = await queue.getJob(`deliver.${ids[0]}`);
    expect(job?.data).toEqual({ eventId: ids[0], eventType: 'token_created', aggregateId: merchantId });
  });

  it('reports its backlog for the metrics: the unpublished count and the oldest one’s age, none once drained', async () => {
    const outbox = new OutboxRepository(suite.env.prisma);
    expect(await outbox.backlog()).toEqual({ unpublished: 0, oldestAgeSeconds: 0 });
    const [oldest] = await appendEvents(3);
    await suite.env.prisma.outboxEvent.update({
      where: { id: oldest },
      data: { createdOn: new Date(Date.now() - 120_000) },
    });
    const backlog = await outbox.backlog();
    expect(backlog.unpublished).toBe(3);
    expect(backlog.oldestAgeSeconds).toBeGreaterThanOrEqual(119);
    expect(backlog.oldestAgeSeconds).toBeLessThan(600);

    const drained = relay();
    await drain([drained]);
    await drained.stop();
    expect(await outbox.backlog()).toEqual({ unpublished: 0, oldestAgeSeconds: 0 });
  });

  it('loses nothing and duplicates nothing when a relay dies between publishing and committing', async () => {
    const ids = await appendEvents(30);
    await publishAndDieBeforeCommit(100);
    expect(await suite.env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(30);
    expect(await jobIds()).toHaveLength(30);

    const survivor = relay();
    await drain([survivor]);
    await survivor.stop();
    expect(await suite.env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    const published = await jobIds();
    expect(published).toHaveLength(30);
    expect(new Set(published)).toEqual(new Set(ids.map((id) => `deliver.${id}`)));
  });

  it('publishes charge_requested in process_charges jobs of at most 50, again under the same ids after a crash', async () => {
    const ids = await appendEvents(120, CHARGE_REQUESTED);
    await publishAndDieBeforeCommit(200);
    const jobsOf = async () =>
      (await chargesQueue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).sort((a, b) =>
        a.id! < b.id! ? -1 : 1,
      );
    const before = await jobsOf();

    const survivor = relay(suite.env.prisma, 200);
    await drain([survivor]);
    await survivor.stop();
    expect(await suite.env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    const after = await jobsOf();
    expect(after.map((job) => job.id)).toEqual(before.map((job) => job.id));
    expect(after.map((job) => job.name)).toEqual(['process_charges', 'process_charges', 'process_charges']);
    const batches = after.map((job) => (job.data as OutboxBatchJobData).events);
    expect(batches.map((events) => events.length).sort()).toEqual([
      20,
      PROCESS_CHARGES_BATCH,
      PROCESS_CHARGES_BATCH,
    ]);
    const published = batches.flat();
    expect(published.map((event) => event.eventId).sort()).toEqual([...ids].sort());
    expect(published[0]).toMatchObject({ eventType: CHARGE_REQUESTED, aggregateId: merchantId });
    expect(after.every((job) => /^process_charges\.[0-9a-f]{40}$/.test(job.id!))).toBe(true);
    // commands go to their worker only
    expect(await jobIds()).toHaveLength(0);
  });

  it('finds the next events without revisiting the ones published before (no vacuum in between)', async () => {
    const publisher = relay();
    await drain([publisher]);
    await appendEvents(6_000);
    // what the relay's UPDATE does to them: each published row leaves a dead version behind
    await suite.env.prisma
      .$executeRaw`UPDATE outbox_events SET published_on = now() WHERE published_on IS NULL`;
    await appendEvents(5);

    /** pages the relay's own statement reads to find and lock the next batch (rolled back) */
    interface PlanNode {
      'Node Type': string;
      'Shared Hit Blocks': number;
      'Shared Read Blocks': number;
      Plans?: PlanNode[];
    }
    const find = (node: PlanNode, type: string): PlanNode | undefined =>
      node['Node Type'] === type ? node : node.Plans?.map((child) => find(child, type)).find(Boolean);
    const pagesToFindBatch = async () => {
      const plan = await suite.env.prisma.inTransaction(
        async (tx) => {
          const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
            text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${OUTBOX_TAKE_BATCH.text}`,
            values: [40],
          });
          await tx.query('ROLLBACK'); // nothing is published
          await tx.query('BEGIN');
          return rows[0]['QUERY PLAN'][0].Plan;
        },
        { settings: OUTBOX_TAKE_BATCH_SETTINGS },
      );
      const scan = find(plan, 'LockRows')!;
      return scan['Shared Hit Blocks'] + scan['Shared Read Blocks'];
    };
    // 6,000 dead versions fill over 100 pages, which a bitmap scan would read on every poll. An index
    // scan steps over them once and marks their index entries dead, but only when no snapshot taken
    // before the UPDATE is still open (the running relay's poll may hold one on a busy machine): so
    // the passes are repeated, a few at most, until one reads few pages; a bitmap scan never would
    let pages = Infinity;
    for (let pass = 0; pass < 6 && pages >= 40; pass++) pages = await pagesToFindBatch();
    expect(pages).toBeLessThan(40);
    expect(await publisher.publishBatch()).toBe(5);
    await publisher.stop();
    await queue.drain();
  });

  it('keeps publishing events committed while it runs, and stops cleanly', async () => {
    const running = relay();
    running.start();
    await appendEvents(5);
    await untilAllPublished();
    await appendEvents(5);
    await untilAllPublished();
    await running.stop();
    expect(await jobIds()).toHaveLength(10);
  });

  it('publishes webhook events to webhook-events (dispatch_events, one job per relay batch), unknown events nowhere', async () => {
    expect(WEBHOOK_DELIVERIES_QUEUE.consumer).toBe('webhook-service');
    const ids = await appendEvents(4, 'refund_finished');
    await appendEvents(2, 'no_such_event');
    const publisher = relay();
    expect(await publisher.publishBatch()).toBe(6);
    await publisher.stop();
    expect(await suite.env.prisma.outboxEvent.count({ where: { publishedOn: null } })).toBe(0);
    const jobs = await webhookQueue.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs.map((job) => job.name)).toEqual(['dispatch_events']);
    expect((jobs[0].data as OutboxBatchJobData).events.map((event) => event.eventId)).toEqual(ids);
    const anywhere = async (q: Queue) =>
      (await q.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized')) as Record<
        string,
        number
      >;
    for (const q of [chargesQueue, queue])
      expect(Object.values(await anywhere(q)).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('runs inside a worker service whose module imports it, along the catalogue routes, and stops with it', async () => {
    const service = await startWorkerService({
      name: 'relay-host',
      config: suite.env.config,
      healthPort: 0,
      imports: [OutboxRelayModule],
    });
    try {
      const ids = await appendEvents(3, CHARGE_REQUESTED);
      await untilAllPublished();
      const jobs = await chargesQueue.getJobs(['waiting', 'delayed', 'prioritized']);
      expect(jobs.map((job) => job.name)).toEqual(['process_charges']);
      expect((jobs[0].data as OutboxBatchJobData).events.map((event) => event.eventId)).toEqual(ids);
      // the contract's retention travels with the job (the queue's default options)
      expect(jobs[0].opts).toMatchObject({
        attempts: CHARGES_QUEUE.jobOptions.attempts,
        removeOnComplete: CHARGES_QUEUE.jobOptions.removeOnComplete,
        removeOnFail: CHARGES_QUEUE.jobOptions.removeOnFail,
      });
    } finally {
      await service.stop();
    }
  });
});

async function untilAllPublished(timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await suite.env.prisma.outboxEvent.count({ where: { publishedOn: null } })) > 0) {
    if (Date.now() > deadline) throw new Error('events still unpublished');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
