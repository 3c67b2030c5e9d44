import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import type { LedgerVerification } from '@kessai/db';

/** The ledger's metrics (docs/operations.md, "Metrics"; the alerts on them, "Alerts"). */
@Injectable()
export class LedgerMetrics {
  readonly #postings: Counter<'kind'>;
  readonly #conflicts: Counter;
  readonly #imbalance: Gauge<'check'>;
  readonly #lag: Gauge;
  readonly #payoutRuns: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.#postings = new Counter({
      name: 'kessai_ledger_postings_total',
      help: 'Ledger transactions written, by kind (sale, refund, release, adjustment); a repeat of a posted fact is not counted',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.#conflicts = new Counter({
      name: 'kessai_ledger_posting_conflicts_total',
      help: 'Facts posted before with other amounts than now: never accepted, each logged as an error; must stay 0',
      registers: [registry],
    });
    this.#imbalance = new Gauge({
      name: 'kessai_ledger_imbalance',
      help: 'Broken invariants of the books at the last periodic check, by check (unbalanced_transactions, empty_transactions, unbalanced_books, wrong_balances, wrong_maturities); each must be 0',
      labelNames: ['check'],
      registers: [registry],
    });
    this.#lag = new Gauge({
      name: 'kessai_ledger_poster_lag_seconds',
      help: 'How old the newest event the poster last posted was when it posted it',
      registers: [registry],
    });
    this.#payoutRuns = new Counter({
      name: 'kessai_payout_runs_total',
      help: 'Payout days run, by outcome (transfer, nothing_to_pay, below_minimum, no_bank_account)',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  posted(kind: string, count: number): void {
    if (count > 0) this.#postings.inc({ kind }, count);
  }

  conflicted(count: number): void {
    if (count > 0) this.#conflicts.inc(count);
  }

  payoutRun(outcome: string): void {
    this.#payoutRuns.inc({ outcome });
  }

  lag(seconds: number): void {
    this.#lag.set(seconds);
  }

  verified(verification: LedgerVerification): void {
    this.#imbalance.set({ check: 'unbalanced_transactions' }, verification.unbalancedTransactions);
    this.#imbalance.set({ check: 'empty_transactions' }, verification.emptyTransactions);
    this.#imbalance.set({ check: 'unbalanced_books' }, verification.unbalancedBooks);
    this.#imbalance.set({ check: 'wrong_balances' }, verification.wrongBalances);
    this.#imbalance.set({ check: 'wrong_maturities' }, verification.wrongMaturities);
  }
}
