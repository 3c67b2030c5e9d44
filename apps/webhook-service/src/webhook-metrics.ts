import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';

/** What a recorded try left its delivery as (docs/webhooks.md). */
export type TryOutcome = 'delivered' | 'retrying' | 'failed' | 'gone' | 'not_sent';

/**
 * Webhook tries as webhook-service records them (docs/operations.md): counted once per try that its
 * record statement wrote, so a repeated job counts nothing; with the time a sent try took.
 */
@Injectable()
export class WebhookMetrics {
  readonly #tries: Counter<'outcome'>;
  readonly #duration: Histogram;

  constructor(registry: Registry) {
    this.#tries = new Counter({
      name: 'kessai_webhook_tries_total',
      help: 'Webhook delivery tries recorded, by outcome (delivered, retrying, failed: no tries left, gone: 410 turned the webhook off, not_sent: webhook inactive)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.#duration = new Histogram({
      name: 'kessai_webhook_try_duration_seconds',
      help: 'Time from a webhook try being sent to its status line (or its failure)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [registry],
    });
  }

  tryRecorded(outcome: TryOutcome, durationMs: number | null): void {
    this.#tries.inc({ outcome });
    if (durationMs !== null) this.#duration.observe(durationMs / 1000);
  }
}
