import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { SubscriptionEngineRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
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
export class SubscriptionScheduler extends PeriodicService {
  readonly #batch: number;

  constructor(
    private readonly engine: SubscriptionEngineRepository,
    private readonly metrics: SubscriptionMetrics,
    @Inject(LOGGER) logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({
      name: 'subscription scheduler batch',
      intervalMs: config.SUBSCRIPTION_SCHEDULER_IDLE_MS,
      runAtStart: true,
      logger,
    });
    this.#batch = config.SUBSCRIPTION_SCHEDULER_BATCH;
  }

  /** A batch that claimed something: the next one at once. */
  protected async tick() {
    return (await this.runOnce()) > 0 ? { pauseMs: 0 } : undefined;
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
}
