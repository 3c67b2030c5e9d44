import { randomInt, randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  deferredPaymentRequestWireSchema,
  type DeferredPaymentRequestWire,
  type PaymentInstructionsWire,
  type ProcessorCallbackWire,
} from '@kessai/processor';
import { idempotencyKeyOf, parseJson, readBody, sendError, sendHtml, sendJson } from './http-io';
import { answeredAlready, executeOnce, requestHash } from './idempotency';
import { bankCounterPage, konbiniSlipPage, notFoundPage } from './pages';
import { type Route, type SimulatorContext } from './simulator-context';
import { newSimulatedPayment, paymentToWire, type SimulatedPayment } from './simulator-state';

/** The test bank behind every BankTransferBrand in test mode (docs/processor-simulator.md). */
export const TEST_BANKS: Record<string, { bankCode: string; bankName: string }> = {
  bank_test_brand: { bankCode: '9999', bankName: 'Kessai Test Bank' },
  aozora_bank: { bankCode: '0310', bankName: 'GMO Aozora Net Bank (simulated)' },
};
const TEST_BRANCH = { branchCode: '101', branchName: 'Test Branch' };
const ACCOUNT_HOLDER = 'KESSAI TEST';

/** A transfer or a konbini payment: which account or code, and how much (any amount, as in life). */
const paySchema = z.object({
  pay_key: z.string().regex(/^\d{6,20}$/),
  amount: z.coerce.number().int().positive().safe(),
});
/** The field naming what is paid: a bank transfer goes to an account number, a konbini payment to a code. */
const PAY_KEY_FIELD = { bank_transfer: 'account_number', konbini: 'payment_code' } as const;

/**
 * A test bank and a test konbini network. `POST /v1/deferred-payments` gives a payment its virtual
 * account or payment code; customers (tests, people at the pages) then pay any amount, any number
 * of times, with `POST /bank/transfers` or `POST /konbini/payments`, and each payment is posted to
 * the callback URL as a signed `deferred_payment` notice. Whether the money pays the charge is
 * Kessai's decision (match_amount), not the bank's: the payment stays awaiting_payment and lists
 * its deposits until Kessai voids it (at its expiry); money sent after that is refused (410).
 */
export class DeferredPaymentRoutes {
  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      { method: 'POST', pattern: /^\/v1\/deferred-payments$/, handle: (req, res) => this.#create(req, res) },
      {
        method: 'GET',
        pattern: /^\/bank$/,
        handle: (_req, res, _params, url) =>
          sendHtml(res, 200, bankCounterPage(undefined, url.searchParams.get('account_number') ?? '')),
      },
      {
        method: 'POST',
        pattern: /^\/bank\/transfers$/,
        handle: (req, res) => this.#pay(req, res, 'bank_transfer'),
      },
      {
        method: 'GET',
        pattern: /^\/konbini\/slip\/(\d+)$/,
        handle: (_req, res, [code]) => this.#showSlip(res, code),
      },
      {
        method: 'POST',
        pattern: /^\/konbini\/payments$/,
        handle: (req, res) => this.#pay(req, res, 'konbini'),
      },
    ];
  }

  async #create(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { state } = this.context;
    const key = idempotencyKeyOf(request);
    const body = parseJson(await readBody(request), deferredPaymentRequestWireSchema);
    const hash = requestHash(body);
    const record = state.recordRequest('create_deferred_payment', key, hash);
    if (answeredAlready(record, hash, response)) return;
    if (state.byReference(body.reference)) {
      return sendError(response, 409, 'reference_in_use', 'another request already used this reference');
    }
    if (body.method.type === 'bank_transfer' && !TEST_BANKS[body.method.brand]) {
      return sendError(response, 400, 'invalid_request', 'method.brand: unknown bank');
    }
    const answer = executeOnce(record, () => {
      const payment = newSimulatedPayment(body.reference, body.method.type, body.amount, body.currency, true);
      payment.status = 'awaiting_payment';
      const payKey = this.#newPayKey(body.method.type === 'bank_transfer' ? 7 : 12);
      payment.deferred = {
        instructions: this.#instructions(body, payKey),
        payKey,
        expiresAt: new Date(body.expires_on),
        callbackUrl: body.callback_url,
        deposits: [],
      };
      state.addPayment(payment);
      return { status: 200, body: { outcome: 'created', payment: paymentToWire(payment) } };
    });
    sendJson(response, answer.status, answer.body);
  }

  #instructions(body: DeferredPaymentRequestWire, payKey: string): PaymentInstructionsWire {
    if (body.method.type === 'bank_transfer') {
      const bank = TEST_BANKS[body.method.brand] ?? { bankCode: '9999', bankName: 'Kessai Test Bank' };
      return {
        type: 'bank_transfer',
        bank_code: bank.bankCode,
        bank_name: bank.bankName,
        branch_code: TEST_BRANCH.branchCode,
        branch_name: TEST_BRANCH.branchName,
        account_id: `sim_va_${randomUUID()}`,
        account_number: payKey,
        account_holder_name: ACCOUNT_HOLDER,
        payment_url: `${this.context.publicBaseUrl()}/bank?account_number=${payKey}`,
      };
    }
    return {
      type: 'konbini',
      convenience_store: body.method.convenience_store,
      payment_code: payKey,
      receipt_number: `R${randomInt(10 ** 9, 10 ** 10 - 1)}`,
      payment_url: `${this.context.publicBaseUrl()}/konbini/slip/${payKey}`,
    };
  }

  /** A virtual account number or payment code of `digits` digits not given out before. */
  #newPayKey(digits: number): string {
    for (;;) {
      const key = String(randomInt(10 ** (digits - 1), 10 ** digits - 1));
      if (!this.context.state.payKeyTaken(key)) return key;
    }
  }

  #showSlip(response: ServerResponse, paymentCode: string): void {
    const payment = this.context.state.byPayKey(paymentCode);
    if (!payment || payment.kind !== 'konbini') return sendHtml(response, 404, notFoundPage());
    sendHtml(response, payment.status === 'awaiting_payment' ? 200 : 410, konbiniSlipPage(payment));
  }

  /**
   * Money arrives: JSON `{pay_key, amount}` answers JSON; the pages' forms answer a page. Every call
   * is a new transfer (a bank does not deduplicate customers' transfers).
   */
  async #pay(
    request: IncomingMessage,
    response: ServerResponse,
    kind: 'bank_transfer' | 'konbini',
  ): Promise<void> {
    const text = await readBody(request);
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const fields = isForm ? Object.fromEntries(new URLSearchParams(text)) : null;
    let raw: unknown;
    try {
      raw = fields ?? (JSON.parse(text) as unknown);
    } catch {
      raw = null;
    }
    const record = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const parsed = paySchema.safeParse({ pay_key: record[PAY_KEY_FIELD[kind]], amount: record.amount });
    if (!parsed.success) {
      const message = `${PAY_KEY_FIELD[kind]} (digits) and a positive integer amount are required`;
      return fields
        ? sendHtml(response, 400, notFoundPage())
        : sendError(response, 400, 'invalid_request', message);
    }
    const input = parsed.data;
    const payment = this.context.state.byPayKey(input.pay_key);
    if (!payment?.deferred || payment.kind !== kind) {
      return fields
        ? sendHtml(response, 404, notFoundPage())
        : sendError(response, 404, 'not_found', 'no payment has this account number or code');
    }
    if (payment.status !== 'awaiting_payment') {
      return fields
        ? sendHtml(response, 410, konbiniSlipPage(payment))
        : sendError(response, 410, 'payment_closed', `the payment is ${payment.status}`);
    }
    const deposit = { id: `sim_dep_${randomUUID()}`, amount: input.amount, receivedOn: new Date() };
    payment.deferred.deposits.push(deposit);
    this.#notify(payment, deposit);
    if (fields)
      return sendHtml(
        response,
        200,
        kind === 'konbini' ? konbiniSlipPage(payment) : bankCounterPage(deposit),
      );
    sendJson(response, 200, { deposit_id: deposit.id, payment: paymentToWire(payment) });
  }

  #notify(payment: SimulatedPayment, deposit: { id: string; amount: number; receivedOn: Date }): void {
    if (!payment.deferred) return;
    const notice: ProcessorCallbackWire = {
      id: randomUUID(),
      event: 'deferred_payment',
      payment_id: payment.id,
      reference: payment.reference,
      status: 'deposit_received',
      deposit_id: deposit.id,
      amount: deposit.amount,
      currency: payment.currency,
      occurred_on: deposit.receivedOn.toISOString(),
    };
    this.context.callbacks.deliver(payment.deferred.callbackUrl, notice);
  }
}
