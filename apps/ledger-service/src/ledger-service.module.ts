import { Module } from '@nestjs/common';
import { LedgerMetrics } from './ledger-metrics';
import { LedgerPoster } from './ledger-poster';
import { LedgerRelease } from './ledger-release';
import { LedgerVerifier } from './ledger-verifier';
import { PayoutEngine } from './payout-engine';
import { PayoutSender } from './payout-sender';

/**
 * The ledger (docs/ledger.md): the poster of the business facts the outbox carries, the release of
 * pending money that became available, the periodic check of the books, the payout engine and its sender to the bank. The config, Postgres
 * (LedgerRepository), Redis and the logger come from the worker service's root.
 */
@Module({
  providers: [LedgerMetrics, LedgerPoster, LedgerRelease, LedgerVerifier, PayoutEngine, PayoutSender],
})
export class LedgerServiceModule {}
