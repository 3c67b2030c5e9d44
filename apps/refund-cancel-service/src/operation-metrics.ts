import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import type { OperationStatus } from '@kessai/domain';

/**
 * Refund and cancel outcomes as refund-cancel-service records them (docs/operations.md): counted
 * once per operation that the conditional statement ended, never for a repeat that found it done.
 */
@Injectable()
export class OperationMetrics {
  readonly #outcomes: Counter<'operation' | 'status'>;

  constructor(registry: Registry) {
    this.#outcomes = new Counter({
      name: 'kessai_operation_outcomes_total',
      help: 'Refunds and cancels ended by refund-cancel-service, by operation (refund, cancel) and status (successful, failed, error)',
      labelNames: ['operation', 'status'],
      registers: [registry],
    });
  }

  ended(operation: 'refund' | 'cancel', status: OperationStatus): void {
    this.#outcomes.inc({ operation, status });
  }
}
