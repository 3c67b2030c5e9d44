import { Module } from '@nestjs/common';
import { LedgerMetrics } from './ledger-metrics';
import { LedgerPoster } from './ledger-poster';
import { LedgerRelease } from './ledger-release';
import { LedgerVerifier } from './ledger-verifier';
import { PayoutEngine } from './payout-engine';

/**
 * The ledger (docs/ledger.md): the poster of the business facts the outbox carries, the release of
 * pending money that became available, the periodic check of the books, and the payout engine. The config, Postgres
 * (LedgerRepository), Redis and the logger come from the worker service's root.
 */
@Module({ providers: [LedgerMetrics, LedgerPoster, LedgerRelease, LedgerVerifier, PayoutEngine] })
export class LedgerServiceModule {}
