import {
  paymentError,
  type AuthorizeRequest,
  type AuthorizeResult,
  type PaymentErrorName,
  type PaymentProcessor,
  type PaymentProcessors,
  type PaymentStatusResult,
  type ProcessorPayment,
  type VoidResult,
} from '@kessai/processor';

/**
 * A test-mode payment processor for the unit specs of a card token's hold of 1 (3-D Secure, CVV
 * authorization): each call recorded in `calls` (`authorize`, `status <reference>`, `void <key>`),
 * each authorization's request in `authorized`; authorize approves, status finds nothing and void
 * voids until a spec answers otherwise. Status answers in turn, the last one from then on. A check
 * routed to an account gets the processor, so does the test mode's default; a live mode's default
 * has none. `routedTo` records the account each lookup asked for (null: the mode's default).
 */
export function fakeCardProcessor(calls: string[]) {
  const authorized: AuthorizeRequest[] = [];
  const routedTo: (string | null)[] = [];
  let authorizeAnswer: () => Promise<AuthorizeResult> = () =>
    Promise.resolve({ outcome: 'approved', processorReference: 'sim_pay_1', captured: false });
  let statusAnswers: PaymentStatusResult[] = [{ found: false }];
  let voidAnswer: (idempotencyKey: string) => VoidResult = () => ({ outcome: 'voided' });
  const processor: Partial<PaymentProcessor> = {
    authorize: (request) => {
      calls.push('authorize');
      authorized.push(request);
      return authorizeAnswer();
    },
    status: (reference) => {
      calls.push(`status ${reference}`);
      return Promise.resolve(statusAnswers.length > 1 ? statusAnswers.shift()! : statusAnswers[0]);
    },
    void: (request) => {
      calls.push(`void ${request.idempotencyKey}`);
      return Promise.resolve(voidAnswer(request.idempotencyKey));
    },
  };
  const processors = {
    callbackUrl: 'http://gateway/processor/callbacks',
    forTokenCheck: (mode: string, account: string | null | undefined) => {
      routedTo.push(account ?? null);
      return Promise.resolve(account || mode === 'test' ? processor : null);
    },
    retrying: <T>(call: () => Promise<T>) => call(),
  } as unknown as PaymentProcessors;
  return {
    processors,
    authorized,
    routedTo,
    answerAuthorize: (answer: () => Promise<AuthorizeResult>) => (authorizeAnswer = answer),
    answerStatus: (...answers: PaymentStatusResult[]) => (statusAnswers = answers),
    answerVoid: (answer: (idempotencyKey: string) => VoidResult) => (voidAnswer = answer),
  };
}

/** The processor's payment of a token's hold of 1 JPY under `reference`: declined with `declinedWith`. */
export function heldPayment(
  reference: string,
  status: ProcessorPayment['status'],
  declinedWith: PaymentErrorName,
): ProcessorPayment {
  return {
    processorReference: 'sim_pay_1',
    reference,
    kind: 'card',
    status,
    amount: 1,
    currency: 'JPY',
    capturedAmount: 0,
    refundedAmount: 0,
    error: status === 'declined' ? paymentError(declinedWith) : null,
    deposits: [],
  };
}
