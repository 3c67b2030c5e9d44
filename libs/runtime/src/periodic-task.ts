import { setTimeout as sleep } from 'node:timers/promises';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kessai/observability';

/** How a PeriodicTask waits and draws its jitter: Node's timers and Math.random, or a test's own. */
export interface PeriodicTimers {
  /** resolves after `ms`, or at once when `signal` aborts (never rejects) */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** a number in [0, 1) */
  random(): number;
}

export const NODE_TIMERS: PeriodicTimers = {
  // unref'd: a periodic task never keeps a process alive by itself
  sleep: (ms, signal) => sleep(ms, undefined, { signal, ref: false }).catch(() => undefined),
  random: Math.random,
};

/** What a run may ask for: the pause before the next run, instead of the interval. */
export type PeriodicRunResult = void | { pauseMs: number };

export interface PeriodicTaskOptions {
  /** the task's name in its log lines */
  name: string;
  /** the pause between the end of one run and the start of the next */
  intervalMs: number;
  /**
   * each interval is drawn in intervalMs × [1 − jitter, 1 + jitter] (default 0.1), so that replicas
   * started together do not run in step
   */
  jitter?: number;
  /** run once at start (a loop that works until there is nothing left); else after one interval */
  runAtStart?: boolean;
  /**
   * One run. `{ pauseMs }` it resolves to is the pause before the next run instead of the interval
   * (0: at once, there is more to do); a failure is logged with its stack and the task goes on
   * after the interval.
   */
  run: () => Promise<PeriodicRunResult>;
  logger: Logger;
  timers?: PeriodicTimers;
}

/**
 * A background loop of a process (sweeps, the scheduler, the outbox relay): one run at a time
 * (a slow run is never overlapped by the next), a jittered pause between runs, every failure logged
 * with its stack without ending the loop, and a stop that waits for the run in progress, so that
 * nothing is left half-done when the process closes its connections. Nest providers start it in
 * onApplicationBootstrap and stop it (awaited) in onModuleDestroy.
 */
export class PeriodicTask {
  readonly #options: PeriodicTaskOptions;
  readonly #timers: PeriodicTimers;
  #loop: Promise<void> | undefined;
  #abort: AbortController | undefined;

  constructor(options: PeriodicTaskOptions) {
    const jitter = options.jitter ?? 0.1;
    if (!(options.intervalMs >= 0) || !(jitter >= 0 && jitter <= 1))
      throw new Error(`periodic task ${options.name}: intervalMs ≥ 0 and jitter within [0, 1]`);
    this.#options = { ...options, jitter };
    this.#timers = options.timers ?? NODE_TIMERS;
  }

  get running(): boolean {
    return this.#loop !== undefined;
  }

  /** Starts the loop; a second start while it runs does nothing. */
  start(): void {
    if (this.#loop) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#loop = this.#run(abort.signal);
  }

  /** Stops the loop: no run starts after this, and the run in progress (if any) finishes first. */
  async stop(): Promise<void> {
    const loop = this.#loop;
    if (!loop) return;
    this.#abort?.abort();
    await loop;
    if (this.#loop === loop) this.#loop = undefined;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { name, run, logger } = this.#options;
    let pause = this.#options.runAtStart ? 0 : this.#interval();
    for (;;) {
      if (signal.aborted) return;
      if (pause > 0) await this.#timers.sleep(pause, signal);
      // back to back: still let the event loop turn between runs
      else await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal.aborted) return;
      let next: PeriodicRunResult = undefined;
      try {
        next = await run();
      } catch (error) {
        logger.warn({ err: error, task: name }, `${name} failed; going on`);
      }
      pause = next ? next.pauseMs : this.#interval();
    }
  }

  #interval(): number {
    const { intervalMs, jitter = 0 } = this.#options;
    return Math.round(intervalMs * (1 - jitter + 2 * jitter * this.#timers.random()));
  }
}

/**
 * A Nest provider whose work is one PeriodicTask (a sweep, the scheduler, the ledger's loops): the
 * task starts in onApplicationBootstrap and stops in onModuleDestroy, which waits for the run in
 * progress, so that nothing is left half-done when the process closes its connections (DbModule is
 * destroyed last). A subclass gives the task's name and timing and implements `tick`, one run; its
 * own fields are set before the first tick, which comes at bootstrap at the earliest.
 */
export abstract class PeriodicService implements OnApplicationBootstrap, OnModuleDestroy {
  readonly #task: PeriodicTask;
  readonly #enabled: boolean;

  /** `enabled: false`: the task never starts (a process configured without what it needs). */
  protected constructor(options: Omit<PeriodicTaskOptions, 'run'> & { enabled?: boolean }) {
    this.#task = new PeriodicTask({ ...options, run: () => this.tick() });
    this.#enabled = options.enabled ?? true;
  }

  /** One run: `{ pauseMs }` asks for the next one sooner or later than the interval. */
  protected abstract tick(): Promise<PeriodicRunResult>;

  /** Whether the task runs in this process. */
  get enabled(): boolean {
    return this.#enabled;
  }

  onApplicationBootstrap(): void {
    if (this.#enabled) this.#task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.#task.stop();
  }
}
