import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { SubscriptionEngineRepository, SWEEP_FROM_START, type SweepCursor } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
import { PaymentSettlementService } from './payment-settlement.service';

const BATCH = 500;

/**
 * Every SUBSCRIPTION_SWEEP_INTERVAL_MS, settles the payments still `processing` whose charge has
 * been final for SUBSCRIPTION_STALE_SECONDS: their settle_payments job was lost (a Redis without
 * persistence, a flushed queue). Safe in any number of replicas: settling locks the payment, and
 * a payment settles once.
 *
 * A pass reads one window of SUBSCRIPTION_SWEEP_WINDOW processing payments, oldest first, and the
 * next pass goes on after it, back to the oldest once a window reaches the end: the cost of a pass
 * stays flat however many payments are in flight (a burst of 1,000,000), and every payment is
 * looked at once per round of passes.
 */
@Injectable()
export class SubscriptionSweeper extends PeriodicService {
  readonly #staleSeconds: number;
  readonly #window: number;
  #cursor: SweepCursor = SWEEP_FROM_START;

  constructor(
    private readonly engine: SubscriptionEngineRepository,
    private readonly settlement: PaymentSettlementService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'subscription sweep', intervalMs: config.SUBSCRIPTION_SWEEP_INTERVAL_MS, logger });
    this.#staleSeconds = config.SUBSCRIPTION_STALE_SECONDS;
    this.#window = config.SUBSCRIPTION_SWEEP_WINDOW;
  }

  protected async tick(): Promise<void> {
    await this.sweep();
  }

  /** One pass (one window); resolves to how many payments it settled. */
  async sweep(): Promise<number> {
    const { chargeIds, next } = await this.engine.findUnsettledCharges(
      this.#staleSeconds,
      this.#cursor,
      this.#window,
    );
    let settled = 0;
    for (let i = 0; i < chargeIds.length; i += BATCH) {
      settled += (await this.settlement.settle(chargeIds.slice(i, i + BATCH))).length;
    }
    // moved only once the window's payments are settled: a pass that failed is read again
    this.#cursor = next ?? SWEEP_FROM_START;
    if (settled > 0) this.logger.info({ settled }, 'subscription sweep');
    return settled;
  }
}
