import { randomUUID } from 'node:crypto';
import { type TestCardOutcome } from '@kessai/cards';
import {
  type PaymentInstructionsWire,
  type PaymentWire,
  type ProcessorPayment,
  type ThreeDsChallenge,
} from '@kessai/processor';

/** The state-changing calls the simulator deduplicates by idempotency key. */
export type SimulatorOperation =
  'authorize' | 'create_operator_payment' | 'create_deferred_payment' | 'capture' | 'void' | 'refund';

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * One idempotency key of one operation. `requests` counts every call that reached the simulator
 * with it, `executions` how many times it was actually carried out: at most once, which is the
 * property the crash tests check.
 */
export interface IdempotencyRecord {
  operation: SimulatorOperation;
  key: string;
  requestHash: string;
  requests: number;
  executions: number;
  response: StoredResponse | null;
}

/** What the simulator keeps of a payment: what `status` reports (minus the reference it answers with), and more. */
export interface SimulatedPayment extends Omit<ProcessorPayment, 'processorReference' | 'deposits'> {
  id: string;
  /** never the number: brand and last four for display, and the scripted outcome */
  card: { brand: string; lastFour: string; outcome: TestCardOutcome } | null;
  captureOnApproval: boolean;
  threeDs: {
    challenge: ThreeDsChallenge;
    redirectEndpoint: string | null;
    callbackUrl: string | null;
  } | null;
  operator: {
    operatorPaymentId: string;
    brand: string;
    paymentUrl: string;
    expiresAt: Date;
    callbackUrl: string;
    returnUrl: string | null;
  } | null;
  /** a bank transfer or konbini payment: where the customer pays, and what arrived */
  deferred: {
    instructions: PaymentInstructionsWire;
    /** the virtual account number or the payment code the customer pays */
    payKey: string;
    expiresAt: Date;
    callbackUrl: string;
    deposits: { id: string; amount: number; receivedOn: Date }[];
  } | null;
  createdOn: Date;
}

export interface SimulatorOperationStats {
  operation: SimulatorOperation;
  idempotencyKey: string;
  requests: number;
  executions: number;
}

export interface SimulatorCallbackStats {
  notificationId: string;
  event: 'operator_payment' | 'three_ds' | 'deferred_payment' | 'payout';
  reference: string;
  status: string;
  url: string;
  attempts: number;
  delivered: boolean;
  /** HTTP status of the last attempt, null when it got no answer */
  lastStatus: number | null;
}

export interface SimulatorStats {
  operations: SimulatorOperationStats[];
  callbacks: SimulatorCallbackStats[];
}

/** A consumer's consent as the simulator's Paidy keeps it (paidy-routes.ts): whose, and whether usable. */
export interface SimulatedPaidyToken {
  id: string;
  consumer: 'approved' | 'rejected';
  status: 'active' | 'deleted';
}

/** The simulator's memory: payments, idempotency records and delivery counters. */
export class SimulatorState {
  readonly payments = new Map<string, SimulatedPayment>();
  readonly #paymentIdByReference = new Map<string, string>();
  readonly #paymentIdByOperatorId = new Map<string, string>();
  /** bank transfers: the virtual account number; konbini: the payment code (numbers never collide in kind) */
  readonly #paymentIdByPayKey = new Map<string, string>();
  readonly #idempotency = new Map<string, IdempotencyRecord>();
  readonly callbacks: SimulatorCallbackStats[] = [];
  /** Apple Pay transaction ids already authorized: each payment data pays once */
  readonly applePayTransactions = new Set<string>();
  /** Paidy tokens its checkout gave out */
  readonly paidyTokens = new Map<string, SimulatedPaidyToken>();

  /** Counts a request under its key, creating the record on first sight. */
  recordRequest(operation: SimulatorOperation, key: string, requestHash: string): IdempotencyRecord {
    const id = `${operation}\u0000${key}`;
    let record = this.#idempotency.get(id);
    if (!record) {
      record = { operation, key, requestHash, requests: 0, executions: 0, response: null };
      this.#idempotency.set(id, record);
    }
    record.requests += 1;
    return record;
  }

  addPayment(payment: SimulatedPayment): void {
    this.payments.set(payment.id, payment);
    this.#paymentIdByReference.set(payment.reference, payment.id);
    if (payment.operator) this.#paymentIdByOperatorId.set(payment.operator.operatorPaymentId, payment.id);
    if (payment.deferred) this.#paymentIdByPayKey.set(payment.deferred.payKey, payment.id);
  }

  /** The deferred payment a virtual account number or payment code belongs to. */
  byPayKey(payKey: string): SimulatedPayment | undefined {
    const id = this.#paymentIdByPayKey.get(payKey);
    return id === undefined ? undefined : this.payments.get(id);
  }

  /** Whether a virtual account number or payment code is already given out. */
  payKeyTaken(payKey: string): boolean {
    return this.#paymentIdByPayKey.has(payKey);
  }

  byReference(reference: string): SimulatedPayment | undefined {
    const id = this.#paymentIdByReference.get(reference);
    return id === undefined ? undefined : this.payments.get(id);
  }

  byOperatorPaymentId(operatorPaymentId: string): SimulatedPayment | undefined {
    const id = this.#paymentIdByOperatorId.get(operatorPaymentId);
    return id === undefined ? undefined : this.payments.get(id);
  }

  stats(): SimulatorStats {
    return {
      operations: [...this.#idempotency.values()].map(({ operation, key, requests, executions }) => ({
        operation,
        idempotencyKey: key,
        requests,
        executions,
      })),
      callbacks: this.callbacks.map((callback) => ({ ...callback })),
    };
  }

  clear(): void {
    this.payments.clear();
    this.#paymentIdByReference.clear();
    this.#paymentIdByOperatorId.clear();
    this.#paymentIdByPayKey.clear();
    this.#idempotency.clear();
    this.applePayTransactions.clear();
    this.paidyTokens.clear();
    this.callbacks.length = 0;
  }
}

/** The counters of one operation and key in a stats snapshot (zeros when never seen). */
export function operationStats(
  stats: SimulatorStats,
  operation: SimulatorOperation,
  idempotencyKey: string,
): SimulatorOperationStats {
  return (
    stats.operations.find((o) => o.operation === operation && o.idempotencyKey === idempotencyKey) ?? {
      operation,
      idempotencyKey,
      requests: 0,
      executions: 0,
    }
  );
}

export function newSimulatedPayment(
  reference: string,
  kind: SimulatedPayment['kind'],
  amount: number,
  currency: string,
  captureOnApproval: boolean,
): SimulatedPayment {
  return {
    id: `sim_pay_${randomUUID()}`,
    reference,
    kind,
    status: 'authorized',
    amount,
    currency,
    capturedAmount: 0,
    refundedAmount: 0,
    error: null,
    card: null,
    captureOnApproval,
    threeDs: null,
    operator: null,
    deferred: null,
    createdOn: new Date(),
  };
}

/** Approval captures at once or holds the amount, as the authorization asked. */
export function approvePayment(payment: SimulatedPayment): void {
  payment.status = payment.captureOnApproval ? 'captured' : 'authorized';
  payment.capturedAmount = payment.captureOnApproval ? payment.amount : 0;
}

export function paymentToWire(payment: SimulatedPayment): PaymentWire {
  return {
    id: payment.id,
    reference: payment.reference,
    kind: payment.kind,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    captured_amount: payment.capturedAmount,
    refunded_amount: payment.refundedAmount,
    error: payment.error,
    card: payment.card ? { brand: payment.card.brand, last_four: payment.card.lastFour } : null,
    three_ds: payment.threeDs
      ? {
          issuer_token: payment.threeDs.challenge.issuerToken,
          call_method: payment.threeDs.challenge.callMethod,
          payload: payment.threeDs.challenge.payload,
          content_type: payment.threeDs.challenge.contentType,
        }
      : null,
    operator: payment.operator
      ? {
          operator_payment_id: payment.operator.operatorPaymentId,
          brand: payment.operator.brand,
          payment_url: payment.operator.paymentUrl,
          qr_content: payment.operator.paymentUrl,
          call_method: 'http_get',
          expires_on: payment.operator.expiresAt.toISOString(),
        }
      : null,
    deferred: payment.deferred
      ? {
          instructions: payment.deferred.instructions,
          expires_on: payment.deferred.expiresAt.toISOString(),
          deposits: payment.deferred.deposits.map((deposit) => ({
            id: deposit.id,
            amount: deposit.amount,
            received_on: deposit.receivedOn.toISOString(),
          })),
        }
      : null,
    created_on: payment.createdOn.toISOString(),
  };
}
