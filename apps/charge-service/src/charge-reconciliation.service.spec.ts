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
import type { PendingCvvStore } from '@kessai/vault';
import { Registry } from 'prom-client';
import { ChargeMetrics } from './charge-metrics';
import { ChargeReconciliationService } from './charge-reconciliation.service';

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
    processorAccountId: null,
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

interface Deadline {
  /** the store's layer of configuration */
  storeConfiguration?: unknown;
  extensionCount?: number;
  /** what AUTO_EXTEND_CHARGE_EXPIRY answers: the new count, or null when another replica came first */
  extended?: number | null;
}

function setup(
  charge: ChargeToReconcile | null,
  found: ProcessorPayment,
  deadline: Deadline = {},
  ended: { status: string } | null = null,
) {
  const recordedDeposits: NewChargeDeposit[][] = [];
  const moves: { transition: ChargeTransition; outcome: Omit<ChargeOutcome, 'status'> }[] = [];
  const extensions: { from: Date; to: Date }[] = [];
  const voids: string[] = [];
  const processor = {
    status: () => Promise.resolve({ found: true, payment: found }),
    void: (request: { idempotencyKey: string }) => {
      voids.push(request.idempotencyKey);
      return Promise.resolve({ outcome: 'voided' });
    },
  } as unknown as PaymentProcessor;
  const service = new ChargeReconciliationService(
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
      findEnded: (id: string) => Promise.resolve(ended && { id, mode: 'test', ...ended }),
      findExpiryWithConfiguration: () =>
        Promise.resolve(
          charge?.expiresOn && {
            expirationDate: charge.expiresOn,
            extensionCount: deadline.extensionCount ?? 0,
            merchantConfiguration: {},
            storeConfiguration: deadline.storeConfiguration ?? {},
          },
        ),
      extendAtDeadline: (_id: string, from: Date, to: Date) => {
        extensions.push({ from, to });
        return Promise.resolve(
          deadline.extended === undefined ? (deadline.extensionCount ?? 0) + 1 : deadline.extended,
        );
      },
    } as unknown as DeferredPaymentsRepository,
    {
      forMode: () => processor,
      forCharge: () => Promise.resolve(processor),
      retrying: <T>(call: () => Promise<T>) => call(),
    } as unknown as PaymentProcessors,
    {} as PendingCvvStore,
    new ChargeMetrics(new Registry()),
    silent,
  );
  return { service, recordedDeposits, moves, extensions, voids };
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

describe('a bank-transfer charge at its deadline, in a store with automatic extension', () => {
  const automatic = {
    bank_transfer_configuration: {
      automatic_extension_enabled: true,
      default_extension_period: 'PT1H',
      maximum_extension_period: 'P1D',
    },
  };
  const passed = () => new Date(Date.now() - 1_000);

  it('is extended by default_extension_period from the deadline it passed: not voided, not failed', async () => {
    const charge = bankCharge('exact', passed());
    const { service, moves, extensions, voids } = setup(charge, payment([10]), {
      storeConfiguration: automatic,
    });
    await service.reconcileCharge('charge-1', null);
    expect(extensions).toEqual([
      { from: charge.expiresOn, to: new Date((charge.expiresOn?.getTime() ?? 0) + 3_600_000) },
    ]);
    expect(moves).toEqual([]);
    expect(voids).toEqual([]);
  });

  it('another replica extended it first: this pass neither voids nor fails it', async () => {
    const { service, moves, voids } = setup(bankCharge('exact', passed()), payment([]), {
      storeConfiguration: automatic,
      extended: null,
    });
    await service.reconcileCharge('charge-1', null);
    expect(moves).toEqual([]);
    expect(voids).toEqual([]);
  });

  it('fails (327) once the maximum number of extensions is reached, or when the store has none', async () => {
    for (const deadline of [
      { storeConfiguration: automatic, extensionCount: 5 },
      { storeConfiguration: {} },
    ]) {
      const { service, moves, extensions, voids } = setup(
        bankCharge('exact', passed()),
        payment([]),
        deadline,
      );
      await service.reconcileCharge('charge-1', null);
      expect(extensions).toEqual([]);
      expect(voids).toEqual(['expiry-charge-1']);
      expect(moves).toEqual([
        expect.objectContaining({
          outcome: expect.objectContaining({ error: expect.objectContaining({ code: 327 }) }),
        }),
      ]);
    }
  });

  it('a deposit that matches at the deadline still pays it: no extension', async () => {
    const { service, moves, extensions } = setup(bankCharge('exact', passed()), payment([5000]), {
      storeConfiguration: automatic,
    });
    await service.reconcileCharge('charge-1', null);
    expect(extensions).toEqual([]);
    expect(moves[0]?.transition).toMatchObject({ to: 'successful' });
  });
});

describe('money for a bank-transfer charge that has ended', () => {
  it('is recorded unmatched and received after the end, the charge left as it is', async () => {
    for (const status of ['failed', 'successful', 'canceled']) {
      const { service, recordedDeposits, moves, voids } = setup(
        null,
        payment([5000, 1000], 'voided'),
        {},
        {
          status,
        },
      );
      await service.reconcileCharge('charge-1', 'event-1');
      expect(recordedDeposits).toEqual([
        [
          expect.objectContaining({ processorDepositId: 'dep-0', matched: false, receivedAfterEnd: true }),
          expect.objectContaining({ processorDepositId: 'dep-1', amount: 1000n, receivedAfterEnd: true }),
        ],
      ]);
      expect(moves).toEqual([]);
      expect(voids).toEqual([]);
    }
  });

  it('nothing for a charge that is no bank transfer or konbini, or none at all', async () => {
    const { service, recordedDeposits } = setup(null, payment([5000]), {}, null);
    await service.reconcileCharge('charge-1', 'event-1');
    expect(recordedDeposits).toEqual([]);
  });
});
