import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { paymentError } from '@kessai/processor';
import { readBody, redirect, sendHtml } from './http-io';
import { notFoundPage, threeDsChallengePage } from './pages';
import { type Route, type SimulatorContext } from './simulator-context';
import { approvePayment, type SimulatedPayment } from './simulator-state';

/**
 * The issuer's 3-D Secure page (an ACS): the customer authenticates or fails, the payment is
 * approved or declined, the browser goes back to the merchant and a signed notice is posted.
 */
export class ThreeDsRoutes {
  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      { method: 'GET', pattern: /^\/3ds\/([^/]+)$/, handle: (_req, res, [id]) => this.#showPage(res, id) },
      {
        method: 'POST',
        pattern: /^\/3ds\/([^/]+)$/,
        handle: (req, res, [id]) => this.#complete(req, res, id),
      },
    ];
  }

  #showPage(response: ServerResponse, paymentId: string): void {
    const payment = this.context.state.payments.get(paymentId);
    if (!payment?.threeDs) return sendHtml(response, 404, notFoundPage());
    sendHtml(response, 200, threeDsChallengePage(payment));
  }

  async #complete(request: IncomingMessage, response: ServerResponse, paymentId: string): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const payment = this.context.state.payments.get(paymentId);
    if (!payment?.threeDs) return sendHtml(response, 404, notFoundPage());
    if (payment.status === 'pending_authentication') {
      if (form.get('result') === 'authenticated') approvePayment(payment);
      else {
        payment.status = 'declined';
        payment.error = paymentError(
          'THREE_DS_COULD_NOT_BE_COMPLETED',
          'the cardholder failed authentication',
        );
      }
      this.#notify(payment);
    }
    if (payment.threeDs.redirectEndpoint) return redirect(response, payment.threeDs.redirectEndpoint);
    sendHtml(response, 200, threeDsChallengePage(payment));
  }

  #notify(payment: SimulatedPayment): void {
    const url = payment.threeDs?.callbackUrl;
    const status = payment.status;
    if (!url || (status !== 'authorized' && status !== 'captured' && status !== 'declined')) return;
    this.context.callbacks.deliver(url, {
      id: randomUUID(),
      event: 'three_ds',
      payment_id: payment.id,
      reference: payment.reference,
      status,
      error: payment.error,
      occurred_on: new Date().toISOString(),
    });
  }
}
