import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { SubscriptionEngineRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { decideClaims } from '@kessai/schedule';
import { SubscriptionMetrics } from './subscription-metrics';

/**
 * The scheduler (docs/subscriptions.md, "The engine"): claims due payments in batches and starts
 * their charges, one transaction per batch (SubscriptionEngineRepository.claimDuePayments: FOR
 * UPDATE SKIP LOCKED, the charge and its charge_requested event committed with the claim). Batch
 * after batch while payments are due, then a look every SUBSCRIPTION_SCHEDULER_IDLE_MS. Any number
 * of replicas run it at once: they skip each other's rows, and a replica killed mid-batch commits
 * nothing, so its payments are due again for the others.
 */
@Injectable()
export class SubscriptionScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  readonly #batch: number;
  readonly #idleMs: number;
  #running = false;
  #loop: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;

  constructor(
    private readonly engine: SubscriptionEngineRepository,
    private readonly metrics: SubscriptionMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#batch = config.SUBSCRIPTION_SCHEDULER_BATCH;
    this.#idleMs = config.SUBSCRIPTION_SCHEDULER_IDLE_MS;
  }

  onApplicationBootstrap() {
    this.#running = true;
    this.#loop = this.#run();
  }

  /** One batch: resolves to how many due payments it claimed. */
  async runOnce(): Promise<number> {
    const result = await this.engine.claimDuePayments(this.#batch, decideClaims);
    if (result.claimed > 0) {
      this.metrics.started.inc(result.started);
      this.metrics.terminated.inc(result.terminated);
    }
    return result.claimed;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (error) {
        this.logger.warn({ err: error }, 'subscription scheduler batch failed; retrying');
      }
      if (claimed === 0 && this.#running) await this.#sleep(this.#idleMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(resolve, ms);
    });
  }

  /** Lets the batch in progress commit, so that nothing is claimed and left. */
  async onModuleDestroy() {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#wake?.();
    await this.#loop;
  }
}
