import { type z } from 'zod';
import { checkWireAmount } from '../amounts';
import { keepAliveTransport, type ProcessorTransport } from '../http/keep-alive-transport';
import { exchangeWithProcessor, jsonBodyOf } from '../http/processor-exchange';
import { paymentError, type PaymentErrorName } from '../payment-errors';
import {
  type AuthorizeRequest,
  type AuthorizeResult,
  type CaptureRequest,
  type CaptureResult,
  type DeferredPaymentRequest,
  type DeferredPaymentResult,
  type OperatorPaymentRequest,
  type OperatorPaymentResult,
  type PaymentProcessor,
  type PaymentStatusResult,
  type ProcessorPayment,
  type ProcessorPaymentStatus,
  type RefundRequest,
  type RefundResult,
  type VoidRequest,
  type VoidResult,
} from '../payment-processor';
import {
  ProcessorRequestRejectedError,
  type ProcessorOperation,
  TransientProcessorError,
} from '../processor-errors';
import {
  captureMismatch,
  cardToAuthorize,
  konbiniToCreate,
  REDIRECT_CONTENT_TYPE,
  threeDsReturnUrlOf,
  unsupported,
} from '../hosted-processor-limits';
import { komojuErrorDisposition, komojuPaymentError } from './komoju-errors';
import {
  KOMOJU_KONBINI_STORES,
  KOMOJU_ONLINE_BRANDS,
  komojuErrorBodySchema,
  type KomojuPayment,
  komojuPaymentListSchema,
  komojuPaymentSchema,
} from './komoju-wire';

export const KOMOJU_API_URL = 'https://komoju.com/api/v1';

/** KOMOJU's idempotency header (https://doc.komoju.com/docs/idempotent-requests): at most 100 ASCII characters. */
export const KOMOJU_IDEMPOTENCY_HEADER = 'x-komoju-idempotency';

export interface KomojuPaymentProcessorOptions {
  /** the account's secret key (sk_…): HTTP Basic user name, empty password */
  secretKey: string;
  /** https://komoju.com/api/v1 unless a test points it at a fake */
  baseUrl?: string;
  timeoutMs?: number;
  fetch?: ProcessorTransport;
}

/**
 * What KOMOJU can do of the port, for the gateway to refuse the rest at creation with the SDK's
 * error code (docs/connectors.md, "Unsupported"): a call outside it is refused by the adapter too
 * (ProcessorRequestRejectedError, nothing sent), never sent to fail later.
 */
export const KOMOJU_CAPABILITIES = {
  /** Capture takes the whole authorization only: KOMOJU's capture documents no remainder rule. */
  partialCapture: false,
  /**
   * 3-D Secure when KOMOJU asks for it: a payment `pending` with payment_details.redirect_url, the
   * customer sent there and back to `return_url` (docs/connectors.md, "3-D Secure").
   */
  threeDsRedirect: true,
  /** KOMOJU's Payments API takes no request to authenticate a card it would not: mode require/force is refused. */
  threeDsRequests: false,
  /**
   * Online payments of the brands KOMOJU takes (PayPay, yen only), by redirect to KOMOJU's
   * payment_details.redirect_url; every other online brand, and QR codes, are refused.
   */
  operatorPayments: true,
  onlineBrands: KOMOJU_ONLINE_BRANDS,
  /** KOMOJU's bank transfer needs the customer's name in kanji and kana and a phone: the API's token has none. */
  bankTransfer: false,
  konbiniStores: Object.keys(KOMOJU_KONBINI_STORES),
  /**
   * A card token's own 3-D Secure (a 1-yen hold the cardholder authenticates, decision 0079): no
   * return route takes a token's reference back from KOMOJU's redirect, and KOMOJU's webhooks for a
   * token's reference are not read, so a challenge could never complete. Refused at token creation.
   */
  tokenThreeDs: false,
  /**
   * A card token's CVV authorization, a hold of 1 (minor unit) and its void (decisions 0064, 0079):
   * KOMOJU documents no minimum amount and has not been shown to take a 1-yen hold with 3-D Secure
   * skipped. Refused at token creation until the live suite shows it.
   */
  smallestHold: false,
} as const;

type Answer =
  { kind: 'ok'; body: unknown } | { kind: 'error'; status: number; code?: string; message?: string };

const DEFAULT_TIMEOUT_MS = 10_000;

/** An online payment's expiry after its creation when KOMOJU names no payment_deadline; Kessai's own deadline decides anyway. */
const DEFAULT_ONLINE_EXPIRY_MS = 30 * 60_000;

/**
 * The PaymentProcessor port on KOMOJU's Payments API (https://doc.komoju.com/reference), JSON over
 * HTTPS with the secret key as HTTP Basic user (https://doc.komoju.com/docs/authentication).
 *
 * - Every state-changing call carries X-KOMOJU-IDEMPOTENCY: the charge id for a payment, our
 *   capture's, cancel's or refund's id otherwise. KOMOJU executes each key once and answers repeats
 *   with the first answer; a repeat while the first is still running gets 409, retried here as
 *   transient.
 * - Our charge id is also the payment's `external_order_num`, which `status(reference)` lists by
 *   (GET /payments?external_order_num=…) to find a payment after a crash or a timeout.
 * - Declines are results mapped through KOMOJU_ERROR_TABLE; timeouts, connection failures, 5xx,
 *   429, 409 and unreadable 2xx answers are TransientProcessorError.
 * Request bodies carry the PAN and CVV: never put into an error or a log line.
 */
export class KomojuPaymentProcessor implements PaymentProcessor {
  readonly #baseUrl: string;
  readonly #authorization: string;
  readonly #timeoutMs: number;
  readonly #fetch: ProcessorTransport;

  constructor(options: KomojuPaymentProcessorOptions) {
    this.#baseUrl = (options.baseUrl ?? KOMOJU_API_URL).replace(/\/+$/, '');
    this.#authorization = `Basic ${Buffer.from(`${options.secretKey}:`, 'utf8').toString('base64')}`;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? keepAliveTransport();
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const card = cardToAuthorize('KOMOJU', request, KOMOJU_CAPABILITIES.threeDsRequests);
    const cvv = card.revealCvv();
    // the same on every retry of the reference (it names the charge), as the key's body must be
    const returnUrl = threeDsReturnUrlOf(request);
    const answer = await this.#send('authorize', 'POST', '/payments', request.reference, {
      amount: checkWireAmount(request.amount),
      currency: request.currency,
      external_order_num: request.reference,
      capture: request.capture,
      ...(returnUrl ? { return_url: returnUrl } : {}),
      payment_details: {
        type: 'credit_card',
        number: card.cardNumber.reveal(),
        month: card.expMonth,
        year: card.expYear,
        ...(cvv === null ? {} : { verification_value: cvv }),
        name: card.cardholder,
      },
    });
    if (answer.kind === 'error') {
      const decline = this.#decline('authorize', answer, 'CARD_REJECTED');
      // KOMOJU answers a refused card with its error object and no payment: our reference stands in
      return { outcome: 'declined', processorReference: request.reference, error: decline };
    }
    const payment = this.#parse('authorize', komojuPaymentSchema, answer.body);
    switch (payment.status) {
      case 'captured':
        return { outcome: 'approved', processorReference: payment.id, captured: true };
      case 'authorized':
        return { outcome: 'approved', processorReference: payment.id, captured: false };
      case 'pending': {
        // KOMOJU wants the cardholder authenticated: the customer goes to its redirect_url and comes
        // back to our return_url; KOMOJU's webhook and `status` tell the outcome
        const redirectUrl = payment.payment_details.redirect_url;
        if (redirectUrl && returnUrl) {
          return {
            outcome: 'three_ds_required',
            processorReference: payment.id,
            threeDs: {
              issuerToken: redirectUrl,
              callMethod: 'http_get',
              payload: {},
              contentType: REDIRECT_CONTENT_TYPE,
            },
          };
        }
        // no way to send the customer (3-D Secure skipped, or no return route): the pending payment
        // expires at KOMOJU unpaid
        return {
          outcome: 'declined',
          processorReference: payment.id,
          error: paymentError('THREE_DS_COULD_NOT_BE_COMPLETED', 'KOMOJU asked for 3-D Secure'),
        };
      }
      case 'cancelled':
      case 'expired':
      case 'failed':
      case 'refunded':
        return { outcome: 'declined', processorReference: payment.id, error: paymentError('CARD_REJECTED') };
    }
  }

  async capture(request: CaptureRequest): Promise<CaptureResult> {
    // KOMOJU's capture takes the whole authorization: a partial one is refused before anything is sent
    const current = await this.#show('capture', request.processorReference);
    if (!current) return { outcome: 'rejected', error: transactionNotFound() };
    const mismatch = captureMismatch(request, current);
    if (mismatch) return mismatch;
    if (request.amount < current.amount) {
      return { outcome: 'rejected', error: paymentError('PARTIAL_CAPTURE_NOT_SUPPORTED') };
    }
    const answer = await this.#send(
      'capture',
      'POST',
      `/payments/${encodeURIComponent(request.processorReference)}/capture`,
      request.idempotencyKey,
      {},
    );
    if (answer.kind === 'error') {
      return { outcome: 'rejected', error: this.#decline('capture', answer, 'CHARGE_INVALID_DATA') };
    }
    const payment = this.#parse('capture', komojuPaymentSchema, answer.body);
    if (payment.status !== 'captured') throw new TransientProcessorError('capture', 'malformed_response');
    return { outcome: 'captured', capturedAmount: payment.amount };
  }

  async void(request: VoidRequest): Promise<VoidResult> {
    const answer = await this.#send(
      'void',
      'POST',
      `/payments/${encodeURIComponent(request.processorReference)}/cancel`,
      request.idempotencyKey,
      {},
    );
    if (answer.kind === 'error') {
      return { outcome: 'rejected', error: this.#decline('void', answer, 'CANCEL_UNAVAILABLE') };
    }
    const payment = this.#parse('void', komojuPaymentSchema, answer.body);
    if (payment.status !== 'cancelled') throw new TransientProcessorError('void', 'malformed_response');
    return { outcome: 'voided' };
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    const answer = await this.#send(
      'refund',
      'POST',
      `/payments/${encodeURIComponent(request.processorReference)}/refund`,
      request.idempotencyKey,
      { amount: checkWireAmount(request.amount) },
    );
    if (answer.kind === 'error') {
      return { outcome: 'rejected', error: this.#decline('refund', answer, 'REFUND_FAILED') };
    }
    const payment = this.#parse('refund', komojuPaymentSchema, answer.body);
    if (payment.currency !== request.currency)
      throw new TransientProcessorError('refund', 'malformed_response');
    // the payment answers with all its refunds, the newest last: the one this key made
    const refund = payment.refunds?.at(-1);
    if (!refund) throw new TransientProcessorError('refund', 'malformed_response');
    return { outcome: 'refunded', refundReference: refund.id, amount: refund.amount };
  }

  /**
   * An online payment (PayPay): POST /payments with payment_details[type]=paypay, our reference as
   * key and external_order_num, the merchant's redirect endpoint as return_url. KOMOJU answers it
   * `pending` with payment_details.redirect_url, where the customer pays (the charge's issuer
   * token); it ends `captured` (paid), `failed` or `expired`, told by KOMOJU's webhook and read by
   * `status`. The brands KOMOJU does not take, and PayPay in any currency but yen, are refused
   * before anything is sent.
   */
  async createOperatorPayment(request: OperatorPaymentRequest): Promise<OperatorPaymentResult> {
    const online = KOMOJU_ONLINE_BRANDS[request.brand];
    if (!online) throw unsupported('KOMOJU', 'create_operator_payment', `${request.brand} payments`);
    if (!online.currencies.includes(request.currency.toUpperCase()))
      throw unsupported(
        'KOMOJU',
        'create_operator_payment',
        `${request.brand} payments in ${request.currency}`,
      );
    // the same body on every retry of the reference: the redirect endpoint is the charge's own
    const answer = await this.#send('create_operator_payment', 'POST', '/payments', request.reference, {
      amount: checkWireAmount(request.amount),
      currency: request.currency,
      external_order_num: request.reference,
      ...(request.returnUrl ? { return_url: request.returnUrl } : {}),
      payment_details: { type: online.type },
    });
    if (answer.kind === 'error') {
      // refused as such (KOMOJU's payment method not enabled on the account, a bad parameter)
      throw new ProcessorRequestRejectedError(
        'create_operator_payment',
        answer.status,
        answer.code ?? 'unknown',
        (answer.message ?? 'refused').slice(0, 200),
      );
    }
    const payment = this.#parse('create_operator_payment', komojuPaymentSchema, answer.body);
    const redirectUrl = payment.payment_details.redirect_url;
    if (payment.payment_details.type !== online.type || !redirectUrl)
      throw new TransientProcessorError('create_operator_payment', 'malformed_response');
    return {
      processorReference: payment.id,
      operatorPaymentId: payment.payment_details.external_payment_id ?? payment.id,
      paymentUrl: redirectUrl,
      // KOMOJU gives a page to open, no code of its own: a QR of it opens the same page
      qrContent: redirectUrl,
      callMethod: 'http_get',
      expiresAt: payment.payment_deadline
        ? new Date(payment.payment_deadline)
        : new Date(
            Date.parse(payment.created_at ?? '') + DEFAULT_ONLINE_EXPIRY_MS ||
              Date.now() + DEFAULT_ONLINE_EXPIRY_MS,
          ),
    };
  }

  async createDeferredPayment(request: DeferredPaymentRequest): Promise<DeferredPaymentResult> {
    const { method, store } = konbiniToCreate('KOMOJU', request, KOMOJU_KONBINI_STORES);
    // No expiry_days: a retry must send the same body, and a day count from now would not be.
    // Kessai voids the charge past its own deadline (the dashboard's default expiry must be longer).
    const answer = await this.#send('create_deferred_payment', 'POST', '/payments', request.reference, {
      amount: checkWireAmount(request.amount),
      currency: request.currency,
      external_order_num: request.reference,
      payment_details: {
        type: 'konbini',
        store,
        ...(request.customerEmail ? { email: request.customerEmail } : {}),
        ...(method.phoneNumber ? { phone: method.phoneNumber } : {}),
      },
    });
    if (answer.kind === 'error') {
      // a payment that was refused as such: nothing to pay, nothing to retry
      throw new ProcessorRequestRejectedError(
        'create_deferred_payment',
        answer.status,
        answer.code ?? 'unknown',
        answer.message ?? 'refused',
      );
    }
    const payment = this.#parse('create_deferred_payment', komojuPaymentSchema, answer.body);
    const details = payment.payment_details;
    if (!details.instructions_url || !(details.confirmation_code ?? details.receipt)) {
      throw new TransientProcessorError('create_deferred_payment', 'malformed_response');
    }
    return {
      processorReference: payment.id,
      instructions: {
        type: 'konbini',
        convenienceStore: method.convenienceStore,
        paymentCode: details.confirmation_code ?? details.receipt ?? '',
        receiptNumber: details.receipt ?? '',
        paymentUrl: details.instructions_url,
      },
    };
  }

  async status(reference: string): Promise<PaymentStatusResult> {
    const answer = await this.#send(
      'status',
      'GET',
      `/payments?external_order_num=${encodeURIComponent(reference)}`,
      null,
    );
    if (answer.kind === 'error') throw this.#refusal('status', answer);
    const list = this.#parse('status', komojuPaymentListSchema, answer.body);
    const payment = list.data.find((candidate) => candidate.external_order_num === reference);
    return payment ? { found: true, payment: fromKomoju(payment, reference) } : { found: false };
  }

  /** GET /payments/:id; null when KOMOJU has no such payment. */
  async #show(operation: ProcessorOperation, id: string): Promise<KomojuPayment | null> {
    const answer = await this.#send(operation, 'GET', `/payments/${encodeURIComponent(id)}`, null);
    if (answer.kind === 'error') {
      if (answer.status === 404) return null;
      throw this.#refusal(operation, answer);
    }
    return this.#parse(operation, komojuPaymentSchema, answer.body);
  }

  /** A declined or refused operation: its SDK error, or the refusal thrown. */
  #decline(
    operation: ProcessorOperation,
    answer: Extract<Answer, { kind: 'error' }>,
    stateRefusal: PaymentErrorName,
  ) {
    if (answer.status === 404 && operation !== 'authorize') return transactionNotFound();
    const disposition = komojuErrorDisposition(answer.status, answer.code);
    if (disposition.kind !== 'decline') throw this.#refusal(operation, answer);
    // a refusal for the payment's state reads as the operation's own code (cancel, refund)
    const sdk = answer.code === 'unprocessable_entity' ? stateRefusal : disposition.sdk;
    return komojuPaymentError(sdk, answer.message);
  }

  #refusal(operation: ProcessorOperation, answer: Extract<Answer, { kind: 'error' }>) {
    return new ProcessorRequestRejectedError(
      operation,
      answer.status,
      answer.code ?? 'unknown',
      (answer.message ?? 'refused').slice(0, 200),
    );
  }

  async #send(
    operation: ProcessorOperation,
    method: 'GET' | 'POST',
    path: string,
    idempotencyKey: string | null,
    body?: unknown,
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: this.#authorization,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== null) headers[KOMOJU_IDEMPOTENCY_HEADER] = idempotencyKey;

    const answer = await exchangeWithProcessor(this.#fetch, {
      operation,
      url: `${this.#baseUrl}${path}`,
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.#timeoutMs,
    });
    const { status, text } = answer;
    if (status >= 200 && status < 300) return { kind: 'ok', body: jsonBodyOf(operation, answer) };
    const error = readError(text);
    const disposition = komojuErrorDisposition(status, error.code);
    if (disposition.kind === 'transient') {
      throw new TransientProcessorError(operation, status === 429 ? 'rate_limited' : 'server_error', status);
    }
    return { kind: 'error', status, ...error };
  }

  #parse<S extends z.ZodTypeAny>(operation: ProcessorOperation, schema: S, body: unknown): z.infer<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new TransientProcessorError(operation, 'malformed_response');
    return parsed.data as z.infer<S>;
  }
}

function readError(text: string): { code?: string; message?: string } {
  try {
    const parsed = komojuErrorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      return { code: parsed.data.error.code, message: parsed.data.error.message ?? undefined };
    }
  } catch {
    // not JSON: the status alone decides
  }
  return {};
}

function transactionNotFound() {
  return paymentError('TRANSACTION_NOT_FOUND', 'KOMOJU has no payment with this id');
}

const KIND_BY_TYPE: Record<string, ProcessorPayment['kind']> = {
  credit_card: 'card',
  konbini: 'konbini',
  bank_transfer: 'bank_transfer',
  ...Object.fromEntries(Object.values(KOMOJU_ONLINE_BRANDS).map((online) => [online.type, 'operator'])),
};

function statusOf(payment: KomojuPayment, kind: ProcessorPayment['kind']): ProcessorPaymentStatus {
  const deferred = kind === 'konbini' || kind === 'bank_transfer';
  // an online payment (PayPay) waits for the customer until captured: KOMOJU ignores `capture` for
  // every type but credit_card, so an `authorized` one holds nothing Kessai could capture
  const awaitsCustomer = deferred || kind === 'operator';
  switch (payment.status) {
    case 'pending':
      return awaitsCustomer ? 'awaiting_payment' : 'pending_authentication';
    case 'authorized':
      // for konbini and bank transfer "authorized" means waiting for the customer to pay
      return awaitsCustomer ? 'awaiting_payment' : 'authorized';
    case 'captured':
    case 'refunded':
      return 'captured';
    case 'cancelled':
      return 'voided';
    case 'expired':
      return 'expired';
    case 'failed':
      return 'declined';
  }
}

/**
 * A failed payment's SDK error: an online payment the wallet refused (340), a card that went to
 * 3-D Secure (it has a redirect_url) failed its authentication (358), any other card refused (306).
 */
function declineOf(payment: KomojuPayment, kind: ProcessorPayment['kind']) {
  if (kind === 'operator') return paymentError('PAYMENT_WALLET_REJECTED', 'the customer’s wallet refused it');
  return payment.payment_details.redirect_url
    ? paymentError('THREE_DS_COULD_NOT_BE_COMPLETED', 'the cardholder did not pass 3-D Secure')
    : paymentError('CARD_REJECTED');
}

/**
 * KOMOJU's payment as the port's: a paid konbini payment is one deposit of its amount; a PayPay
 * payment is an operator payment, awaiting the customer until captured.
 */
export function fromKomoju(payment: KomojuPayment, reference: string): ProcessorPayment {
  const kind = KIND_BY_TYPE[payment.payment_details.type] ?? 'card';
  const status = statusOf(payment, kind);
  const captured = status === 'captured';
  const deferred = kind === 'konbini' || kind === 'bank_transfer';
  return {
    processorReference: payment.id,
    reference,
    kind,
    status,
    amount: payment.amount,
    currency: payment.currency,
    capturedAmount: captured ? payment.amount : 0,
    refundedAmount: payment.amount_refunded ?? 0,
    error: status === 'declined' ? declineOf(payment, kind) : null,
    deposits:
      deferred && captured
        ? [
            {
              id: payment.id,
              amount: payment.amount,
              receivedOn: new Date(payment.captured_at ?? payment.created_at ?? Date.now()),
            },
          ]
        : [],
  };
}
