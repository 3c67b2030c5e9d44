import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  operatorPaymentRequestWireSchema,
  paymentError,
  type ProcessorCallbackWire,
} from '@kessai/processor';
import { idempotencyKeyOf, parseJson, readBody, redirect, sendError, sendHtml, sendJson } from './http-io';
import { answeredAlready, executeOnce, requestHash } from './idempotency';
import { notFoundPage, operatorPaymentPage } from './pages';
import { type Route, type SimulatorContext } from './simulator-context';
import { newSimulatedPayment, paymentToWire, type SimulatedPayment } from './simulator-state';

/**
 * An online/QR wallet operator: a payment waits on a page of the simulator until the customer
 * pays it there or it expires; either way the operator posts a signed notice to the callback URL.
 */
export class OperatorPaymentRoutes {
  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      { method: 'POST', pattern: /^\/v1\/operator-payments$/, handle: (req, res) => this.#create(req, res) },
      {
        method: 'GET',
        pattern: /^\/operator\/pay\/([^/]+)$/,
        handle: (_req, res, [id]) => this.#showPage(res, id),
      },
      {
        method: 'POST',
        pattern: /^\/operator\/pay\/([^/]+)$/,
        handle: (req, res, [id]) => this.#pay(req, res, id),
      },
    ];
  }

  async #create(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { state, settings } = this.context;
    const key = idempotencyKeyOf(request);
    const body = parseJson(await readBody(request), operatorPaymentRequestWireSchema);
    const hash = requestHash(body);
    const record = state.recordRequest('create_operator_payment', key, hash);
    if (answeredAlready(record, hash, response)) return;
    if (state.byReference(body.reference)) {
      return sendError(response, 409, 'reference_in_use', 'another request already used this reference');
    }
    const answer = executeOnce(record, () => {
      const payment = newSimulatedPayment(body.reference, 'operator', body.amount, body.currency, true);
      const operatorPaymentId = `sim_op_${randomUUID()}`;
      payment.status = 'awaiting_payment';
      payment.operator = {
        operatorPaymentId,
        brand: body.brand,
        paymentUrl: `${this.context.publicBaseUrl()}/operator/pay/${operatorPaymentId}`,
        expiresAt: new Date(Date.now() + settings.operatorPaymentTtlMs),
        callbackUrl: body.callback_url,
        returnUrl: body.return_url,
      };
      state.addPayment(payment);
      this.context.timers.expireLater(payment.id, settings.operatorPaymentTtlMs, () => this.#expire(payment));
      return { status: 200, body: { outcome: 'created', payment: paymentToWire(payment) } };
    });
    sendJson(response, answer.status, answer.body);
  }

  #showPage(response: ServerResponse, operatorPaymentId: string): void {
    const payment = this.context.state.byOperatorPaymentId(operatorPaymentId);
    if (!payment) return sendHtml(response, 404, notFoundPage());
    sendHtml(response, payment.status === 'expired' ? 410 : 200, operatorPaymentPage(payment));
  }

  async #pay(request: IncomingMessage, response: ServerResponse, operatorPaymentId: string): Promise<void> {
    await readBody(request);
    const payment = this.context.state.byOperatorPaymentId(operatorPaymentId);
    if (!payment?.operator) return sendHtml(response, 404, notFoundPage());
    if (payment.status === 'captured') return sendHtml(response, 200, operatorPaymentPage(payment));
    if (payment.status !== 'awaiting_payment') return sendHtml(response, 410, operatorPaymentPage(payment));

    payment.status = 'captured';
    payment.capturedAmount = payment.amount;
    this.context.timers.cancelExpiry(payment.id);
    this.#notify(payment, 'paid');
    if (payment.operator.returnUrl) return redirect(response, payment.operator.returnUrl);
    sendHtml(response, 200, operatorPaymentPage(payment));
  }

  #expire(payment: SimulatedPayment): void {
    if (payment.status !== 'awaiting_payment') return;
    payment.status = 'expired';
    payment.error = paymentError('CONFIRMATION_PERIOD_EXPIRED', 'the customer did not pay in time');
    this.#notify(payment, 'expired');
  }

  #notify(payment: SimulatedPayment, status: 'paid' | 'expired'): void {
    if (!payment.operator) return;
    const notice: ProcessorCallbackWire = {
      id: randomUUID(),
      event: 'operator_payment',
      operator_payment_id: payment.operator.operatorPaymentId,
      payment_id: payment.id,
      reference: payment.reference,
      status,
      amount: payment.amount,
      currency: payment.currency,
      occurred_on: new Date().toISOString(),
    };
    this.context.callbacks.deliver(payment.operator.callbackUrl, notice);
  }
}
