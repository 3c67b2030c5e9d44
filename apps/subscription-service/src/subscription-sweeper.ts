import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { SubscriptionEngineRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
import { PaymentSettlementService } from './payment-settlement.service';

const BATCH = 500;

/**
 * Every SUBSCRIPTION_SWEEP_INTERVAL_MS, settles the payments still `processing` whose charge has
 * been final for SUBSCRIPTION_STALE_SECONDS: their settle_payments job was lost (a Redis without
 * persistence, a flushed queue). Safe in any number of replicas: settling locks the payment, and
 * a payment settles once.
 */
@Injectable()
export class SubscriptionSweeper extends PeriodicService {
  readonly #staleSeconds: number;

  constructor(
    private readonly engine: SubscriptionEngineRepository,
    private readonly settlement: PaymentSettlementService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'subscription sweep', intervalMs: config.SUBSCRIPTION_SWEEP_INTERVAL_MS, logger });
    this.#staleSeconds = config.SUBSCRIPTION_STALE_SECONDS;
  }

  protected async tick(): Promise<void> {
    await this.sweep();
  }

  /** One pass; resolves to how many payments it settled. */
  async sweep(): Promise<number> {
    const charges = await this.engine.findUnsettledCharges(this.#staleSeconds, BATCH);
    if (charges.length === 0) return 0;
    const settled = await this.settlement.settle(charges);
    this.logger.info({ settled: settled.length }, 'subscription sweep');
    return settled.length;
  }
}
