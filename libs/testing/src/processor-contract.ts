import { randomUUID } from 'node:crypto';
import {
  type AuthorizeRequest,
  type PaymentErrorName,
  type PaymentProcessor,
  TransientProcessorError,
  withProcessorRetries,
} from '@kessai/processor';
import { cardWith } from './processor-specs';

/**
 * The PaymentProcessor port's contract (libs/processor/src/payment-processor.ts) as one suite any
 * adapter runs against its processor or that processor's fake: declines are results, unknown
 * outcomes are thrown as transient and retried with the same key, each key is executed once,
 * `status(reference)` finds a payment after a lost answer.
 */
export interface ProcessorContractSetup {
  processor: () => PaymentProcessor;
  /** a card the processor approves */
  approvedCard: string;
  /** a card the processor declines, and the SDK's code it must come back as */
  declinedCard: { number: string; error: PaymentErrorName };
  currency: string;
  /** how many times the processor executed a payment under this reference */
  paymentsExecuted: (reference: string) => number;
  /** the next authorization of this card answers a 5xx without being executed */
  failNextAuthorization: () => string;
  /** the next authorization of this card is executed, and its answer comes after the client gave up */
  lateNextAuthorization: () => string;
}

export function describeProcessorContract(name: string, setup: ProcessorContractSetup): void {
  const card = (number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
    reference: randomUUID(),
    amount: 1000,
    currency: setup.currency,
    capture: true,
    paymentMethod: { type: 'card', card: cardWith(number) },
    ...overrides,
  });

  describe(`${name}: the PaymentProcessor contract`, () => {
    it('approves and captures a card, and status finds it captured', async () => {
      const request = card(setup.approvedCard);
      const result = await setup.processor().authorize(request);
      expect(result).toMatchObject({ outcome: 'approved', captured: true });
      expect(await setup.processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'captured', amount: 1000, capturedAmount: 1000, reference: request.reference },
      });
    });

    it('declines as a result with the SDK error code', async () => {
      const result = await setup.processor().authorize(card(setup.declinedCard.number));
      expect(result).toMatchObject({
        outcome: 'declined',
        error: { message: setup.declinedCard.error },
      });
    });

    it('holds, then captures the whole authorization', async () => {
      const request = card(setup.approvedCard, { capture: false });
      const held = await setup.processor().authorize(request);
      if (held.outcome !== 'approved') throw new Error(`expected approval, got ${held.outcome}`);
      expect(held.captured).toBe(false);
      expect(await setup.processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'authorized', capturedAmount: 0 },
      });
      const captured = await setup.processor().capture({
        processorReference: held.processorReference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: setup.currency,
      });
      expect(captured).toEqual({ outcome: 'captured', capturedAmount: 1000 });
    });

    it('voids an authorization', async () => {
      const request = card(setup.approvedCard, { capture: false });
      const held = await setup.processor().authorize(request);
      const voided = await setup.processor().void({
        processorReference: held.processorReference,
        idempotencyKey: randomUUID(),
      });
      expect(voided).toEqual({ outcome: 'voided' });
      expect(await setup.processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'voided' },
      });
    });

    it('refunds part, then the rest, once per key, and no more', async () => {
      const held = await setup.processor().authorize(card(setup.approvedCard));
      const refund = (amount: number, idempotencyKey = randomUUID()) =>
        setup.processor().refund({
          processorReference: held.processorReference,
          idempotencyKey,
          amount,
          currency: setup.currency,
        });
      const key = randomUUID();
      const first = await refund(300, key);
      expect(first).toMatchObject({ outcome: 'refunded', amount: 300 });
      expect(await refund(300, key)).toEqual(first);
      expect(await refund(700)).toMatchObject({ outcome: 'refunded', amount: 700 });
      expect(await refund(1)).toMatchObject({ outcome: 'rejected' });
    });

    it('answers operations on an unknown payment with TRANSACTION_NOT_FOUND', async () => {
      // a key per operation: some processors (KOMOJU) keep idempotency keys across all their paths
      const unknown = () => ({ processorReference: 'no-such-payment', idempotencyKey: randomUUID() });
      const money = { amount: 1000, currency: setup.currency };
      const notFound = { outcome: 'rejected', error: { message: 'TRANSACTION_NOT_FOUND' } };
      expect(await setup.processor().capture({ ...unknown(), ...money })).toMatchObject(notFound);
      expect(await setup.processor().void(unknown())).toMatchObject(notFound);
      expect(await setup.processor().refund({ ...unknown(), ...money })).toMatchObject(notFound);
      expect(await setup.processor().status(randomUUID())).toEqual({ found: false });
    });

    it('executes a repeated authorization once and answers it with the first result', async () => {
      const request = card(setup.approvedCard);
      const results = await Promise.all([1, 2, 3].map(() => setup.processor().authorize(request)));
      expect(new Set(results.map((result) => result.processorReference)).size).toBe(1);
      expect(setup.paymentsExecuted(request.reference)).toBe(1);
    });

    it('throws a 5xx as transient; the retry with the same key executes once', async () => {
      const request = card(setup.failNextAuthorization());
      const failure = await setup
        .processor()
        .authorize(request)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransientProcessorError);
      // a 5xx proves nothing about the execution: never a reason to fail over (decision 0056)
      expect(failure).toMatchObject({ unexecuted: null });
      expect(await setup.processor().status(request.reference)).toEqual({ found: false });
      const result = await withProcessorRetries(() => setup.processor().authorize(request), {
        attempts: 3,
        baseDelayMs: 1,
        maxDelayMs: 5,
      });
      expect(result).toMatchObject({ outcome: 'approved' });
      expect(setup.paymentsExecuted(request.reference)).toBe(1);
    });

    it('throws a late answer as a timeout; status and the retry find the payment made once', async () => {
      const request = card(setup.lateNextAuthorization());
      await expect(setup.processor().authorize(request)).rejects.toMatchObject({
        kind: 'timeout',
        retryable: true,
        unexecuted: null,
      });
      expect(await setup.processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'captured', reference: request.reference },
      });
      expect(await setup.processor().authorize(request)).toMatchObject({ outcome: 'approved' });
      expect(setup.paymentsExecuted(request.reference)).toBe(1);
    });
  });
}
