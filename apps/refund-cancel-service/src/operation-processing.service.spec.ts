import type { REFUNDS_CANCELS_QUEUE } from '@kessai/contracts';
import type {
  CancelOutcome,
  CancelsRepository,
  PendingCancel,
  PendingRefund,
  RecordedRefundOutcome,
  RefundOutcome,
  RefundsRepository,
} from '@kessai/db';
import type { Logger } from '@kessai/observability';
import {
  ProcessorRequestRejectedError,
  TransientProcessorError,
  type PaymentProcessor,
  type PaymentProcessors,
  type RefundResult,
  type VoidResult,
} from '@kessai/processor';
import type { ContractQueue } from '@kessai/runtime';
import { Registry } from 'prom-client';
import { CancelProcessingService } from './cancel-processing.service';
import { OperationMetrics } from './operation-metrics';
import { RefundProcessingService } from './refund-processing.service';

/**
 * The decisions of refund-cancel-service with a fake processor (the outside world) and a fake
 * repository: what is recorded for each answer, and when the job is left to BullMQ's retries.
 * The paths through the real stack are test/refunds-cancels-sdk.e2e-spec.ts.
 */

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const NOT_LAST = { last: false };
const LAST = { last: true };

const unreachable = () => Promise.reject(new TransientProcessorError('refund', 'timeout'));

class FakeProcessor implements Partial<PaymentProcessor> {
  refundAnswers: (() => Promise<RefundResult>)[] = [];
  voidAnswers: (() => Promise<VoidResult>)[] = [];
  statusAnswer: () => Promise<never> | Promise<{ found: false }> = () => Promise.resolve({ found: false });
  calls: string[] = [];
  refund(request: { idempotencyKey: string }) {
    this.calls.push(`refund ${request.idempotencyKey}`);
    return (this.refundAnswers.shift() ?? unreachable)();
  }
  void(request: { idempotencyKey: string }) {
    this.calls.push(`void ${request.idempotencyKey}`);
    return (this.voidAnswers.shift() ?? unreachable)();
  }
  status() {
    this.calls.push('status');
    return this.statusAnswer();
  }
}

/** kessai_operation_outcomes_total's samples, as "operation status" → count. */
async function outcomes(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('kessai_operation_outcomes_total')?.get();
  return Object.fromEntries(
    (metric?.values ?? []).map((sample) => [
      `${sample.labels.operation} ${sample.labels.status}`,
      sample.value,
    ]),
  );
}

const processors = (processor: FakeProcessor) =>
  ({
    forMode: (mode: string) => (mode === 'test' ? processor : null),
    forCharge: (_chargeId: string, mode: string) => Promise.resolve(mode === 'test' ? processor : null),
    retrying: <T>(call: () => Promise<T>) => call(),
  }) as unknown as PaymentProcessors;

function refundSetup(refund: Partial<PendingRefund> = {}, { moved = true }: { moved?: boolean } = {}) {
  const pending: PendingRefund = {
    id: 'refund-1',
    chargeId: 'charge-1',
    mode: 'test',
    amount: 500n,
    currency: 'JPY',
    processorReference: 'pay-1',
    processorAccountId: null,
    ...refund,
  };
  const pendingRefunds = new Map([[pending.id, pending]]);
  const recorded: RefundOutcome[] = [];
  const statements: string[][] = [];
  const repository = {
    findPending: (id: string) => Promise.resolve(pendingRefunds.get(id) ?? null),
    findPendingMany: (ids: string[]) => Promise.resolve(ids.flatMap((id) => pendingRefunds.get(id) ?? [])),
    recordMany: (outcomes: RecordedRefundOutcome[]) => {
      statements.push(outcomes.map((outcome) => outcome.refundId));
      recorded.push(...outcomes.map((outcome) => outcome.outcome));
      // moved: false — another worker ended them first, the statement changed nothing
      return Promise.resolve(new Set(moved ? outcomes.map((outcome) => outcome.refundId) : []));
    },
  } as unknown as RefundsRepository;
  const queued: { name: string; data: unknown; opts: { jobId: string } }[] = [];
  const queue = {
    addBulk: (jobs: typeof queued) => {
      queued.push(...jobs);
      return Promise.resolve([]);
    },
  } as unknown as ContractQueue<typeof REFUNDS_CANCELS_QUEUE>;
  const processor = new FakeProcessor();
  const registry = new Registry();
  const service = new RefundProcessingService(
    repository,
    processors(processor),
    new OperationMetrics(registry),
    silent,
    queue,
  );
  return {
    service,
    processor,
    recorded,
    statements,
    queued,
    registry,
    pendingRefunds,
    run: (attempt = NOT_LAST) => service.processRefund(pending.id, null, attempt),
  };
}

function cancelSetup(cancel: Partial<PendingCancel> = {}) {
  const pending: PendingCancel = {
    id: 'cancel-1',
    chargeId: 'charge-1',
    mode: 'test',
    chargeStatus: 'authorized',
    processorReference: 'pay-1',
    processorAccountId: null,
    ...cancel,
  };
  const recorded: CancelOutcome[] = [];
  const repository = {
    findPending: (id: string) => Promise.resolve(id === pending.id ? pending : null),
    record: (_id: string, outcome: CancelOutcome) => {
      recorded.push(outcome);
      return Promise.resolve({ recorded: true, chargeMoved: outcome.charge !== null });
    },
  } as unknown as CancelsRepository;
  const processor = new FakeProcessor();
  const registry = new Registry();
  const service = new CancelProcessingService(
    repository,
    processors(processor),
    new OperationMetrics(registry),
    silent,
  );
  return {
    processor,
    recorded,
    registry,
    run: (attempt = NOT_LAST) => service.processCancel(pending.id, null, attempt),
  };
}

describe('outcome metrics', () => {
  it('counts the refunds and cancels it ended by status, and none that another worker ended first', async () => {
    const refund = refundSetup();
    refund.processor.refundAnswers.push(() =>
      Promise.resolve({ outcome: 'refunded', refundReference: 'sim-ref', amount: 500 }),
    );
    await refund.run();
    expect(await outcomes(refund.registry)).toEqual({ 'refund successful': 1 });

    const cancel = cancelSetup();
    cancel.processor.voidAnswers.push(() => Promise.resolve({ outcome: 'voided' }));
    await cancel.run();
    expect(await outcomes(cancel.registry)).toEqual({ 'cancel successful': 1 });

    const raced = refundSetup({}, { moved: false });
    raced.processor.refundAnswers.push(() =>
      Promise.resolve({ outcome: 'refunded', refundReference: 'sim-ref', amount: 500 }),
    );
    await raced.run();
    expect(raced.recorded).toHaveLength(1);
    expect(await outcomes(raced.registry)).toEqual({});
  });
});

describe('refund processing', () => {
  it('records a refund the processor made as successful, with its reference, keyed by the refund id', async () => {
    const { processor, recorded, run } = refundSetup();
    processor.refundAnswers.push(() =>
      Promise.resolve({ outcome: 'refunded', refundReference: 'sim-ref', amount: 500 }),
    );
    await run();
    expect(processor.calls).toEqual(['refund refund-1']);
    expect(recorded).toEqual([
      { transition: { from: 'pending', to: 'successful' }, processorReference: 'sim-ref' },
    ]);
  });

  it('records a refusal as failed with the processor’s payment error', async () => {
    const { processor, recorded, run } = refundSetup();
    const error = { code: 329, message: 'REFUND_FAILED' as const, detail: 'the issuer refused the refund' };
    processor.refundAnswers.push(() => Promise.resolve({ outcome: 'rejected', error }));
    await run();
    expect(recorded).toEqual([{ transition: { from: 'pending', to: 'failed' }, error }]);
  });

  it('leaves an unknown outcome to BullMQ’s retry before the last attempt, recording nothing', async () => {
    const { processor, recorded, run } = refundSetup();
    await expect(run(NOT_LAST)).rejects.toBeInstanceOf(TransientProcessorError);
    expect(processor.calls).toEqual(['refund refund-1']);
    expect(recorded).toEqual([]);
  });

  it('on the last attempt asks the processor and repeats the refund under its key before giving up as error', async () => {
    const { processor, recorded, run } = refundSetup();
    processor.statusAnswer = () => Promise.resolve({ found: false });
    processor.refundAnswers.push(unreachable, () =>
      Promise.resolve({ outcome: 'refunded', refundReference: 'late', amount: 500 }),
    );
    await run(LAST);
    expect(processor.calls).toEqual(['refund refund-1', 'status', 'refund refund-1']);
    expect(recorded.map((outcome) => outcome.transition.to)).toEqual(['successful']);

    const dead = refundSetup();
    dead.processor.statusAnswer = () => Promise.reject(new TransientProcessorError('status', 'network'));
    await dead.run(LAST);
    expect(dead.recorded).toEqual([
      {
        transition: { from: 'pending', to: 'error' },
        error: { code: 309, message: 'PROCESSING_ERROR', detail: 'the processor could not be reached' },
      },
    ]);
  });

  it('a 409 (the key is being executed) is an unknown outcome; another refusal fails the refund', async () => {
    const busy = refundSetup();
    busy.processor.refundAnswers.push(() =>
      Promise.reject(new ProcessorRequestRejectedError('refund', 409, 'in_progress', 'busy')),
    );
    await expect(busy.run()).rejects.toBeInstanceOf(ProcessorRequestRejectedError);
    expect(busy.recorded).toEqual([]);

    const refused = refundSetup();
    refused.processor.refundAnswers.push(() =>
      Promise.reject(new ProcessorRequestRejectedError('refund', 400, 'invalid_request', 'bad amount')),
    );
    await refused.run();
    expect(refused.recorded.map((outcome) => [outcome.transition.to, outcome.error?.code])).toEqual([
      ['failed', 329],
    ]);
  });

  it('a batch reads its refunds once, records their outcomes in one statement, and hands an unknown one to its own job', async () => {
    const setup = refundSetup();
    const second = { ...setup.pendingRefunds.get('refund-1')!, id: 'refund-2', chargeId: 'charge-2' };
    const third = { ...second, id: 'refund-3', chargeId: 'charge-3' };
    setup.pendingRefunds.set(second.id, second).set(third.id, third);
    const refunded = () =>
      Promise.resolve({ outcome: 'refunded' as const, refundReference: 'r', amount: 500 });
    // refund-1 and refund-3 answered, refund-2 unreachable (the fake's default once its answers run out)
    setup.processor.refund = function (request: { idempotencyKey: string }) {
      this.calls.push(`refund ${request.idempotencyKey}`);
      return request.idempotencyKey === 'refund-2' ? unreachable() : refunded();
    };
    const cause = '00000000-0000-4000-8000-000000000002';
    await setup.service.processRefunds([
      { refundId: 'refund-1', causeEventId: null },
      { refundId: 'refund-2', causeEventId: cause },
      { refundId: 'refund-3', causeEventId: null },
      { refundId: 'refund-1', causeEventId: null },
      { refundId: 'not-pending', causeEventId: null },
    ]);
    expect(setup.processor.calls.sort()).toEqual(['refund refund-1', 'refund refund-2', 'refund refund-3']);
    expect(setup.statements).toEqual([['refund-1', 'refund-3']]);
    expect(setup.queued).toEqual([
      {
        name: 'process_refund',
        data: { aggregateId: 'refund-2', eventType: 'refund_requested', eventId: cause },
        opts: { jobId: `process_refund.refund-2.retry.${cause}`, delay: 1_000 },
      },
    ]);
    expect(await outcomes(setup.registry)).toEqual({ 'refund successful': 2 });
  });

  it('does nothing for a refund that is no longer pending', async () => {
    const { service, processor, recorded } = refundSetup();
    await service.processRefund('another-refund', null, LAST);
    expect([processor.calls, recorded]).toEqual([[], []]);
  });
});

describe('cancel processing', () => {
  it('a void moves the charge to canceled with charge_finished', async () => {
    const { processor, recorded, run } = cancelSetup({ chargeStatus: 'awaiting' });
    processor.voidAnswers.push(() => Promise.resolve({ outcome: 'voided' }));
    await run();
    expect(processor.calls).toEqual(['void cancel-1']);
    expect(recorded).toEqual([
      {
        transition: { from: 'pending', to: 'successful' },
        charge: { from: 'awaiting', to: 'canceled', event: 'charge_finished' },
      },
    ]);
  });

  it('a refused void fails the cancel and leaves the charge as it is', async () => {
    const { processor, recorded, run } = cancelSetup();
    const error = { code: 312, message: 'CANCEL_UNAVAILABLE' as const, detail: 'the issuer refused' };
    processor.voidAnswers.push(() => Promise.resolve({ outcome: 'rejected', error }));
    await run();
    expect(recorded).toEqual([{ transition: { from: 'pending', to: 'failed' }, charge: null, error }]);
  });

  it('an unknown outcome is retried, and ends as error on the last attempt when the processor stays away', async () => {
    const { processor, recorded, run } = cancelSetup();
    await expect(run(NOT_LAST)).rejects.toBeInstanceOf(TransientProcessorError);
    expect(recorded).toEqual([]);
    processor.statusAnswer = () => Promise.reject(new TransientProcessorError('status', 'network'));
    await run(LAST);
    expect(recorded.map((outcome) => [outcome.transition.to, outcome.charge])).toEqual([['error', null]]);
  });

  it('a charge with nothing to void fails the cancel without calling the processor', async () => {
    const { processor, recorded, run } = cancelSetup({ processorReference: null });
    await run();
    expect(processor.calls).toEqual([]);
    expect(recorded.map((outcome) => [outcome.transition.to, outcome.error?.code])).toEqual([
      ['failed', 312],
    ]);
  });
});
