// The faults, one after another, and how long the system took to recover from each: from the fault
// until the service answers (the gateway) or consumes again (a probe of the work it does has gone
// through end to end).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChaosClient } from './client';
import type { Accepted } from './load';
import type { ChaosSystem, ServiceName } from './system';

export type FaultKind = 'kill -9' | 'SIGTERM' | 'restart';

export interface FaultResult {
  name: string;
  target: ServiceName | 'redis' | 'postgres';
  kind: FaultKind;
  /** Date.now() when the fault began, and when every probe had gone through */
  startedAt: number;
  recoveredAt: number;
  /** ms from the fault: the restarted process announced itself; the API answered; each probe done */
  restartedMs?: number;
  answersMs: number;
  probesMs: Record<string, number>;
  /** SIGTERM: the exit code of the stopped process (0 is a graceful stop) */
  exitCode?: number | null;
  /** a probe that never went through within the fault's deadline */
  failure?: string;
}

/** How long one fault may take to recover before the suite gives up on it. */
const RECOVERY_DEADLINE_MS = 90_000;

/** Flows of the load completed between two faults, waited for at most LOAD_BETWEEN_FAULTS_MAX_MS. */
const FLOWS_BETWEEN_FAULTS = 8;
const LOAD_BETWEEN_FAULTS_MAX_MS = 20_000;

type Probe = 'charge' | 'webhook' | 'refund' | 'subscription' | 'ledger';

/** The probes that show each target consumes again; a restart of Redis or Postgres: all of them. */
const PROBES: Record<FaultResult['target'], Probe[]> = {
  gateway: ['charge'],
  'charge-service': ['charge'],
  'refund-cancel-service': ['refund'],
  'subscription-service': ['subscription'],
  'webhook-service': ['charge', 'webhook'],
  'ledger-service': ['ledger'],
  redis: ['charge', 'webhook', 'refund', 'subscription', 'ledger'],
  postgres: ['charge', 'webhook', 'refund', 'subscription', 'ledger'],
};

export class FaultRunner {
  readonly results: FaultResult[] = [];
  readonly probeClient: ChaosClient;
  /** a successful charge that the refund probes refund 100 JPY of, one per fault */
  #refundable = '';

  constructor(
    readonly system: ChaosSystem,
    readonly api: ChaosClient,
    readonly storeId: string,
    /** what the API accepted: the probes' charges and refunds are reconciled with the load's */
    readonly accepted: Accepted,
    readonly log: (line: string) => void,
  ) {
    this.probeClient = new ChaosClient(api.baseUrl, api.credentials, RECOVERY_DEADLINE_MS);
  }

  /** The charge the refund probes use, made before the faults. */
  async prepare(): Promise<void> {
    const chargeId = await this.chargeThroughApi(100_000);
    await this.finalCharge(chargeId, Date.now() + 60_000);
    this.#refundable = chargeId;
  }

  /**
   * Every fault, one after another: kill -9 of each service, Redis, Postgres, SIGTERM of each. Before
   * each, the load completes a few more flows (`loadProgress` counts them), so that every fault
   * meets work under way however fast the machine recovers.
   */
  async runAll(services: readonly ServiceName[], loadProgress: () => number): Promise<void> {
    const faults = [
      ...services.map((service) => () => this.processFault(service, 'kill -9')),
      () => this.dependencyFault('redis'),
      () => this.dependencyFault('postgres'),
      ...services.map((service) => () => this.processFault(service, 'SIGTERM')),
    ];
    for (const fault of faults) {
      const before = loadProgress();
      const until = Date.now() + LOAD_BETWEEN_FAULTS_MAX_MS;
      while (loadProgress() < before + FLOWS_BETWEEN_FAULTS && Date.now() < until) await sleep(50);
      await fault();
    }
  }

  /** The process stopped (SIGKILL or SIGTERM, which it may take time to obey), then started again at once, as a supervisor would. */
  private processFault(service: ServiceName, kind: 'kill -9' | 'SIGTERM') {
    return this.fault(`${kind} ${service}`, service, kind, async (result) => {
      result.exitCode = await this.system.stopService(service, kind === 'kill -9' ? 'SIGKILL' : 'SIGTERM');
      await this.system.startService(service);
    });
  }

  private dependencyFault(target: 'redis' | 'postgres') {
    return this.fault(`${target} restart`, target, 'restart', async () => {
      const dependency = target === 'redis' ? this.system.redis : this.system.postgres;
      if (!dependency) throw new Error(`${target} is not running`);
      await dependency.restart();
    });
  }

  /**
   * Runs `inject` (the fault and the restart) and, from the same instant, probes until the target
   * answers and consumes again; records the figures.
   */
  private async fault(
    name: string,
    target: FaultResult['target'],
    kind: FaultKind,
    inject: (result: FaultResult) => Promise<void>,
  ) {
    const t0 = performance.now();
    const deadline = Date.now() + RECOVERY_DEADLINE_MS;
    const since = () => Math.round(performance.now() - t0);
    const result: FaultResult = {
      name,
      target,
      kind,
      startedAt: Date.now(),
      recoveredAt: 0,
      answersMs: 0,
      probesMs: {},
    };
    try {
      await Promise.all([
        inject(result).then(() => (result.restartedMs = since())),
        this.probeClient
          .call('GET', `/stores/${this.storeId}/charges?limit=10`)
          .then(() => (result.answersMs = since())),
        ...PROBES[target].map((probe) =>
          this.probe(probe, deadline).then(() => (result.probesMs[probe] = since())),
        ),
      ]);
    } catch (error) {
      result.failure = error instanceof Error ? error.message : String(error);
    }
    result.recoveredAt = Date.now();
    this.results.push(result);
    const probes = Object.entries(result.probesMs)
      .map(([probe, ms]) => `${probe} ${seconds(ms)}`)
      .join(', ');
    this.log(
      `fault ${result.name}: back ${seconds(result.restartedMs ?? 0)}, answers ${seconds(result.answersMs)}, ` +
        `consumes (${probes})` +
        (result.exitCode !== undefined ? `, exit code ${result.exitCode}` : '') +
        (result.failure ? `; NOT RECOVERED: ${result.failure}` : ''),
    );
  }

  private async probe(probe: Probe, deadline: number): Promise<void> {
    switch (probe) {
      case 'charge':
        await this.finalCharge(await this.chargeThroughApi(777), deadline);
        return;
      case 'webhook': {
        const chargeId = await this.chargeThroughApi(778);
        await this.finalCharge(chargeId, deadline);
        await this.system.receiver.waitFor('/hooks', 'charge_finished', chargeId, 1, deadline - Date.now());
        return;
      }
      case 'refund': {
        const { body } = await this.probeClient.call(
          'POST',
          `/stores/${this.storeId}/charges/${this.#refundable}/refunds`,
          { amount: 100, currency: 'JPY' },
          { expect: [201] },
        );
        this.accepted.refunds.set(String(body.id), this.#refundable);
        await this.untilRow(
          deadline,
          `refund ${String(body.id)} final`,
          async () =>
            (await this.system.env!.prisma.refund.findUnique({ where: { id: String(body.id) } }))?.status !==
            'pending',
        );
        return;
      }
      case 'ledger': {
        // a charge's sale in the books: ledger-service reads the outbox and posts it
        const chargeId = await this.chargeThroughApi(779);
        await this.finalCharge(chargeId, deadline);
        await this.untilRow(
          deadline,
          `charge ${chargeId} posted`,
          async () =>
            (await this.system.env!.prisma.ledgerTransaction.count({
              where: { kind: 'sale', sourceType: 'charge', sourceId: chargeId },
            })) === 1,
        );
        return;
      }
      case 'subscription': {
        const { body } = await this.probeClient.call(
          'POST',
          '/subscriptions',
          {
            transaction_token_id: await this.probeClient.cardToken('subscription'),
            amount: 900,
            currency: 'JPY',
            period: 'monthly',
          },
          { expect: [201] },
        );
        // the scheduler claims its first payment, charge-service charges it, the engine settles it
        await this.untilRow(deadline, `subscription ${String(body.id)} current`, async () => {
          const row = await this.system.env!.prisma.subscription.findUnique({
            where: { id: String(body.id) },
          });
          return row?.status === 'current';
        });
        return;
      }
    }
  }

  private async chargeThroughApi(amount: number): Promise<string> {
    const { body } = await this.probeClient.call(
      'POST',
      '/charges',
      { transaction_token_id: await this.probeClient.cardToken('one_time'), amount, currency: 'JPY' },
      { expect: [201] },
    );
    this.accepted.charges.set(String(body.id), 'successful');
    return String(body.id);
  }

  private finalCharge(chargeId: string, deadline: number) {
    return this.untilRow(deadline, `charge ${chargeId} final`, async () => {
      const row = await this.system.env!.prisma.charge.findUnique({ where: { id: chargeId } });
      return !!row && !['pending', 'awaiting'].includes(row.status);
    });
  }

  /** Reads the database until `probe` holds (a read failing while Postgres is down is read again). */
  private async untilRow(deadline: number, what: string, probe: () => Promise<boolean>) {
    for (;;) {
      try {
        if (await probe()) return;
      } catch {
        // Postgres restarting: read again
      }
      if (Date.now() > deadline) throw new Error(`${what}: not within ${RECOVERY_DEADLINE_MS / 1000} s`);
      await sleep(50);
    }
  }
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
