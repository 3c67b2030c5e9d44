import { Writable } from 'node:stream';
import { createLogger } from '@kessai/observability';
import {
  PeriodicService,
  PeriodicTask,
  type PeriodicRunResult,
  type PeriodicTaskOptions,
  type PeriodicTimers,
} from './periodic-task';

/** Timers the test drives: a pause lasts until wake() (or the task's stop), jitter draws `draw`. */
class ManualTimers implements PeriodicTimers {
  readonly pauses: number[] = [];
  draw = 0.5;
  #endPause: (() => void) | undefined;
  #onPause: (() => void)[] = [];

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    this.pauses.push(ms);
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const end = () => {
        this.#endPause = undefined;
        resolve();
      };
      this.#endPause = end;
      signal.addEventListener('abort', end, { once: true });
      this.#onPause.splice(0).forEach((notify) => notify());
    });
  }

  random(): number {
    return this.draw;
  }

  /** Resolves once the task is in a pause. */
  paused(): Promise<void> {
    return this.#endPause ? Promise.resolve() : new Promise((resolve) => this.#onPause.push(resolve));
  }

  /** Ends the pause the task is in. */
  wake(): void {
    this.#endPause?.();
  }
}

/** Runs the test controls: each call waits until the test ends it (finish or fail). */
class ControlledRuns {
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  #current: { resolve: (result: PeriodicRunResult) => void; reject: (error: Error) => void } | undefined;
  #onCall: (() => void)[] = [];

  readonly run = (): Promise<PeriodicRunResult> => {
    this.calls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<PeriodicRunResult>((resolve, reject) => {
      this.#current = { resolve, reject };
      this.#onCall.splice(0).forEach((notify) => notify());
    }).finally(() => this.inFlight--);
  };

  /** Resolves once a run is in progress. */
  running(): Promise<void> {
    return this.#current ? Promise.resolve() : new Promise((resolve) => this.#onCall.push(resolve));
  }

  finish(pause?: number): void {
    this.#current?.resolve(pause === undefined ? undefined : { pauseMs: pause });
    this.#current = undefined;
  }

  fail(error: Error): void {
    this.#current?.reject(error);
    this.#current = undefined;
  }
}

/** One turn of the event loop: what can happen without a timer has happened. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(options: Partial<PeriodicTaskOptions> = {}) {
  const timers = new ManualTimers();
  const runs = new ControlledRuns();
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const task = new PeriodicTask({
    name: 'test sweep',
    intervalMs: 1_000,
    run: runs.run,
    logger: createLogger({ service: 'test', level: 'info', destination }),
    timers,
    ...options,
  });
  return { task, timers, runs, lines };
}

describe('PeriodicTask', () => {
  it('waits one interval before its first run unless told to run at start', async () => {
    const later = setup();
    later.task.start();
    await later.timers.paused();
    expect(later.runs.calls).toBe(0);
    later.timers.wake();
    await later.runs.running();
    expect(later.runs.calls).toBe(1);
    later.runs.finish();
    await later.task.stop();

    const atOnce = setup({ runAtStart: true });
    atOnce.task.start();
    await atOnce.runs.running();
    expect(atOnce.timers.pauses).toEqual([]);
    atOnce.runs.finish();
    await atOnce.task.stop();
  });

  it('runs one at a time: the next run starts only after the pause that follows the last', async () => {
    const { task, timers, runs } = setup({ runAtStart: true });
    task.start();
    task.start(); // a second start is no second loop
    await runs.running();
    await settle();
    expect(runs.calls).toBe(1);
    runs.finish();
    await timers.paused();
    timers.wake();
    await runs.running();
    expect(runs.calls).toBe(2);
    expect(runs.maxInFlight).toBe(1);
    runs.finish();
    await task.stop();
  });

  it('stop waits for the run in progress and starts no other', async () => {
    const { task, runs } = setup({ runAtStart: true });
    task.start();
    await runs.running();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    runs.finish(0); // "more to do at once": the stop wins
    await stopping;
    expect(stopped).toBe(true);
    expect(runs.calls).toBe(1);
    expect(task.running).toBe(false);
  });

  it('stop during a pause ends it at once', async () => {
    const { task, timers, runs } = setup();
    task.start();
    await timers.paused();
    await task.stop();
    expect(runs.calls).toBe(0);
  });

  it('logs a failed run with its stack and goes on after the interval', async () => {
    const { task, timers, runs, lines } = setup({ runAtStart: true });
    task.start();
    await runs.running();
    runs.fail(new Error('database went away'));
    await timers.paused();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        task: 'test sweep',
        msg: 'test sweep failed; going on',
        err: expect.objectContaining({
          message: 'database went away',
          stack: expect.stringContaining('Error: database went away') as unknown,
        }) as unknown,
      }),
    ]);
    timers.wake();
    await runs.running();
    expect(runs.calls).toBe(2);
    runs.finish();
    await task.stop();
  });

  it('pauses the jittered interval, or the pause a run asks for', async () => {
    const { task, timers, runs } = setup({ runAtStart: true, intervalMs: 1_000, jitter: 0.2 });
    task.start();
    await runs.running();
    timers.draw = 0;
    runs.finish();
    await timers.paused();
    timers.wake();
    await runs.running();
    timers.draw = 0.999_999;
    runs.finish();
    await timers.paused();
    timers.wake();
    await runs.running();
    runs.finish(25);
    await timers.paused();
    timers.wake();
    await runs.running();
    runs.finish(0); // at once: no pause
    await runs.running();
    timers.draw = 0.5;
    runs.finish();
    await timers.paused();
    await task.stop();
    expect(timers.pauses).toEqual([800, 1_200, 25, 1_000]);
  });
});

/** A provider as the sweeps are written: its own field set after super(), its tick the controlled run. */
class TestSweep extends PeriodicService {
  readonly #label: string;

  constructor(
    private readonly runs: ControlledRuns,
    timers: ManualTimers,
    enabled?: boolean,
  ) {
    super({
      name: 'test sweep',
      intervalMs: 1_000,
      runAtStart: true,
      logger: createLogger({ service: 'test', level: 'silent' }),
      timers,
      enabled,
    });
    this.#label = 'sweep';
  }

  get label(): string {
    return this.#label;
  }

  protected tick(): Promise<PeriodicRunResult> {
    return this.runs.run();
  }
}

describe('PeriodicService', () => {
  it('starts its task at bootstrap, not before, and its destroy waits for the tick in progress', async () => {
    const runs = new ControlledRuns();
    const sweep = new TestSweep(runs, new ManualTimers());
    await settle();
    expect(runs.calls).toBe(0);
    sweep.onApplicationBootstrap();
    await runs.running();
    expect(sweep.label).toBe('sweep');
    let destroyed = false;
    const destroying = sweep.onModuleDestroy().then(() => (destroyed = true));
    await settle();
    expect(destroyed).toBe(false);
    runs.finish(0);
    await destroying;
    expect(runs.calls).toBe(1);
  });

  it('never starts a task that is not enabled (a process without what it needs)', async () => {
    const runs = new ControlledRuns();
    const sweep = new TestSweep(runs, new ManualTimers(), false);
    expect(sweep.enabled).toBe(false);
    sweep.onApplicationBootstrap();
    await settle();
    expect(runs.calls).toBe(0);
    await sweep.onModuleDestroy();
    expect(new TestSweep(new ControlledRuns(), new ManualTimers()).enabled).toBe(true);
  });
});
