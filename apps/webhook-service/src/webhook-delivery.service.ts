import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { jobId, WEBHOOK_EVENTS_QUEUE, type DeliveryJobData } from '@kessai/contracts';
import { WebhooksRepository, type DeliveryAttemptRecord } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { nextAttemptDelayMs } from './retry-schedule';
import { EndpointSlots } from './endpoint-slots';
import { WebhookSender, type SendResult } from './webhook-sender';

/** How a try over its endpoint's bound waits: the job put back as delayed until `at` (ms since epoch). */
export type Postpone = (at: number) => Promise<never>;

/** The reason recorded on a webhook that delivery turned off. */
export const GONE_REASON = 'the endpoint answered 410 Gone';

/**
 * deliver_webhook: one try of one delivery (docs/webhooks.md). The row is the state: a delivery no
 * longer pending, or whose try `attempt` is recorded already, is left alone. A 2xx is success; 410
 * Gone ends the delivery and turns its webhook off; anything else (another status, no answer within
 * the timeout, a refused connection) queues the next try on the retry schedule, as a delayed job
 * with its own id, before recording this one, so that a crash in between loses no try (it may
 * repeat one: at-least-once). The last try's failure ends the delivery `failed`. A webhook with
 * WEBHOOK_ENDPOINT_CONCURRENCY tries in flight in this process makes the try wait (`postpone`), so
 * that a slow endpoint holds no more slots than that. A webhook whose every try has failed for
 * WEBHOOK_DISABLE_AFTER_FAILING_SECONDS is turned off by the try that finds it so.
 */
@Injectable()
export class WebhookDeliveryService {
  readonly #slots: EndpointSlots;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly sender: WebhookSender,
    @InjectQueue(WEBHOOK_EVENTS_QUEUE.name) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.#slots = new EndpointSlots(config.WEBHOOK_ENDPOINT_CONCURRENCY);
  }

  async deliver(deliveryId: string, attempt: number, postpone: Postpone): Promise<void> {
    const delivery = await this.webhooks.findDelivery(deliveryId);
    if (!delivery || delivery.status !== 'pending' || delivery.attemptCount >= attempt) return;
    if (!delivery.webhookActive) {
      await this.#record(
        deliveryId,
        {
          number: attempt,
          statusCode: null,
          errorMessage: 'not sent: the webhook is inactive',
          responseSnippet: null,
          durationMs: 0,
          status: 'failed',
          nextAttemptOn: null,
          disableReason: null,
        },
        false,
      );
      return;
    }
    if (!this.#slots.tryTake(delivery.webhookId)) {
      const wait = this.config.WEBHOOK_ENDPOINT_BUSY_DELAY_MS * (0.5 + Math.random());
      return postpone(Date.now() + Math.round(wait));
    }
    let result: SendResult;
    try {
      result = await this.sender.send(delivery);
    } finally {
      this.#slots.release(delivery.webhookId);
    }
    const tried = {
      number: attempt,
      statusCode: result.statusCode,
      errorMessage: result.error,
      responseSnippet: result.responseSnippet,
      durationMs: result.durationMs,
    };
    if (result.error === null) {
      await this.#record(deliveryId, {
        ...tried,
        status: 'delivered',
        nextAttemptOn: null,
        disableReason: null,
      });
      return;
    }
    if (result.statusCode === 410) {
      await this.#record(deliveryId, {
        ...tried,
        status: 'failed',
        nextAttemptOn: null,
        disableReason: GONE_REASON,
      });
      this.logger.warn(
        { deliveryId, webhookId: delivery.webhookId },
        'webhook turned off: its endpoint answered 410',
      );
      return;
    }
    const delay = nextAttemptDelayMs(this.config, attempt);
    if (delay === null) {
      await this.#record(deliveryId, {
        ...tried,
        status: 'failed',
        nextAttemptOn: null,
        disableReason: null,
      });
      this.logger.warn(
        { deliveryId, webhookId: delivery.webhookId, attempt },
        'webhook delivery failed for good',
      );
      return;
    }
    const next: DeliveryJobData = { deliveryId, attempt: attempt + 1 };
    await this.queue.add('deliver_webhook', next, {
      jobId: jobId('deliver_webhook', deliveryId, String(attempt + 1)),
      delay,
    });
    await this.#record(deliveryId, {
      ...tried,
      status: 'pending',
      nextAttemptOn: new Date(Date.now() + delay),
      disableReason: null,
    });
  }

  /**
   * replay_delivery: the merchant's one more try of a delivery (made pending again by the gateway),
   * numbered after the tries it had. Its failure schedules further tries only while the schedule has
   * tries left: after a delivery failed for good, a replay is one try.
   */
  async replay(deliveryId: string, postpone: Postpone): Promise<void> {
    const delivery = await this.webhooks.findDelivery(deliveryId);
    if (delivery) await this.deliver(deliveryId, delivery.attemptCount + 1, postpone);
  }

  async #record(
    deliveryId: string,
    attempt: Omit<DeliveryAttemptRecord, 'disableAfterSeconds' | 'judged'>,
    judged = true,
  ): Promise<void> {
    const disableAfter = this.config.WEBHOOK_DISABLE_AFTER_FAILING_SECONDS;
    const recorded = await this.webhooks.recordAttempt(deliveryId, {
      ...attempt,
      // 0: never (the longest interval an int4 holds, some 68 years)
      disableAfterSeconds: disableAfter === 0 ? 2_147_483_647 : disableAfter,
      // a try that sent nothing says nothing of the endpoint's health
      judged,
    });
    this.logger.debug(
      {
        deliveryId,
        attempt: attempt.number,
        status: attempt.status,
        statusCode: attempt.statusCode,
        recorded,
      },
      'webhook delivery try',
    );
  }
}
