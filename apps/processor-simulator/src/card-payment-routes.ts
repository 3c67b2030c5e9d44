import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type z } from 'zod';
import { detectCardBrand, type TestCardOutcome } from '@kessai/cards';
import {
  type ApplePayPaymentData,
  type AuthorizeRequestWire,
  authorizeRequestWireSchema,
  captureRequestWireSchema,
  paymentError,
  type PaymentErrorDetails,
  type PaymentErrorName,
  refundRequestWireSchema,
  voidRequestWireSchema,
} from '@kessai/processor';
import { cardOfApplePay, ISO_4217_NUMERIC } from './apple-pay';
import { decidePaidy } from './paidy-routes';
import {
  type AuthorizationDecision,
  cardOutcomeOf,
  decideCardAuthorization,
  decideQrScan,
} from './authorization-decisions';
import { idempotencyKeyOf, parseJson, readBody, sendError, sendJson } from './http-io';
import { answeredAlready, executeOnce, requestHash } from './idempotency';
import { type Route, type SimulatorContext } from './simulator-context';
import {
  approvePayment,
  newSimulatedPayment,
  paymentToWire,
  type SimulatedPayment,
  type SimulatorOperation,
  type StoredResponse,
} from './simulator-state';

/**
 * The acquirer: card and scanned-QR authorizations, status lookups, and capture, void and refund
 * of an existing payment, each idempotent on its key.
 */
export class CardPaymentRoutes {
  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      { method: 'POST', pattern: /^\/v1\/payments$/, handle: (req, res) => this.#authorize(req, res) },
      {
        method: 'GET',
        pattern: /^\/v1\/payments$/,
        handle: (_req, res, _params, url) => this.#lookup(res, url),
      },
      {
        method: 'POST',
        pattern: /^\/v1\/payments\/([^/]+)\/capture$/,
        handle: (req, res, [id]) => this.#operate(req, res, id, 'capture', captureRequestWireSchema, capture),
      },
      {
        method: 'POST',
        pattern: /^\/v1\/payments\/([^/]+)\/void$/,
        handle: (req, res, [id]) =>
          this.#operate(req, res, id, 'void', voidRequestWireSchema, (p) => this.#void(p)),
      },
      {
        method: 'POST',
        pattern: /^\/v1\/payments\/([^/]+)\/refunds$/,
        handle: (req, res, [id]) => this.#operate(req, res, id, 'refund', refundRequestWireSchema, refund),
      },
    ];
  }

  async #authorize(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { state, settings, timers } = this.context;
    const key = idempotencyKeyOf(request);
    const body = parseJson(await readBody(request), authorizeRequestWireSchema);
    const method = body.payment_method;
    // The CVV is left out of the comparison: a retry after a crash may no longer have it.
    const hash = requestHash(
      method.type === 'card'
        ? { ...body, payment_method: { ...method, card: { ...method.card, cvv: null } } }
        : body,
    );
    const record = state.recordRequest('authorize', key, hash);
    if (answeredAlready(record, hash, response)) return;
    if (state.byReference(body.reference)) {
      return sendError(response, 409, 'reference_in_use', 'another request already used this reference');
    }

    // Apple Pay: the payment data opened as the processor does, before anything is executed
    const applePay = method.type === 'apple_pay' ? this.#openApplePay(body, method.payment_data) : null;
    const card = method.type === 'card' ? method.card : (applePay?.card ?? null);
    const cardOutcome = card ? cardOutcomeOf(card) : null;
    if (cardOutcome === 'processor_unavailable' && record.requests <= settings.unavailableAttempts) {
      // Refused before any processing: nothing is executed, so a retry will process it.
      return sendError(response, 503, 'service_unavailable', 'the processor is temporarily unavailable');
    }

    const answer = executeOnce(record, () => this.#authorizeNow(body, card, applePay, cardOutcome));
    if (cardOutcome === 'processor_timeout' && record.requests === 1) {
      // Processed and recorded, but the answer is held past the client's timeout: the client
      // cannot tell whether it went through, and must retry or ask for the status.
      return timers.hold(settings.timeoutHoldMs, () => sendJson(response, answer.status, answer.body));
    }
    sendJson(response, answer.status, answer.body);
  }

  #authorizeNow(
    body: AuthorizeRequestWire,
    card: CardWire | null,
    applePay: OpenedApplePay | null,
    cardOutcome: TestCardOutcome | null,
  ): StoredResponse {
    const method = body.payment_method;
    const threeDsMode = body.three_ds?.mode ?? null;
    let decision: AuthorizationDecision;
    if (applePay) {
      // the device's cryptogram is the cardholder's authentication: no 3-D Secure is asked
      decision =
        applePay.refusal ?? decideCardAuthorization(applePay.card as CardWire, 'provided', new Date());
      if (decision.kind === 'approve' && applePay.transactionId)
        this.context.state.applePayTransactions.add(applePay.transactionId);
    } else if (method.type === 'paidy') {
      decision = decidePaidy(this.context.state.paidyTokens.get(method.token_id));
    } else {
      decision =
        method.type === 'qr_scan'
          ? decideQrScan(method.scanned_qr)
          : decideCardAuthorization(card as CardWire, threeDsMode, new Date());
    }
    // an Apple Pay payment is a card payment to the acquirer; a Paidy payment Paidy's
    const payment = newSimulatedPayment(
      body.reference,
      method.type === 'qr_scan' ? 'qr_scan' : method.type === 'paidy' ? 'operator' : 'card',
      body.amount,
      body.currency,
      body.capture,
    );
    if (card && cardOutcome) {
      payment.card = {
        brand: detectCardBrand(card.number),
        lastFour: card.number.slice(-4),
        outcome: cardOutcome,
      };
    }
    let outcome: 'approved' | 'declined' | 'three_ds_required';
    switch (decision.kind) {
      case 'approve':
        approvePayment(payment);
        outcome = 'approved';
        break;
      case 'decline':
        payment.status = 'declined';
        payment.error = decision.error;
        outcome = 'declined';
        break;
      case 'challenge':
        payment.status = 'pending_authentication';
        payment.threeDs = {
          challenge: {
            issuerToken: `${this.context.publicBaseUrl()}/3ds/${payment.id}`,
            callMethod: 'http_get',
            payload: {},
            contentType: 'application/x-www-form-urlencoded; charset=UTF-8',
          },
          redirectEndpoint: body.three_ds?.redirect_endpoint ?? null,
          callbackUrl: body.three_ds?.callback_url ?? null,
        };
        outcome = 'three_ds_required';
        break;
    }
    this.context.state.addPayment(payment);
    return { status: 200, body: { outcome, payment: paymentToWire(payment) } };
  }

  /**
   * Apple Pay payment data as the processor checks it: opened with the test merchant's key (a
   * failure is a decline, CARD_INVALID), made for this payment's amount and currency (else
   * CHARGE_INVALID_DATA), and not paid already (else DUPLICATE_TRANSACTION).
   */
  #openApplePay(body: AuthorizeRequestWire, paymentData: ApplePayPaymentData): OpenedApplePay {
    const opened = this.context.applePay.open(paymentData);
    if (!opened.ok)
      return { card: null, transactionId: null, refusal: decline('CARD_INVALID', opened.reason) };
    const card = cardOfApplePay(opened.data);
    const refusal =
      opened.data.transactionAmount !== body.amount ||
      opened.data.currencyCode !== ISO_4217_NUMERIC[body.currency]
        ? decline('CHARGE_INVALID_DATA', 'the payment data was made for another amount or currency')
        : this.context.state.applePayTransactions.has(opened.transactionId)
          ? decline('DUPLICATE_TRANSACTION', 'this payment data has paid already')
          : null;
    return { card, transactionId: opened.transactionId, refusal };
  }

  #lookup(response: ServerResponse, url: URL): void {
    const reference = url.searchParams.get('reference');
    if (!reference) return sendError(response, 400, 'invalid_request', 'reference is required');
    const payment = this.context.state.byReference(reference);
    if (!payment) return sendError(response, 404, 'not_found', 'no payment has this reference');
    sendJson(response, 200, { payment: paymentToWire(payment) });
  }

  /** The idempotent frame shared by capture, void and refund. */
  async #operate<S extends z.ZodTypeAny>(
    request: IncomingMessage,
    response: ServerResponse,
    paymentId: string,
    operation: SimulatorOperation,
    schema: S,
    carryOut: (payment: SimulatedPayment, body: z.infer<S>) => object,
  ): Promise<void> {
    const key = idempotencyKeyOf(request);
    const body = parseJson(await readBody(request), schema);
    const payment = this.context.state.payments.get(paymentId);
    if (!payment) return sendError(response, 404, 'not_found', 'no payment has this id');
    const hash = requestHash([paymentId, body]);
    const record = this.context.state.recordRequest(operation, key, hash);
    if (answeredAlready(record, hash, response)) return;
    const answer = executeOnce(record, () => ({ status: 200, body: carryOut(payment, body) }));
    sendJson(response, answer.status, answer.body);
  }

  #void(payment: SimulatedPayment): object {
    const voidable: readonly string[] = [
      'authorized',
      'captured',
      'pending_authentication',
      'awaiting_payment',
    ];
    if (!voidable.includes(payment.status) || payment.refundedAmount > 0) {
      return rejected(
        payment,
        paymentError('CANCEL_UNAVAILABLE', `cannot cancel a payment that is ${payment.status}`),
      );
    }
    if (payment.card?.outcome === 'void_fails') {
      return rejected(
        payment,
        paymentError('CANCEL_UNAVAILABLE', 'the issuer refused to cancel this payment'),
      );
    }
    payment.status = 'voided';
    this.context.timers.cancelExpiry(payment.id);
    return { outcome: 'voided', payment: paymentToWire(payment), error: null };
  }
}

/** One capture per authorization, partial allowed, never more than authorized. */
function capture(payment: SimulatedPayment, body: z.infer<typeof captureRequestWireSchema>): object {
  const refusal =
    payment.status !== 'authorized'
      ? `cannot capture a payment that is ${payment.status}`
      : body.currency !== payment.currency
        ? 'the currency differs from the authorization'
        : body.amount > payment.amount
          ? 'the capture amount exceeds the authorized amount'
          : null;
  if (refusal) return rejected(payment, paymentError('CHARGE_INVALID_DATA', refusal));
  payment.status = 'captured';
  payment.capturedAmount = body.amount;
  return { outcome: 'captured', payment: paymentToWire(payment), error: null };
}

/** Partial refunds up to what was captured; a refund_fails card (…4242) always fails. */
function refund(payment: SimulatedPayment, body: z.infer<typeof refundRequestWireSchema>): object {
  const refusal =
    payment.status !== 'captured'
      ? `cannot refund a payment that is ${payment.status}`
      : body.currency !== payment.currency
        ? 'the currency differs from the payment'
        : body.amount > payment.capturedAmount - payment.refundedAmount
          ? 'the refund exceeds the captured amount not yet refunded'
          : payment.card?.outcome === 'refund_fails'
            ? 'the issuer refused the refund'
            : null;
  if (refusal) return { ...rejected(payment, paymentError('REFUND_FAILED', refusal)), refund: null };
  payment.refundedAmount += body.amount;
  return {
    outcome: 'refunded',
    refund: { id: `sim_ref_${randomUUID()}`, amount: body.amount, currency: body.currency },
    payment: paymentToWire(payment),
    error: null,
  };
}

type CardWire = Extract<AuthorizeRequestWire['payment_method'], { type: 'card' }>['card'];

/** Apple Pay payment data opened: the card it carries, and a refusal found before the issuer is asked. */
interface OpenedApplePay {
  card: CardWire | null;
  transactionId: string | null;
  refusal: AuthorizationDecision | null;
}

function decline(name: PaymentErrorName, detail: string): AuthorizationDecision {
  return { kind: 'decline', error: paymentError(name, detail) };
}

function rejected(payment: SimulatedPayment, error: PaymentErrorDetails) {
  return { outcome: 'rejected', payment: paymentToWire(payment), error };
}
