import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import {
  type AuthorizeRequest,
  type DeferredPaymentRequest,
  type PaymentErrorName,
  type PaymentProcessor,
  ProcessorRequestRejectedError,
  TransientProcessorError,
} from '@kessai/processor';
import { describeProcessorContract, type ProcessorContractSetup } from './processor-contract';
import { cardWith } from './processor-specs';

/**
 * What an adapter of a hosted processor (KOMOJU, Stripe: one provider's API behind the port) keeps
 * beyond the port's contract, as one suite run on each adapter and its provider's fake: 3-D Secure
 * by redirect and back, a decline table, refusals for a payment's state, a wrong key, a closed
 * port, a 5xx capture retried into one, what it cannot do refused before anything is sent, konbini,
 * bank transfer (or its refusal, for a provider that takes none).
 * A third adapter gets all of it by one more entry: its spec calls this with its adapter and fake
 * (libs/processor/src/komoju and stripe/*-payment-processor.spec.ts are the two today).
 */
export interface HostedProcessorContractSetup extends ProcessorContractSetup {
  /** the adapter with another secret key (a wrong one) or base URL (a closed port) */
  processorWith(options: { secretKey?: string; baseUrl?: string }): PaymentProcessor;
  /** the key the adapter authenticates with: never in an error */
  secretKey: string;
  /** test cards the provider declines, and the SDK code each must come back as */
  declines: readonly (readonly [string, PaymentErrorName])[];
  /** the next POST answers a 5xx without being executed */
  failNextRequest(): void;
  /** operations the provider executed so far */
  executed(): { create: number; capture: number };
  /** whether a partial capture is sent (true) or refused before sending (false) */
  partialCapture: boolean;
  threeDs: {
    /** a card the provider asks to authenticate */
    card: string;
    /** whether a charge may ask for 3-D Secure itself (mode require) */
    requests: boolean;
    /** authentications the provider ended for this payment */
    authentications(processorReference: string): number;
  };
  konbini: {
    /** a ConvenienceStore the provider takes, and one it does not */
    store: string;
    refusedStore: string;
    /** what the payment code looks like */
    paymentCode: RegExp;
    /** the customer pays at the store */
    pay(processorReference: string): unknown;
  };
  /** null: the provider takes no bank transfer, refused before anything is sent */
  bankTransfer: {
    /** a transfer of `amount` arrives in the payment's virtual account */
    deposit(processorReference: string, amount: number): unknown;
    /** whether a transfer of less than the amount is applied and reported as a deposit */
    partialFunding: boolean;
  } | null;
}

/** What the KOMOJU and Stripe fakes both offer, as the suite's setup reads them. */
export interface HostedProviderFake {
  createdFor(reference: string): number;
  failNext(count: number): void;
  delayNext(count: number, ms: number): void;
  executed: { create: number; capture: number };
  authentications: Map<string, number>;
}

/**
 * The setup's entries every hosted provider's fake gives alike: payments counted by reference, a
 * 5xx before an authorization (of `cards.retried`) or any POST, an authorization (of `cards.late`)
 * answered after three client timeouts, what was executed, authentications ended. `fake` is read
 * when a test runs (the spec starts it in beforeAll).
 */
export function hostedFakeSetup(
  fake: () => HostedProviderFake,
  cards: { retried: string; late: string },
  clientTimeoutMs: number,
): Pick<
  HostedProcessorContractSetup,
  'paymentsExecuted' | 'failNextAuthorization' | 'lateNextAuthorization' | 'failNextRequest' | 'executed'
> & { authentications(processorReference: string): number } {
  return {
    paymentsExecuted: (reference) => fake().createdFor(reference),
    failNextAuthorization: () => {
      fake().failNext(1);
      return cards.retried;
    },
    lateNextAuthorization: () => {
      fake().delayNext(1, clientTimeoutMs * 3);
      return cards.late;
    },
    failNextRequest: () => fake().failNext(1),
    executed: () => fake().executed,
    authentications: (id) => fake().authentications.get(id) ?? 0,
  };
}

const RETURN_URL = 'https://kessai.example.test/processor/three_ds/return/charge';

/** POSTs the cardholder's choice to the provider's 3-D Secure page as a browser would, not following the redirect. */
async function endAuthentication(issuerToken: string, result: 'authenticated' | 'failed') {
  const page = await fetch(issuerToken);
  expect(page.status).toBe(200);
  await page.text();
  const answer = await fetch(issuerToken, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ result }).toString(),
    redirect: 'manual',
  });
  await answer.text();
  return answer;
}

export function describeHostedProcessorContract(name: string, setup: HostedProcessorContractSetup): void {
  describeProcessorContract(name, setup);

  const authorization = (number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
    reference: randomUUID(),
    amount: 1000,
    currency: setup.currency,
    capture: true,
    paymentMethod: { type: 'card', card: cardWith(number, { cvv: '987' }) },
    ...overrides,
  });
  const withReturn = (mode: 'normal' | 'require' = 'normal') => ({
    threeDs: { mode, returnUrl: RETURN_URL },
  });
  const processor = () => setup.processor();

  describe(`${name}: 3-D Secure by redirect`, () => {
    it.each([
      [true, 'captured'],
      [false, 'authorized'],
    ] as const)(
      'capture %s: the cardholder is sent to the provider and back; authenticated, the payment is %s, once',
      async (capture, status) => {
        const request = authorization(setup.threeDs.card, { capture, ...withReturn() });
        const result = await processor().authorize(request);
        if (result.outcome !== 'three_ds_required')
          throw new Error(`expected 3-D Secure, got ${result.outcome}`);
        expect(result.threeDs).toMatchObject({ callMethod: 'http_get', payload: {} });
        expect(await processor().status(request.reference)).toMatchObject({
          found: true,
          payment: { kind: 'card', status: 'pending_authentication', capturedAmount: 0 },
        });
        const back = await endAuthentication(result.threeDs.issuerToken, 'authenticated');
        expect(back.status).toBe(302);
        expect(back.headers.get('location')).toMatch(new RegExp(`^${RETURN_URL}(\\?|$)`));
        const done = {
          found: true,
          payment: {
            status,
            capturedAmount: capture ? 1000 : 0,
            processorReference: result.processorReference,
          },
        };
        expect(await processor().status(request.reference)).toMatchObject(done);
        // the browser's repeat (a reload, a back button) changes nothing
        expect((await endAuthentication(result.threeDs.issuerToken, 'failed')).status).toBe(302);
        expect(await processor().status(request.reference)).toMatchObject(done);
        expect(setup.threeDs.authentications(result.processorReference)).toBe(1);
        // a retry of the authorization after a lost answer is the same payment, executed once
        expect((await processor().authorize(request)).processorReference).toBe(result.processorReference);
        expect(setup.paymentsExecuted(request.reference)).toBe(1);
      },
    );

    it('a failed authentication declines the payment THREE_DS_COULD_NOT_BE_COMPLETED', async () => {
      const request = authorization(setup.threeDs.card, withReturn());
      const result = await processor().authorize(request);
      if (result.outcome !== 'three_ds_required')
        throw new Error(`expected 3-D Secure, got ${result.outcome}`);
      await endAuthentication(result.threeDs.issuerToken, 'failed');
      expect(await processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'declined', error: { message: 'THREE_DS_COULD_NOT_BE_COMPLETED' } },
      });
    });

    it('without a return route (or with 3-D Secure skipped) the card is declined 358, never left waiting', async () => {
      for (const threeDs of [undefined, { mode: 'skip' as const, returnUrl: RETURN_URL }]) {
        const result = await processor().authorize(authorization(setup.threeDs.card, { threeDs }));
        expect(result).toMatchObject({
          outcome: 'declined',
          error: { message: 'THREE_DS_COULD_NOT_BE_COMPLETED' },
        });
      }
    });

    it(
      setup.threeDs.requests
        ? 'a charge asking for 3-D Secure (mode require) sends an ordinary card to authenticate'
        : 'a charge asking for 3-D Secure (mode require) is refused before anything is sent',
      async () => {
        const created = setup.executed().create;
        const attempt = processor().authorize(authorization(setup.approvedCard, withReturn('require')));
        if (setup.threeDs.requests) {
          expect(await attempt).toMatchObject({ outcome: 'three_ds_required' });
        } else {
          await expect(attempt).rejects.toMatchObject({ type: 'unsupported', retryable: false });
          expect(setup.executed().create).toBe(created);
        }
      },
    );
  });

  describe(`${name}: the provider's answers`, () => {
    it.each(setup.declines)('maps the decline of test card %s to %s', async (number, code) => {
      const result = await processor().authorize(authorization(number));
      expect(result).toMatchObject({ outcome: 'declined', error: { message: code } });
    });

    it('answers a capture of a captured payment, or a cancel of one, as refused for its state', async () => {
      const paid = await processor().authorize(authorization(setup.approvedCard));
      expect(
        await processor().capture({
          processorReference: paid.processorReference,
          idempotencyKey: randomUUID(),
          amount: 1000,
          currency: setup.currency,
        }),
      ).toMatchObject({ outcome: 'rejected', error: { message: 'CHARGE_INVALID_DATA' } });
      expect(
        await processor().void({ processorReference: paid.processorReference, idempotencyKey: randomUUID() }),
      ).toMatchObject({ outcome: 'rejected', error: { message: 'CANCEL_UNAVAILABLE' } });
    });

    it(
      setup.partialCapture
        ? 'captures part of an authorization (the provider releases the rest)'
        : 'refuses a partial capture before sending anything',
      async () => {
        const held = await processor().authorize(authorization(setup.approvedCard, { capture: false }));
        const captures = setup.executed().capture;
        const result = await processor().capture({
          processorReference: held.processorReference,
          idempotencyKey: randomUUID(),
          amount: 600,
          currency: setup.currency,
        });
        if (setup.partialCapture) {
          expect(result).toEqual({ outcome: 'captured', capturedAmount: 600 });
        } else {
          expect(result).toMatchObject({
            outcome: 'rejected',
            error: { message: 'PARTIAL_CAPTURE_NOT_SUPPORTED' },
          });
          expect(setup.executed().capture).toBe(captures);
        }
      },
    );

    it('throws a refused request (a wrong secret key) as final, never echoing the card or a key', async () => {
      const wrongKey = setup.processorWith({ secretKey: 'sk_wrong' });
      const failure = await wrongKey.authorize(authorization(setup.approvedCard)).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ProcessorRequestRejectedError);
      expect(failure).toMatchObject({ httpStatus: 401, retryable: false });
      const text = inspect(failure);
      for (const secret of [setup.approvedCard, '987', 'sk_wrong', setup.secretKey])
        expect(text).not.toContain(secret);
    });

    it('throws a connection refused as transient (network), provably unexecuted', async () => {
      const closed = setup.processorWith({ baseUrl: 'http://127.0.0.1:1' });
      await expect(closed.authorize(authorization(setup.approvedCard))).rejects.toMatchObject({
        kind: 'network',
        retryable: true,
        unexecuted: 'connection_refused',
      });
    });

    it('throws a name that does not resolve as transient (network), provably unexecuted', async () => {
      // .invalid never resolves (RFC 6761)
      const nowhere = setup.processorWith({ baseUrl: 'http://kessai-processor.invalid' });
      await expect(nowhere.authorize(authorization(setup.approvedCard))).rejects.toMatchObject({
        kind: 'network',
        retryable: true,
        unexecuted: 'dns_failure',
      });
    });

    it('retries a 5xx capture with the same key into one capture', async () => {
      const held = await processor().authorize(authorization(setup.approvedCard, { capture: false }));
      const request = {
        processorReference: held.processorReference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: setup.currency,
      };
      const captures = setup.executed().capture;
      // the capture reads the payment first (a GET, never failed), then POSTs
      setup.failNextRequest();
      await expect(processor().capture(request)).rejects.toBeInstanceOf(TransientProcessorError);
      expect(await processor().capture(request)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
      expect(await processor().capture(request)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
      expect(setup.executed().capture).toBe(captures + 1);
    });
  });

  describe(`${name}: konbini and what the provider cannot do`, () => {
    const deferred = (overrides: Partial<DeferredPaymentRequest> = {}): DeferredPaymentRequest => ({
      reference: randomUUID(),
      amount: 2500,
      currency: setup.currency,
      method: {
        type: 'konbini',
        convenienceStore: setup.konbini.store,
        customerName: 'Taro',
        phoneNumber: null,
      },
      expiresOn: new Date(Date.now() + 3 * 86_400_000),
      callbackUrl: 'http://127.0.0.1/unused',
      customerEmail: 'taro@example.com',
      ...overrides,
    });

    it('gives the slip to pay at the store; paid, status says captured with one deposit', async () => {
      const request = deferred();
      const created = await processor().createDeferredPayment(request);
      const slip = created.instructions;
      if (slip.type !== 'konbini') throw new Error(`expected a konbini slip, got ${slip.type}`);
      expect(slip.convenienceStore).toBe(setup.konbini.store);
      expect(slip.paymentCode).toMatch(setup.konbini.paymentCode);
      expect(slip.receiptNumber).toMatch(/^\d{11}$/);
      expect(await processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'konbini', status: 'awaiting_payment', deposits: [] },
      });
      await setup.konbini.pay(created.processorReference);
      expect(await processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'captured', deposits: [{ id: created.processorReference, amount: 2500 }] },
      });
      // a retry after a lost answer is the same payment
      expect((await processor().createDeferredPayment(request)).processorReference).toBe(
        created.processorReference,
      );
      expect(setup.paymentsExecuted(request.reference)).toBe(1);
    });

    it(`refuses before sending anything: QR, ${setup.bankTransfer ? '' : 'bank transfer, '}a konbini store it does not take`, async () => {
      const created = setup.executed().create;
      await expect(
        processor().authorize(
          authorization(setup.approvedCard, { paymentMethod: { type: 'qr_scan', scannedQr: 'x' } }),
        ),
      ).rejects.toBeInstanceOf(ProcessorRequestRejectedError);
      if (!setup.bankTransfer)
        await expect(
          processor().createDeferredPayment(
            deferred({ method: { type: 'bank_transfer', brand: 'aozora_bank' } }),
          ),
        ).rejects.toMatchObject({ type: 'unsupported' });
      await expect(
        processor().createDeferredPayment(
          deferred({
            method: {
              type: 'konbini',
              convenienceStore: setup.konbini.refusedStore,
              customerName: 'Taro',
              phoneNumber: null,
            },
          }),
        ),
      ).rejects.toMatchObject({ type: 'unsupported' });
      expect(setup.executed().create).toBe(created);
    });
  });

  const bankTransfer = setup.bankTransfer;
  if (!bankTransfer) return;
  describe(`${name}: bank transfer`, () => {
    const transfer = (): DeferredPaymentRequest => ({
      reference: randomUUID(),
      amount: 2500,
      currency: setup.currency,
      method: { type: 'bank_transfer', brand: 'aozora_bank' },
      expiresOn: new Date(Date.now() + 3 * 86_400_000),
      callbackUrl: 'http://127.0.0.1/unused',
      customerEmail: 'taro@example.com',
    });

    // the processor decides no match: status reports the transfers, the charge's rule judges them
    it('gives the virtual account to transfer to; the amount arrived, status reports it as deposits', async () => {
      const request = transfer();
      const created = await processor().createDeferredPayment(request);
      const account = created.instructions;
      if (account.type !== 'bank_transfer') throw new Error(`expected a bank account, got ${account.type}`);
      expect(account.bankCode).toMatch(/^\d{4}$/);
      expect(account.branchCode).toMatch(/^\d{3}$/);
      expect(account.accountNumber).toMatch(/^\d{7}$/);
      expect(account.accountHolderName).not.toBe('');
      expect(account.accountId).not.toBe('');
      expect(account.paymentUrl).toMatch(/^https?:\/\//);
      expect(await processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'bank_transfer', status: 'awaiting_payment', deposits: [] },
      });
      // a retry after a lost answer is the same payment, with the same account
      const again = await processor().createDeferredPayment(request);
      expect(again).toEqual(created);
      expect(setup.paymentsExecuted(request.reference)).toBe(1);
      await bankTransfer.deposit(created.processorReference, 2500);
      const paid = await processor().status(request.reference);
      expect(paid).toMatchObject({
        found: true,
        payment: { status: 'awaiting_payment', deposits: [{ amount: 2500 }] },
      });
    });

    it(
      bankTransfer.partialFunding
        ? 'reports each transfer as its own deposit: less than the amount leaves it awaiting, the rest pays it'
        : 'pays a transfer once, in full',
      async () => {
        const request = transfer();
        const created = await processor().createDeferredPayment(request);
        if (!bankTransfer.partialFunding) {
          await bankTransfer.deposit(created.processorReference, 2500);
          expect(await processor().status(request.reference)).toMatchObject({
            found: true,
            payment: { status: 'awaiting_payment', deposits: [{ amount: 2500 }] },
          });
          return;
        }
        await bankTransfer.deposit(created.processorReference, 1000);
        const partly = await processor().status(request.reference);
        expect(partly).toMatchObject({
          found: true,
          payment: { status: 'awaiting_payment', deposits: [{ amount: 1000 }] },
        });
        // the same answer when asked again: a deposit keeps its id
        expect(await processor().status(request.reference)).toEqual(partly);
        await bankTransfer.deposit(created.processorReference, 1500);
        const paid = await processor().status(request.reference);
        if (!paid.found || !partly.found) throw new Error('the payment went missing');
        expect(paid.payment.status).toBe('awaiting_payment');
        expect(paid.payment.deposits.map((deposit) => deposit.amount)).toEqual([1000, 1500]);
        expect(paid.payment.deposits[0].id).toBe(partly.payment.deposits[0].id);
        expect(new Set(paid.payment.deposits.map((deposit) => deposit.id)).size).toBe(2);
      },
    );

    it('voids a transfer nobody paid; status says voided', async () => {
      const request = transfer();
      const created = await processor().createDeferredPayment(request);
      expect(
        await processor().void({
          processorReference: created.processorReference,
          idempotencyKey: randomUUID(),
        }),
      ).toEqual({ outcome: 'voided' });
      expect(await processor().status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'bank_transfer', status: 'voided' },
      });
    });
  });
}
