import { Queue } from 'bullmq';
import type { QueueDefinition } from '@kessai/contracts';
import { MissingJobHandlerError, startWorkerService, type RunningWorkerService } from '@kessai/runtime';
import { CapturedLog, TestEnvironment } from '@kessai/testing';

const SLOW: QueueDefinition = { name: 'lifecycle-test', jobs: ['slow'] };

let env: TestEnvironment;
const log = new CapturedLog();

beforeAll(async () => {
  env = await TestEnvironment.create();
});
afterAll(async () => {
  await env?.close();
});

describe('worker service lifecycle', () => {
  let service: RunningWorkerService | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  it('reports health from Postgres and Redis', async () => {
    service = await startWorkerService({ name: 'probe', config: env.config, healthPort: 0 });
    const res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up' } });
  });

  it('refuses to start when a consumed job has no handler', async () => {
    await expect(
      startWorkerService({
        name: 'incomplete',
        config: env.config,
        healthPort: 0,
        consumers: () => [
          {
            queue: { name: 'x', jobs: ['a', 'b'] },
            concurrency: 1,
            handlers: { a: () => Promise.resolve() },
          },
        ],
      }),
    ).rejects.toThrow(MissingJobHandlerError);
  });

  it('on stop, takes no new job and finishes the one in flight', async () => {
    const finished: string[] = [];
    let started!: () => void;
    const startedOnce = new Promise<void>((resolve) => (started = resolve));
    service = await startWorkerService({
      name: 'lifecycle',
      config: env.config,
      healthPort: 0,
      consumers: () => [
        {
          queue: SLOW,
          concurrency: 1,
          handlers: {
            slow: async (job) => {
              started();
              await new Promise((resolve) => setTimeout(resolve, 400));
              finished.push(String(job.id));
            },
          },
        },
      ],
    });
    const queue = new Queue(SLOW.name, {
      connection: { url: env.config.REDIS_URL },
      prefix: env.config.REDIS_PREFIX,
    });
    try {
      await queue.add('slow', {}, { jobId: 'first' });
      await startedOnce;
      await queue.add('slow', {}, { jobId: 'second' });
      await service.stop();
      service = undefined;
      expect(finished).toEqual(['first']);
      expect(await queue.getJobState('first')).toBe('completed');
      expect(await queue.getJobState('second')).toBe('waiting');
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('logs through the structured logger', () => {
    const logger = log.logger('probe');
    logger.info({ secret: 'do-not-print' }, 'hello');
    expect(log.text).toContain('"msg":"hello"');
    expect(log.text).not.toContain('do-not-print');
  });
});
