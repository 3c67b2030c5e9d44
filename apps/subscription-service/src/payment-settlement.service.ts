import { Injectable } from '@nestjs/common';
import { SubscriptionEngineRepository } from '@kessai/db';
import { decideSettlements } from '@kessai/schedule';
import { SubscriptionMetrics } from './subscription-metrics';

/**
 * Settles scheduled payments from their charges' outcomes: the settle_payments jobs (the
 * charge_finished events of a relay batch) and the sweeper. One transaction per call; charges of no
 * scheduled payment, or of a try already settled, are skipped, so a repeat does nothing.
 */
@Injectable()
export class PaymentSettlementService {
  constructor(
    private readonly engine: SubscriptionEngineRepository,
    private readonly metrics: SubscriptionMetrics,
  ) {}

  /** Resolves to the payments it settled. */
  async settle(chargeIds: readonly string[]): Promise<string[]> {
    const settled = await this.engine.settle([...new Set(chargeIds)], decideSettlements);
    this.metrics.settled.inc(settled.length);
    return settled;
  }
}
