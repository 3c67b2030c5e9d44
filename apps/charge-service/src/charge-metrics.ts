import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import type { ChargeStatus } from '@kessai/domain';

/**
 * Charge outcomes as charge-service records them (docs/operations.md): counted once per move that
 * the conditional statement made, so a redelivered job or a lost race counts nothing.
 */
@Injectable()
export class ChargeMetrics {
  readonly #charges: Counter<'status'>;
  readonly #captures: Counter<'status'>;

  constructor(registry: Registry) {
    this.#charges = new Counter({
      name: 'kessai_charge_outcomes_total',
      help: 'Charges moved by charge-service, by the status reached (successful, failed, error, authorized, awaiting)',
      labelNames: ['status'],
      registers: [registry],
    });
    this.#captures = new Counter({
      name: 'kessai_capture_outcomes_total',
      help: 'Captures ended by charge-service, by status (successful, failed)',
      labelNames: ['status'],
      registers: [registry],
    });
  }

  chargeMoved(status: ChargeStatus): void {
    this.#charges.inc({ status });
  }

  captureEnded(status: 'successful' | 'failed'): void {
    this.#captures.inc({ status });
  }
}
