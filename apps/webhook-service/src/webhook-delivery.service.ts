import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { jobId, WEBHOOK_DELIVERIES_QUEUE, type DeliveryJobData } from '@kessai/contracts';
import { WebhooksRepository, type DeliveryAttemptRecord, type DeliveryToSend } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { ContractQueue, InjectContractQueue, Coalescer } from '@kessai/runtime';
import { DeliverySecrets } from './delivery-secrets';
import { DeliveryPool } from './delivery-pool';
import { nextAttemptDelayMs } from './retry-schedule';
import { WebhookMetrics, type TryOutcome } from './webhook-metrics';
import { WebhookSender, type SendResult } from './webhook-sender';

/**
 * How tries that waited too long for their endpoint go back: as a delayed job holding only them (a
 * deliver job put back, or a new one), until `at` (ms since epoch).
 */
export type Postpone = (tries: DeliveryJobData[], at: number) => Promise<void>;

/**
 * Tries recorded by one statement at most, and such statements running at once (UNRECORDED_TRIES
 * bounds the tries waiting for them).
 */
export const RECORD_BATCH = 200;
export const RECORDS_IN_FLIGHT = 2;

/**
 * Tries sent, or being sent, whose record is not written yet, at most (per process): a try beyond
 * them waits (in its pool slot) for an earlier one's record, so that a crash repeats at most this
 * many tries however far the records fall behind the sends (a slow Postgres, a fast receiver).
 */
export const UNRECORDED_TRIES = RECORDS_IN_FLIGHT * RECORD_BATCH;

/** The reason recorded on a webhook that delivery turned off. */
export const GONE_REASON = 'the endpoint answered 410 Gone';

/**
 * deliver_webhooks / deliver_webhook: tries of deliveries (docs/webhooks.md). The rows are the
 * state: the job's deliveries are read in one statement, and a delivery no longer pending, or whose
 * try `attempt` is recorded already, is left alone. The others are sent side by side through the
 * process's DeliveryPool (at most WEBHOOK_ENDPOINT_CONCURRENCY per webhook, WEBHOOK_WORKER_CONCURRENCY
 * in all); tries that could not start within WEBHOOK_ENDPOINT_WAIT_MS are put back (`postpone`). A
 * 2xx is success; 410 Gone ends the delivery and turns its webhook off; anything else (another
 * status, no answer within the timeout, a refused connection) queues the next try on the retry
 * schedule, as a delayed job with its own id, before recording this one, so that a crash in between
 * loses no try (it may repeat one: at-least-once). The last try's failure ends the delivery
 * `failed`. Tries finishing together are recorded by one statement (a Coalescer); at most
 * UNRECORDED_TRIES sent tries wait for their records. A webhook whose every try has failed for
 * WEBHOOK_DISABLE_AFTER_FAILING_SECONDS is turned off by the record that finds it so.
 */
@Injectable()
export class WebhookDeliveryService {
  readonly #pool: DeliveryPool;
  readonly #records: Coalescer<DeliveryAttemptRecord, boolean>;
  readonly #unrecorded = new Semaphore(UNRECORDED_TRIES);

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly sender: WebhookSender,
    @InjectContractQueue(WEBHOOK_DELIVERIES_QUEUE)
    private readonly queue: ContractQueue<typeof WEBHOOK_DELIVERIES_QUEUE>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: WebhookMetrics,
    private readonly secrets: DeliverySecrets,
  ) {
    this.#pool = new DeliveryPool({
      perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      global: config.WEBHOOK_WORKER_CONCURRENCY,
      waitMs: config.WEBHOOK_ENDPOINT_WAIT_MS,
    });
    const disableAfter = config.WEBHOOK_DISABLE_AFTER_FAILING_SECONDS;
    // 0: never (the longest interval an int4 holds, some 68 years)
    const disableAfterSeconds = disableAfter === 0 ? 2_147_483_647 : disableAfter;
    this.#records = new Coalescer(
      async (attempts) => {
        const recorded = await this.webhooks.recordAttempts(attempts, disableAfterSeconds);
        return attempts.map((attempt) => recorded.has(attempt.deliveryId));
      },
      { maxItems: RECORD_BATCH, maxInFlight: RECORDS_IN_FLIGHT },
    );
  }

  /** Tries `tries` (deliveries, each with its try's number); resolves when each is recorded or put back. */
  async deliver(tries: readonly DeliveryJobData[], postpone: Postpone): Promise<void> {
    const deliveries = new Map(
      (
        await this.webhooks.findDeliveries(
          tries.map((t) => t.deliveryId),
          this.secrets.read,
        )
      ).map((d) => [d.id, d]),
    );
    const loaded: { delivery: DeliveryToSend; attempt: number }[] = [];
    for (const { deliveryId, attempt } of tries) {
      const delivery = deliveries.get(deliveryId);
      if (delivery) loaded.push({ delivery, attempt });
    }
    return this.deliverLoaded(loaded, postpone);
  }

  /**
   * `deliver` for deliveries read already (dispatch's first tries, with the bodies it has just
   * written): a delivery no longer pending, or whose try `attempt` is recorded, is left alone.
   */
  async deliverLoaded(
    tries: readonly { delivery: DeliveryToSend; attempt: number }[],
    postpone: Postpone,
  ): Promise<void> {
    const waited: DeliveryJobData[] = [];
    await Promise.all(
      tries.map(async ({ delivery, attempt }) => {
        if (delivery.status !== 'pending' || delivery.attemptCount >= attempt) return;
        if (!(await this.#try(delivery, attempt))) waited.push({ deliveryId: delivery.id, attempt });
      }),
    );
    if (waited.length > 0) {
      const wait = this.config.WEBHOOK_ENDPOINT_BUSY_DELAY_MS * (0.5 + Math.random());
      return postpone(waited, Date.now() + Math.round(wait));
    }
  }

  /**
   * replay_delivery: the merchant's one more try of a delivery (made pending again by the gateway),
   * numbered after the tries it had. Its failure schedules further tries only while the schedule has
   * tries left: after a delivery failed for good, a replay is one try.
   */
  async replay(deliveryId: string, postpone: Postpone): Promise<void> {
    const [delivery] = await this.webhooks.findDeliveries([deliveryId], this.secrets.read);
    if (delivery) await this.deliver([{ deliveryId, attempt: delivery.attemptCount + 1 }], postpone);
  }

  /** One try, sent and recorded; false when it could not start in time (its endpoint busy). */
  async #try(delivery: DeliveryToSend, attempt: number): Promise<boolean> {
    const deliveryId = delivery.id;
    if (!delivery.webhookActive) {
      await this.#record({
        deliveryId,
        number: attempt,
        statusCode: null,
        errorMessage: 'not sent: the webhook is inactive',
        responseSnippet: null,
        durationMs: 0,
        status: 'failed',
        nextAttemptOn: null,
        disableReason: null,
        // a try that sent nothing says nothing of the endpoint's health
        judged: false,
      });
      return true;
    }
    const sent = await this.#pool.run(delivery.webhookId, async () => {
      await this.#unrecorded.acquire();
      try {
        return await this.sender.send(delivery);
      } catch (error) {
        this.#unrecorded.release();
        throw error;
      }
    });
    if (!sent.ran) return false;
    try {
      await this.#settle(delivery, attempt, sent.value);
    } finally {
      this.#unrecorded.release();
    }
    return true;
  }

  /** What a sent try's answer leads to: its record, and the next try queued when there is one. */
  async #settle(delivery: DeliveryToSend, attempt: number, result: SendResult): Promise<void> {
    const deliveryId = delivery.id;
    // what Node said goes to the operator's log; the delivery log gets the generic reason only
    if (result.cause !== undefined)
      this.logger.debug(
        { deliveryId, webhookId: delivery.webhookId, attempt, reason: result.error, cause: result.cause },
        'webhook try got no answer',
      );
    const tried = {
      deliveryId,
      number: attempt,
      statusCode: result.statusCode,
      errorMessage: result.error,
      responseSnippet: result.responseSnippet,
      durationMs: result.durationMs,
      judged: true,
    };
    if (result.error === null) {
      await this.#record({ ...tried, status: 'delivered', nextAttemptOn: null, disableReason: null });
      return;
    }
    if (result.statusCode === 410) {
      await this.#record({ ...tried, status: 'failed', nextAttemptOn: null, disableReason: GONE_REASON });
      this.logger.warn(
        { deliveryId, webhookId: delivery.webhookId },
        'webhook turned off: its endpoint answered 410',
      );
      return;
    }
    const delay = nextAttemptDelayMs(this.config, attempt);
    if (delay === null) {
      await this.#record({ ...tried, status: 'failed', nextAttemptOn: null, disableReason: null });
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
    await this.#record({
      ...tried,
      status: 'pending',
      nextAttemptOn: new Date(Date.now() + delay),
      disableReason: null,
    });
  }

  async #record(attempt: DeliveryAttemptRecord): Promise<void> {
    const recorded = await this.#records.submit(attempt);
    if (recorded) this.metrics.tryRecorded(outcomeOf(attempt), attempt.judged ? attempt.durationMs : null);
    this.logger.debug(
      {
        deliveryId: attempt.deliveryId,
        attempt: attempt.number,
        status: attempt.status,
        statusCode: attempt.statusCode,
        recorded,
      },
      'webhook delivery try',
    );
  }
}

/** A counting semaphore: at most `permits` holders at once, the others waiting in order. */
class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(permits: number) {
    this.#free = permits;
  }

  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

function outcomeOf(attempt: DeliveryAttemptRecord): TryOutcome {
  if (attempt.status === 'delivered') return 'delivered';
  if (attempt.status === 'pending') return 'retrying';
  if (!attempt.judged) return 'not_sent';
  return attempt.disableReason === GONE_REASON ? 'gone' : 'failed';
}
