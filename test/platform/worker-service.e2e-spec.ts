import { Processor } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { z } from 'zod';
import { CHARGES_QUEUE, defineQueue, type QueueJob } from '@kessai/contracts';
import {
  bullOptions,
  ProcessorMismatchError,
  QueueProcessor,
  startWorkerService,
  stalledCheckOptions,
  unhandledJob,
  WorkerRegistry,
  type RunningWorkerService,
} from '@kessai/runtime';
import { loadConfig } from '@kessai/config';
import { eventually, scrapeMetrics, useSuite } from '@kessai/testing';

const LIFECYCLE_QUEUE = defineQueue({
  name: 'lifecycle-test',
  consumer: 'lifecycle',
  jobs: {
    slow: z.object({ label: z.string() }),
    echo: z.object({ n: z.number().int() }),
    flaky: z.object({}),
  },
  jobOptions: { attempts: 5, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
});

/** the test processor's job lock, as the services' *_JOB_LOCK_MS */
const LOCK_MS = 15_000;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

/** What the test processor did, and the gate its slow job waits on. */
const probe = { handled: [] as string[], started: deferred(), gate: deferred() };

@Processor(LIFECYCLE_QUEUE.name)
class LifecycleProcessor extends QueueProcessor<typeof LIFECYCLE_QUEUE> {
  constructor() {
    super(LIFECYCLE_QUEUE, { concurrency: 1, lockDuration: LOCK_MS });
  }
  protected async handle(job: QueueJob<typeof LIFECYCLE_QUEUE>, raw: Job) {
    switch (job.name) {
      case 'slow':
        probe.started.resolve();
        await probe.gate.promise;
        probe.handled.push(`${raw.id}:${job.data.label}`);
        return;
      case 'echo':
        probe.handled.push(`echo:${job.data.n}`);
        return job.data.n;
      case 'flaky':
        // fails its first attempt, as a transient failure would
        if (raw.attemptsMade === 0) throw new Error('transient');
        return;
      default:
        return unhandledJob(job);
    }
  }
}

@Module({ providers: [LifecycleProcessor] })
class LifecycleModule {}

/** Compile-time only: a processor whose switch misses a job does not type-check (never called). */
export function missingHandlerDoesNotCompile(job: QueueJob<typeof LIFECYCLE_QUEUE>) {
  // lint says the same (switch-exhaustiveness-check): silenced here, where the gap is the point
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (job.name) {
    case 'slow':
      return;
    default:
      // @ts-expect-error 'echo' has no case: the job is not `never` here
      return unhandledJob(job);
  }
}

const suite = useSuite();
let queue: Queue;
let events: QueueEvents;

beforeAll(async () => {
  queue = new Queue(LIFECYCLE_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  events = new QueueEvents(LIFECYCLE_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(() => events.close());
  await events.waitUntilReady();
});
describe('worker service', () => {
  let service: RunningWorkerService | undefined;
  beforeEach(() => {
    probe.handled = [];
    probe.started = deferred();
    probe.gate = deferred();
  });
  afterEach(async () => {
    probe.gate.resolve();
    await service?.stop();
    service = undefined;
    await queue.obliterate({ force: true });
  });

  const start = () =>
    startWorkerService({
      name: 'lifecycle',
      config: suite.env.config,
      healthPort: 0,
      imports: [LifecycleModule],
      processors: [LifecycleProcessor],
    });

  it('reports Postgres, Redis and whether its workers run (readiness)', async () => {
    service = await startWorkerService({ name: 'probe', config: suite.env.config, healthPort: 0 });
    let res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      checks: { database: 'up', redis: 'up', workers: 'none' },
    });
    await service.stop();

    service = await start();
    res = await fetch(`${service.url}/health`);
    expect(await res.json()).toEqual({
      status: 'ok',
      checks: { database: 'up', redis: 'up', workers: 'up' },
    });
    // a worker that stopped makes the process unready
    await service.app.get(WorkerRegistry).workers[0].close();
    res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 'unavailable', checks: { workers: 'down' } });
  });

  it('refuses to start without the processor of a queue it consumes, or with another service’s', async () => {
    await expect(
      startWorkerService({ name: CHARGES_QUEUE.consumer, config: suite.env.config, healthPort: 0 }),
    ).rejects.toThrow(
      new ProcessorMismatchError('charge-service consumes charges but has no processor for it'),
    );
    await expect(
      startWorkerService({
        name: 'someone-else',
        config: suite.env.config,
        healthPort: 0,
        imports: [LifecycleModule],
        processors: [LifecycleProcessor],
      }),
    ).rejects.toThrow(ProcessorMismatchError);
  });

  it('hands each valid job to its handler', async () => {
    service = await start();
    const job = await queue.add('echo', { n: 7 });
    expect(await job.waitUntilFinished(events, 10_000)).toBe(7);
    expect(probe.handled).toEqual(['echo:7']);
  });

  it('fails a job that breaks its contract at once, without retrying it', async () => {
    service = await start();
    const malformed = await queue.add('echo', { n: 'seven' }, { attempts: 5 });
    const unknown = await queue.add('launch', { n: 1 }, { attempts: 5 });
    for (const job of [malformed, unknown]) {
      await expect(job.waitUntilFinished(events, 10_000)).rejects.toThrow(/invalid lifecycle-test\//);
      const failed = await queue.getJob(job.id!);
      expect(failed?.attemptsMade).toBe(1);
      expect(await failed?.getState()).toBe('failed');
    }
    expect(probe.handled).toEqual([]);
  });

  it('serves /metrics beside /health, behind METRICS_TOKEN when set, counting its jobs by outcome', async () => {
    const token = 'worker-metrics-token-0123';
    service = await startWorkerService({
      name: 'lifecycle',
      config: loadConfig({ ...suite.env.variables, METRICS_TOKEN: token }),
      healthPort: 0,
      imports: [LifecycleModule],
      processors: [LifecycleProcessor],
    });
    expect((await fetch(`${service.url}/metrics`)).status).toBe(401);
    const auth = { authorization: `Bearer ${token}` };
    const labels = { queue: LIFECYCLE_QUEUE.name };

    const echo = await queue.add('echo', { n: 1 });
    await echo.waitUntilFinished(events, 10_000);
    const flaky = await queue.add('flaky', {}, { attempts: 2 });
    await flaky.waitUntilFinished(events, 10_000);
    await expect(
      (await queue.add('echo', { n: 'one' }, { attempts: 5 })).waitUntilFinished(events, 10_000),
    ).rejects.toThrow();

    // the events that count them are the worker's own, emitted once Redis took the move
    const scrape = await eventually(async () => {
      const read = await scrapeMetrics(service!.url, auth);
      return read.sum('kessai_jobs_failed_total', { ...labels, final: 'true' }) === 1 ? read : null;
    });
    expect(scrape.sum('kessai_jobs_completed_total', { ...labels, job: 'echo' })).toBe(1);
    expect(scrape.sum('kessai_jobs_completed_total', { ...labels, job: 'flaky' })).toBe(1);
    expect(scrape.sum('kessai_jobs_failed_total', { ...labels, job: 'flaky', final: 'false' })).toBe(1);
    expect(scrape.sum('kessai_jobs_failed_total', { ...labels, job: 'echo', final: 'true' })).toBe(1);
    expect(scrape.sum('kessai_job_duration_seconds_count', labels)).toBe(4);
    // a queue outside libs/contracts is not registered with the container: no depth for it
    expect(scrape.find('kessai_queue_jobs')).toEqual([]);
  });

  it("checks for a dead worker's jobs every JOB_STALLED_CHECK_MS, not once per lock (takeover: lock + check)", async () => {
    service = await startWorkerService({
      name: 'lifecycle',
      config: { ...suite.env.config, JOB_STALLED_CHECK_MS: 1_500 },
      healthPort: 0,
      imports: [LifecycleModule],
      processors: [LifecycleProcessor],
    });
    const worker = service.app.get(WorkerRegistry).workers[0];
    // BullMQ moves a job whose lock is gone at the first check after a check that marked it: with
    // the check as long as the lock, a killed worker's job waited up to twice the lock (issue 28)
    expect(worker.opts.lockDuration).toBe(LOCK_MS);
    expect(worker.opts.stalledInterval).toBe(1_500);
    // never longer than the lock itself
    expect(stalledCheckOptions({ lockDuration: 1_000 }, 2_000).stalledInterval).toBe(1_000);
  });

  it('on stop, takes no new job and finishes the one in flight', async () => {
    service = await start();
    await queue.add('slow', { label: 'first' }, { jobId: 'first' });
    await probe.started.promise;
    await queue.add('slow', { label: 'second' }, { jobId: 'second' });
    const worker = service.app.get(WorkerRegistry).workers[0];
    const stopped = service.stop();
    service = undefined;
    // the worker is closing (takes nothing new) before the job in flight may finish
    while (!worker.closing) await new Promise((resolve) => setImmediate(resolve));
    probe.gate.resolve();
    await stopped;
    expect(probe.handled).toEqual(['first:first']);
    expect(await queue.getJobState('first')).toBe('completed');
    expect(await queue.getJobState('second')).toBe('waiting');
  });
});
