import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { jobId, sweepBucket, WEBHOOK_DELIVERIES_QUEUE, type DeliveryJobData } from '@kessai/contracts';
import { WebhooksRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { ContractQueue, InjectContractQueue, PeriodicService } from '@kessai/runtime';

const BATCH = 500;

/**
 * Every WEBHOOK_SWEEP_INTERVAL_MS, queues again the next try of every delivery still pending
 * WEBHOOK_STALE_SECONDS after that try was due: its job was lost (a Redis without persistence, a
 * flushed queue). The rows are the state, so nothing is lost with Redis. Safe in any number of
 * replicas: one job id per delivery, try and time bucket; a try that runs twice is recorded once.
 */
@Injectable()
export class WebhookSweeper extends PeriodicService {
  readonly #staleSeconds: number;

  constructor(
    private readonly webhooks: WebhooksRepository,
    @InjectContractQueue(WEBHOOK_DELIVERIES_QUEUE)
    private readonly queue: ContractQueue<typeof WEBHOOK_DELIVERIES_QUEUE>,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'webhook sweep', intervalMs: config.WEBHOOK_SWEEP_INTERVAL_MS, logger });
    this.#staleSeconds = config.WEBHOOK_STALE_SECONDS;
  }

  protected async tick(): Promise<void> {
    await this.sweep();
  }

  /** One pass; resolves to how many deliveries it queued again. */
  async sweep(): Promise<number> {
    const stale = await this.webhooks.findStaleDeliveries(this.#staleSeconds, BATCH);
    if (stale.length === 0) return 0;
    const bucket = sweepBucket(this.#staleSeconds);
    await this.queue.addBulk(
      stale.map(({ id, attemptCount }) => {
        const attempt = String(attemptCount + 1);
        const data: DeliveryJobData = { deliveryId: id, attempt: attemptCount + 1 };
        return {
          name: 'deliver_webhook',
          data,
          opts: { jobId: jobId('deliver_webhook', id, attempt, 'sweep', bucket) },
        };
      }),
    );
    this.logger.warn({ deliveries: stale.length }, 'webhook deliveries queued again (their job was lost)');
    return stale.length;
  }
}
