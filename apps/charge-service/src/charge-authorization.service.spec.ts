import type { AppConfig } from '@kessai/config';
import type { ChargeOutcomesRepository, PendingCharge, RecordedOutcome } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import {
  ProcessorRequestRejectedError,
  TransientProcessorError,
  type AuthorizeResult,
  type PaymentProcessor,
  type PaymentStatusResult,
  type ProcessorPayment,
} from '@kessai/processor';
import type { CardVault, PendingCvvStore } from '@kessai/vault';
import { Registry } from 'prom-client';
import type { ChargeJobRequest, ChargeJobs } from './charge-jobs';
import { ChargeMetrics } from './charge-metrics';
import { ChargeAuthorizationService } from './charge-authorization.service';
import { RetryLaterError } from './retry-later';
import type { PaymentProcessors } from '@kessai/processor';

/** The decisions of ChargeAuthorizationService, with fakes for the repository, the processor, the vault and the queue. */

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

function qrCharge(id: string, mode: PendingCharge['mode'] = 'test'): PendingCharge {
  return {
    id,
    mode,
    amount: 1000n,
    currency: 'JPY',
    capture: true,
    descriptor: null,
    threeDs: null,
    tokenThreeDsAuthenticated: false,
    redirectEndpoint: null,
    tokenId: `token-${id}`,
    paymentType: 'qr_scan',
    processorAccountId: null,
    fallbackProcessorAccountId: null,
    card: null,
    brand: null,
    callMethod: null,
    scannedQr: '280000000000000001',
    applePayPaymentData: null,
    paidy: null,
    konbini: null,
    email: null,
    expiresOn: null,
    vault: null,
    feeTerms: { ratePpm: 36_000, flatAmount: 30n },
  };
}

function payment(status: ProcessorPayment['status'], capturedAmount = 0): ProcessorPayment {
  return {
    processorReference: 'ref-1',
    reference: 'charge',
    kind: 'qr_scan',
    status,
    amount: 1000,
    currency: 'JPY',
    capturedAmount,
    refundedAmount: 0,
    error: null,
    deposits: [],
  };
}

class FakeProcessor implements Partial<PaymentProcessor> {
  authorizeAnswer: () => Promise<AuthorizeResult> = () =>
    Promise.resolve({ outcome: 'approved', processorReference: 'ref-1', captured: true });
  statusAnswer: PaymentStatusResult = { found: false };
  authorizeCalls = 0;
  lastAuthorization: unknown = null;
  statusCalls = 0;
  authorize(request: unknown) {
    this.lastAuthorization = request;
    this.authorizeCalls++;
    return this.authorizeAnswer();
  }
  status() {
    this.statusCalls++;
    return Promise.resolve(this.statusAnswer);
  }
}

function setup(pending: PendingCharge[], { moved = true }: { moved?: boolean } = {}) {
  const processor = new FakeProcessor();
  const recorded: RecordedOutcome[] = [];
  const froms: unknown[] = [];
  const jobs: ChargeJobRequest[] = [];
  const calls: string[] = [];
  const repository = {
    findPending: (id: string) => Promise.resolve(pending.find((charge) => charge.id === id) ?? null),
    findPendingMany: (ids: readonly string[]) =>
      Promise.resolve(pending.filter((charge) => ids.includes(charge.id))),
    recordMany: (from: unknown, outcomes: readonly RecordedOutcome[]) => {
      calls.push('record');
      froms.push(from);
      recorded.push(...outcomes);
      // moved: false — another worker recorded them first, the statement moved nothing
      return Promise.resolve(new Set(moved ? outcomes.map((outcome) => outcome.chargeId) : []));
    },
  } as unknown as ChargeOutcomesRepository;
  const processors = {
    callbackUrl: 'http://gateway/processor/callbacks',
    threeDsReturnUrl: (reference: string) => `http://gateway/processor/three_ds/return/${reference}`,
    forMode: (mode: string) => (mode === 'test' ? processor : null),
    forCharge: (_chargeId: string, mode: string) => Promise.resolve(mode === 'test' ? processor : null),
    // the retry policy is PaymentProcessors' own business: here each call is made once
    retrying: <T>(call: () => Promise<T>) => call(),
  } as unknown as PaymentProcessors;
  const cvvs = {
    peek: () => Promise.resolve('123'),
    discard: () => {
      calls.push('discard cvv');
      return Promise.resolve();
    },
  } as unknown as PendingCvvStore;
  const queue = {
    add: (requests: readonly ChargeJobRequest[]) => {
      jobs.push(...requests);
      return Promise.resolve();
    },
  } as unknown as ChargeJobs;
  const config = { CHARGE_AWAITING_EXPIRY_SECONDS: 900 } as AppConfig;
  const registry = new Registry();
  const service = new ChargeAuthorizationService(
    repository,
    processors,
    {} as CardVault,
    cvvs,
    queue,
    new ChargeMetrics(registry),
    silent,
    config,
  );
  return { service, processor, recorded, froms, jobs, calls, registry };
}

/** kessai_charge_outcomes_total's samples, by status. */
async function chargeOutcomes(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('kessai_charge_outcomes_total')?.get();
  return Object.fromEntries(
    (metric?.values ?? []).map((sample) => [String(sample.labels.status), sample.value]),
  );
}

describe('ChargeAuthorizationService', () => {
  it('counts an outcome it recorded by status, and none that another worker recorded first', async () => {
    const first = setup([qrCharge('a'), qrCharge('b')]);
    first.processor.authorizeAnswer = () =>
      Promise.resolve({
        outcome: 'declined',
        processorReference: 'ref-1',
        error: { code: 'CARD_REJECTED' } as never,
      });
    await first.service.processCharges([
      { chargeId: 'a', causeEventId: null },
      { chargeId: 'b', causeEventId: null },
    ]);
    expect(await chargeOutcomes(first.registry)).toEqual({ failed: 2 });

    const raced = setup([qrCharge('a')], { moved: false });
    await raced.service.processCharge('a');
    expect(raced.recorded).toHaveLength(1);
    expect(await chargeOutcomes(raced.registry)).toEqual({});
  });

  it('records an approval as successful with the charged amount and its fee, from pending, with charge_finished', async () => {
    const { service, processor, recorded, froms } = setup([qrCharge('a')]);
    await service.processCharge('a', 'event-1');
    expect(processor.authorizeCalls).toBe(1);
    expect(recorded).toEqual([
      {
        chargeId: 'a',
        causeEventId: 'event-1',
        event: 'charge_finished',
        // 3.6 % of 1,000 is 36, plus the flat 30
        outcome: { status: 'successful', processorReference: 'ref-1', chargedAmount: 1000n, feeAmount: 66n },
      },
    ]);
    expect(froms).toEqual([['pending']]);
  });

  it('records no fee for a charge accepted before fees existed (no terms)', async () => {
    const { service, recorded } = setup([{ ...qrCharge('old'), feeTerms: null }]);
    await service.processCharge('old');
    expect(recorded[0]?.outcome).toEqual({
      status: 'successful',
      processorReference: 'ref-1',
      chargedAmount: 1000n,
    });
  });

  it('announces a move that does not end the charge (authorized) with charge_updated, as the machine says', async () => {
    const { service, processor, recorded } = setup([{ ...qrCharge('h'), capture: false }]);
    processor.authorizeAnswer = () =>
      Promise.resolve({ outcome: 'approved', processorReference: 'ref-1', captured: false });
    await service.processCharge('h');
    expect(recorded[0]).toMatchObject({ event: 'charge_updated', outcome: { status: 'authorized' } });
  });

  it('ends a charge whose amount the processor wire cannot carry exactly in error 309, calling no one', async () => {
    const { service, processor, recorded } = setup([{ ...qrCharge('big'), amount: 2n ** 53n }]);
    await service.processCharge('big');
    expect(processor.authorizeCalls).toBe(0);
    expect(recorded[0]).toMatchObject({
      event: 'charge_finished',
      outcome: {
        status: 'error',
        error: { code: 309, detail: 'the amount is beyond what the processor accepts' },
      },
    });
  });

  it('does nothing for a charge that is no longer pending (a repeat)', async () => {
    const { service, processor, recorded } = setup([]);
    await service.processCharge('gone');
    expect(processor.authorizeCalls).toBe(0);
    expect(recorded).toEqual([]);
  });

  it('ends a live charge without a live processor in error 309, calling no one', async () => {
    const { service, processor, recorded } = setup([qrCharge('live', 'live')]);
    await service.processCharge('live');
    expect(processor.authorizeCalls).toBe(0);
    expect(recorded[0]?.outcome).toMatchObject({ status: 'error', error: { code: 309 } });
  });

  it('after a timeout, records what the processor executed (never fails without asking)', async () => {
    const { service, processor, recorded } = setup([qrCharge('t')]);
    processor.authorizeAnswer = () => Promise.reject(new TransientProcessorError('authorize', 'timeout'));
    processor.statusAnswer = { found: true, payment: payment('captured', 1000) };
    await service.processCharge('t');
    expect(processor.statusCalls).toBe(1);
    expect(recorded[0]?.outcome).toMatchObject({
      status: 'successful',
      chargedAmount: 1000n,
      feeAmount: 66n,
    });
  });

  it('after a timeout the processor never executed, records nothing and lets the job retry', async () => {
    const { service, processor, recorded } = setup([qrCharge('t')]);
    processor.authorizeAnswer = () =>
      Promise.reject(new TransientProcessorError('authorize', 'server_error', 503));
    await expect(service.processCharge('t')).rejects.toThrow(RetryLaterError);
    expect(processor.statusCalls).toBe(1);
    expect(recorded).toEqual([]);
  });

  it('a refusal of a request never executed ends the charge in error', async () => {
    const { service, processor, recorded } = setup([qrCharge('r')]);
    processor.authorizeAnswer = () =>
      Promise.reject(new ProcessorRequestRejectedError('authorize', 400, 'invalid_request', 'bad'));
    await service.processCharge('r');
    expect(recorded[0]?.outcome).toMatchObject({
      status: 'error',
      error: { code: 309, detail: 'the processor refused the request' },
    });
  });

  it.each([409, 423])(
    'a %i refusal means the key is being executed: unknown, nothing recorded, retried',
    async (httpStatus) => {
      const { service, processor, recorded } = setup([qrCharge('busy')]);
      processor.authorizeAnswer = () =>
        Promise.reject(new ProcessorRequestRejectedError('authorize', httpStatus, 'in_progress', 'busy'));
      await expect(service.processCharge('busy')).rejects.toThrow(RetryLaterError);
      expect(processor.statusCalls).toBe(1);
      expect(recorded).toEqual([]);
    },
  );

  it('a 409 refusal whose payment the processor did execute records that payment', async () => {
    const { service, processor, recorded } = setup([qrCharge('busy')]);
    processor.authorizeAnswer = () =>
      Promise.reject(new ProcessorRequestRejectedError('authorize', 409, 'in_progress', 'busy'));
    processor.statusAnswer = { found: true, payment: { ...payment('declined'), error: null } };
    await service.processCharge('busy');
    expect(recorded[0]?.outcome).toMatchObject({ status: 'failed', error: { code: 306 } }); // CARD_REJECTED
  });

  it('in a batch, hands a charge whose outcome stays unknown to a job of its own and records the others', async () => {
    const { service, processor, recorded, jobs } = setup([qrCharge('ok'), qrCharge('stuck')]);
    processor.authorizeAnswer = () =>
      processor.authorizeCalls === 2
        ? Promise.reject(new ProcessorRequestRejectedError('authorize', 423, 'locked', 'busy'))
        : Promise.resolve({ outcome: 'approved', processorReference: 'ref-1', captured: true });
    await service.processCharges([
      { chargeId: 'ok', causeEventId: 'e1' },
      { chargeId: 'stuck', causeEventId: 'e2' },
      { chargeId: 'ok', causeEventId: 'e3' },
    ]);
    expect(processor.authorizeCalls).toBe(2); // 'ok' listed twice, processed once
    expect(recorded.map((outcome) => [outcome.chargeId, outcome.causeEventId])).toEqual([['ok', 'e1']]);
    expect(jobs).toEqual([
      expect.objectContaining({
        name: 'process_charge',
        chargeId: 'stuck',
        causeEventId: 'e2',
        idParts: ['retry'],
      }),
    ]);
  });

  it('forgets a card charge’s CVV before recording its outcome', async () => {
    const card: PendingCharge = {
      ...qrCharge('c'),
      paymentType: 'card',
      scannedQr: null,
      card: { cardholder: 'A B', exp_month: 12, exp_year: 2030 },
      vault: { keyId: 'k', iv: new Uint8Array(), ciphertext: new Uint8Array(), authTag: new Uint8Array() },
    };
    const { service, calls, processor } = setup([card]);
    (service as unknown as { vault: { decrypt(): string } }).vault.decrypt = () => '4242424242424242';
    await service.processCharge('c');
    expect(calls).toEqual(['discard cvv', 'record']);
    // a hosted processor's 3-D Secure comes back to the charge's own return route
    expect(processor.lastAuthorization).toMatchObject({
      reference: 'c',
      threeDs: { mode: 'normal', returnUrl: 'http://gateway/processor/three_ds/return/c' },
    });
  });
});
