import type { AppConfig } from '@kessai/config';
import type {
  ChargeOutcome,
  ChargeOutcomesRepository,
  ChargeToReconcile,
  DeferredPaymentsRepository,
  NewChargeDeposit,
} from '@kessai/db';
import type { ChargeTransition } from '@kessai/domain';
import type { Logger } from '@kessai/observability';
import type { PaymentProcessor, PaymentProcessors, ProcessorPayment } from '@kessai/processor';
import type { CardVault, PendingCvvStore } from '@kessai/vault';
import { Registry } from 'prom-client';
import type { ChargeJobs } from './charge-jobs';
import { ChargeMetrics } from './charge-metrics';
import { ChargeProcessingService } from './charge-processing.service';

/** reconcile_charge of a bank-transfer charge: its deposits recorded, matched by its match_amount rule. */

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

function bankCharge(
  matchAmount: ChargeToReconcile['matchAmount'],
  expiresOn = new Date(Date.now() + 3_600_000),
) {
  const charge: ChargeToReconcile = {
    id: 'charge-1',
    status: 'awaiting',
    mode: 'test',
    paymentType: 'bank_transfer',
    tokenId: 'token-1',
    processorReference: 'sim_pay_1',
    expiresOn,
    cancelPending: false,
    amount: 5000n,
    matchAmount,
    feeTerms: { ratePpm: 0, flatAmount: 0n },
  };
  return charge;
}

function payment(
  amounts: number[],
  status: ProcessorPayment['status'] = 'awaiting_payment',
): ProcessorPayment {
  return {
    processorReference: 'sim_pay_1',
    reference: 'charge-1',
    kind: 'bank_transfer',
    status,
    amount: 5000,
    currency: 'JPY',
    capturedAmount: 0,
    refundedAmount: 0,
    error: null,
    deposits: amounts.map((amount, i) => ({ id: `dep-${i}`, amount, receivedOn: new Date(0) })),
  };
}

function setup(charge: ChargeToReconcile, found: ProcessorPayment) {
  const recordedDeposits: NewChargeDeposit[][] = [];
  const moves: { transition: ChargeTransition; outcome: Omit<ChargeOutcome, 'status'> }[] = [];
  const processor = {
    status: () => Promise.resolve({ found: true, payment: found }),
    void: () => Promise.resolve({ outcome: 'voided' }),
  } as unknown as PaymentProcessor;
  const service = new ChargeProcessingService(
    {
      findToReconcile: () => Promise.resolve(charge),
      record: (_id: string, transition: ChargeTransition, outcome: Omit<ChargeOutcome, 'status'>) => {
        moves.push({ transition, outcome });
        return Promise.resolve(true);
      },
    } as unknown as ChargeOutcomesRepository,
    {
      recordDeposits: (_id: string, deposits: NewChargeDeposit[]) => {
        recordedDeposits.push(deposits);
        return Promise.resolve(deposits.length);
      },
    } as unknown as DeferredPaymentsRepository,
    {
      forMode: () => processor,
      retrying: <T>(call: () => Promise<T>) => call(),
    } as unknown as PaymentProcessors,
    {} as CardVault,
    {} as PendingCvvStore,
    {} as ChargeJobs,
    new ChargeMetrics(new Registry()),
    silent,
    { CHARGE_AWAITING_EXPIRY_SECONDS: 900 } as AppConfig,
  );
  return { service, recordedDeposits, moves };
}

describe('reconciling a bank-transfer charge', () => {
  it('exact: an underpayment is recorded unmatched and moves nothing', async () => {
    const { service, recordedDeposits, moves } = setup(bankCharge('exact'), payment([3000]));
    await service.reconcileCharge('charge-1', 'event-1');
    expect(recordedDeposits).toEqual([
      [expect.objectContaining({ processorDepositId: 'dep-0', amount: 3000n, matched: false })],
    ]);
    expect(moves).toEqual([]);
  });

  it('exact: the deposit that makes the total right pays the charge, charged the total', async () => {
    const { service, recordedDeposits, moves } = setup(bankCharge('exact'), payment([3000, 2000]));
    await service.reconcileCharge('charge-1', 'event-1');
    expect(recordedDeposits[0]?.map((d) => d.matched)).toEqual([false, true]);
    expect(moves).toEqual([
      {
        transition: expect.objectContaining({ from: 'awaiting', to: 'successful', event: 'charge_finished' }),
        outcome: expect.objectContaining({ chargedAmount: 5000n, feeAmount: 0n }),
      },
    ]);
  });

  it('maximum: an underpayment pays it at what arrived; minimum: it does not', async () => {
    const maximum = setup(bankCharge('maximum'), payment([3000]));
    await maximum.service.reconcileCharge('charge-1', null);
    expect(maximum.moves[0]?.outcome).toMatchObject({ chargedAmount: 3000n });
    const minimum = setup(bankCharge('minimum'), payment([3000]));
    await minimum.service.reconcileCharge('charge-1', null);
    expect(minimum.moves).toEqual([]);
  });

  it('past its deadline without a match: voided and failed 327, its deposits recorded first', async () => {
    const { service, recordedDeposits, moves } = setup(
      bankCharge('exact', new Date(Date.now() - 1)),
      payment([10]),
    );
    await service.reconcileCharge('charge-1', null);
    expect(recordedDeposits).toHaveLength(1);
    expect(moves).toEqual([
      {
        transition: expect.objectContaining({ from: 'awaiting', to: 'failed' }),
        outcome: expect.objectContaining({ error: expect.objectContaining({ code: 327 }) }),
      },
    ]);
  });
});
