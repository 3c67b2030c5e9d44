import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';

/** The subscription engine's work (docs/operations.md), counted by what its statements changed. */
@Injectable()
export class SubscriptionMetrics {
  readonly started: Counter;
  readonly terminated: Counter;
  readonly settled: Counter;

  constructor(registry: Registry) {
    this.started = new Counter({
      name: 'kessai_scheduled_payment_tries_started_total',
      help: 'Tries of scheduled payments the scheduler started (one charge each)',
      registers: [registry],
    });
    this.terminated = new Counter({
      name: 'kessai_scheduled_payments_terminated_total',
      help: 'Due scheduled payments ended without a charge (on_next_payment terminations, ended subscriptions)',
      registers: [registry],
    });
    this.settled = new Counter({
      name: 'kessai_scheduled_payment_tries_settled_total',
      help: "Tries of scheduled payments settled from their charge's outcome",
      registers: [registry],
    });
  }
}
