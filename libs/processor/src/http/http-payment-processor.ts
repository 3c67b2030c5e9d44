import { keepAliveTransport, type ProcessorTransport } from './keep-alive-transport';
import { exchangeWithProcessor, jsonBodyOf, retryAfterMs } from './processor-exchange';
import { type z } from 'zod';
import {
  type AuthorizeRequest,
  type AuthorizeResult,
  type CaptureRequest,
  type CaptureResult,
  type DeferredPaymentRequest,
  type DeferredPaymentResult,
  type PaymentInstructions,
  type OperatorPaymentRequest,
  type OperatorPaymentResult,
  type PaymentProcessor,
  type PaymentStatusResult,
  type ProcessorPayment,
  type RefundRequest,
  type RefundResult,
  type VoidRequest,
  type VoidResult,
} from '../payment-processor';
import { checkWireAmount } from '../amounts';
import { paymentError } from '../payment-errors';
import {
  ProcessorRequestRejectedError,
  type ProcessorOperation,
  TransientProcessorError,
} from '../processor-errors';
import {
  type AuthorizeRequestWire,
  authorizeResponseWireSchema,
  captureResponseWireSchema,
  deferredPaymentResponseWireSchema,
  type DeferredPaymentRequestWire,
  errorResponseWireSchema,
  operatorPaymentResponseWireSchema,
  type OperatorPaymentRequestWire,
  paymentLookupResponseWireSchema,
  type PaymentInstructionsWire,
  type PaymentWire,
  refundResponseWireSchema,
  voidResponseWireSchema,
} from '../wire';

export interface HttpPaymentProcessorOptions {
  /** e.g. the simulator's url */
  baseUrl: string;
  /** per request, body included; a processor that has not answered by then is presumed slow, not failed */
  timeoutMs?: number;
  /** sent as `Authorization: Bearer <apiKey>` */
  apiKey?: string;
  /** how requests are sent; default keepAliveTransport() (global `fetch` fits too) */
  fetch?: ProcessorTransport;
}

export const DEFAULT_PROCESSOR_TIMEOUT_MS = 10_000;

type Answer = { kind: 'ok'; body: unknown } | { kind: 'not_found' };

/**
 * PaymentProcessor over HTTP. Every failure to get an answer (timeout, refused connection, 5xx,
 * 429, unreadable 2xx) becomes a TransientProcessorError; other 4xx a ProcessorRequestRejectedError.
 * Request bodies carry the PAN and CVV and are never put into an error or a log line.
 */
export class HttpPaymentProcessor implements PaymentProcessor {
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #apiKey: string | undefined;
  readonly #fetch: ProcessorTransport;

  constructor(options: HttpPaymentProcessorOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_PROCESSOR_TIMEOUT_MS;
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? keepAliveTransport();
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const answer = await this.#send('authorize', 'POST', '/v1/payments', request.reference, toWire(request));
    const { outcome, payment } = this.#parse('authorize', authorizeResponseWireSchema, answer);
    switch (outcome) {
      case 'approved':
        return { outcome, processorReference: payment.id, captured: payment.status === 'captured' };
      case 'declined':
        return {
          outcome,
          processorReference: payment.id,
          error: payment.error ?? paymentError('CARD_REJECTED'),
        };
      case 'three_ds_required': {
        if (!payment.three_ds) throw new TransientProcessorError('authorize', 'malformed_response');
        const { issuer_token, call_method, payload, content_type } = payment.three_ds;
        return {
          outcome,
          processorReference: payment.id,
          threeDs: { issuerToken: issuer_token, callMethod: call_method, payload, contentType: content_type },
        };
      }
    }
  }

  async capture(request: CaptureRequest): Promise<CaptureResult> {
    const answer = await this.#send(
      'capture',
      'POST',
      `/v1/payments/${encodeURIComponent(request.processorReference)}/capture`,
      request.idempotencyKey,
      { amount: checkWireAmount(request.amount), currency: request.currency },
    );
    if (answer.kind === 'not_found') return { outcome: 'rejected', error: transactionNotFound() };
    const body = this.#parse('capture', captureResponseWireSchema, answer);
    return body.outcome === 'captured'
      ? { outcome: 'captured', capturedAmount: body.payment.captured_amount }
      : { outcome: 'rejected', error: body.error ?? paymentError('CHARGE_INVALID_DATA') };
  }

  async void(request: VoidRequest): Promise<VoidResult> {
    const answer = await this.#send(
      'void',
      'POST',
      `/v1/payments/${encodeURIComponent(request.processorReference)}/void`,
      request.idempotencyKey,
      {},
    );
    if (answer.kind === 'not_found') return { outcome: 'rejected', error: transactionNotFound() };
    const body = this.#parse('void', voidResponseWireSchema, answer);
    return body.outcome === 'voided'
      ? { outcome: 'voided' }
      : { outcome: 'rejected', error: body.error ?? paymentError('CANCEL_UNAVAILABLE') };
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    const answer = await this.#send(
      'refund',
      'POST',
      `/v1/payments/${encodeURIComponent(request.processorReference)}/refunds`,
      request.idempotencyKey,
      { amount: checkWireAmount(request.amount), currency: request.currency },
    );
    if (answer.kind === 'not_found') return { outcome: 'rejected', error: transactionNotFound() };
    const body = this.#parse('refund', refundResponseWireSchema, answer);
    if (body.outcome === 'refunded' && body.refund) {
      return { outcome: 'refunded', refundReference: body.refund.id, amount: body.refund.amount };
    }
    return { outcome: 'rejected', error: body.error ?? paymentError('REFUND_FAILED') };
  }

  async createOperatorPayment(request: OperatorPaymentRequest): Promise<OperatorPaymentResult> {
    const wire: OperatorPaymentRequestWire = {
      reference: request.reference,
      amount: checkWireAmount(request.amount),
      currency: request.currency,
      brand: request.brand,
      call_method: request.callMethod ?? null,
      callback_url: request.callbackUrl,
      return_url: request.returnUrl ?? null,
    };
    const answer = await this.#send(
      'create_operator_payment',
      'POST',
      '/v1/operator-payments',
      request.reference,
      wire,
    );
    const { payment } = this.#parse('create_operator_payment', operatorPaymentResponseWireSchema, answer);
    if (!payment.operator) throw new TransientProcessorError('create_operator_payment', 'malformed_response');
    return {
      processorReference: payment.id,
      operatorPaymentId: payment.operator.operator_payment_id,
      paymentUrl: payment.operator.payment_url,
      qrContent: payment.operator.qr_content,
      callMethod: payment.operator.call_method,
      expiresAt: new Date(payment.operator.expires_on),
    };
  }

  async createDeferredPayment(request: DeferredPaymentRequest): Promise<DeferredPaymentResult> {
    const method = request.method;
    const wire: DeferredPaymentRequestWire = {
      reference: request.reference,
      amount: checkWireAmount(request.amount),
      currency: request.currency,
      method:
        method.type === 'bank_transfer'
          ? { type: 'bank_transfer', brand: method.brand }
          : {
              type: 'konbini',
              convenience_store: method.convenienceStore,
              customer_name: method.customerName,
              phone_number: method.phoneNumber,
            },
      expires_on: request.expiresOn.toISOString(),
      callback_url: request.callbackUrl,
    };
    const answer = await this.#send(
      'create_deferred_payment',
      'POST',
      '/v1/deferred-payments',
      request.reference,
      wire,
    );
    const { payment } = this.#parse('create_deferred_payment', deferredPaymentResponseWireSchema, answer);
    if (!payment.deferred) throw new TransientProcessorError('create_deferred_payment', 'malformed_response');
    return {
      processorReference: payment.id,
      instructions: instructionsFromWire(payment.deferred.instructions),
    };
  }

  async status(reference: string): Promise<PaymentStatusResult> {
    const answer = await this.#send(
      'status',
      'GET',
      `/v1/payments?reference=${encodeURIComponent(reference)}`,
      null,
    );
    if (answer.kind === 'not_found') return { found: false };
    const { payment } = this.#parse('status', paymentLookupResponseWireSchema, answer);
    return { found: true, payment: fromWire(payment) };
  }

  async #send(
    operation: ProcessorOperation,
    method: 'GET' | 'POST',
    path: string,
    idempotencyKey: string | null,
    body?: unknown,
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;

    const answer = await exchangeWithProcessor(this.#fetch, {
      operation,
      url: `${this.#baseUrl}${path}`,
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.#timeoutMs,
    });
    const { status, retryAfter, text } = answer;
    if (status >= 200 && status < 300) return { kind: 'ok', body: jsonBodyOf(operation, answer) };
    if (
      status === 404 &&
      operation !== 'authorize' &&
      operation !== 'create_operator_payment' &&
      operation !== 'create_deferred_payment'
    ) {
      return { kind: 'not_found' };
    }
    if (status === 429)
      throw new TransientProcessorError(operation, 'rate_limited', status, retryAfterMs(retryAfter));
    if (status >= 500 || status === 408) {
      throw new TransientProcessorError(operation, 'server_error', status, retryAfterMs(retryAfter));
    }
    const refusal = readRefusal(text);
    throw new ProcessorRequestRejectedError(operation, status, refusal.type, refusal.message);
  }

  #parse<S extends z.ZodTypeAny>(operation: ProcessorOperation, schema: S, answer: Answer): z.infer<S> {
    if (answer.kind !== 'ok') throw new TransientProcessorError(operation, 'malformed_response');
    const parsed = schema.safeParse(answer.body);
    if (!parsed.success) throw new TransientProcessorError(operation, 'malformed_response');
    return parsed.data as z.infer<S>;
  }
}

function toWire(request: AuthorizeRequest): AuthorizeRequestWire {
  const method = request.paymentMethod;
  return {
    reference: request.reference,
    amount: checkWireAmount(request.amount),
    currency: request.currency,
    capture: request.capture,
    payment_method: paymentMethodToWire(method),
    three_ds: request.threeDs
      ? {
          mode: request.threeDs.mode,
          redirect_endpoint: request.threeDs.redirectEndpoint ?? null,
          callback_url: request.threeDs.callbackUrl ?? null,
        }
      : null,
    descriptor: request.descriptor ?? null,
  };
}

function paymentMethodToWire(
  method: AuthorizeRequest['paymentMethod'],
): AuthorizeRequestWire['payment_method'] {
  switch (method.type) {
    case 'card':
      return {
        type: 'card',
        card: {
          number: method.card.cardNumber.reveal(),
          exp_month: method.card.expMonth,
          exp_year: method.card.expYear,
          cvv: method.card.revealCvv(),
          cardholder: method.card.cardholder,
        },
      };
    case 'qr_scan':
      return { type: 'qr_scan', scanned_qr: method.scannedQr };
    case 'apple_pay':
      return { type: 'apple_pay', payment_data: method.paymentData };
    case 'paidy':
      return {
        type: 'paidy',
        token_id: method.tokenId,
        shipping_address: method.shippingAddress,
        buyer_email: method.buyerEmail,
      };
  }
}

function fromWire(payment: PaymentWire): ProcessorPayment {
  return {
    processorReference: payment.id,
    reference: payment.reference,
    kind: payment.kind,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    capturedAmount: payment.captured_amount,
    refundedAmount: payment.refunded_amount,
    error: payment.error,
    deposits: (payment.deferred?.deposits ?? []).map((deposit) => ({
      id: deposit.id,
      amount: deposit.amount,
      receivedOn: new Date(deposit.received_on),
    })),
  };
}

function instructionsFromWire(wire: PaymentInstructionsWire): PaymentInstructions {
  switch (wire.type) {
    case 'bank_transfer':
      return {
        type: 'bank_transfer',
        bankCode: wire.bank_code,
        bankName: wire.bank_name,
        branchCode: wire.branch_code,
        branchName: wire.branch_name,
        accountId: wire.account_id,
        accountNumber: wire.account_number,
        accountHolderName: wire.account_holder_name,
        paymentUrl: wire.payment_url,
      };
    case 'konbini':
      return {
        type: 'konbini',
        convenienceStore: wire.convenience_store,
        paymentCode: wire.payment_code,
        receiptNumber: wire.receipt_number,
        paymentUrl: wire.payment_url,
      };
  }
}

function transactionNotFound() {
  return paymentError('TRANSACTION_NOT_FOUND', 'the processor has no payment with this reference');
}

/** The refusal's type and message, shortened: enough to diagnose, never a whole foreign body. */
function readRefusal(text: string): { type: string; message: string } {
  try {
    const parsed = errorResponseWireSchema.safeParse(JSON.parse(text));
    if (parsed.success)
      return { type: parsed.data.error.type, message: parsed.data.error.message.slice(0, 200) };
  } catch {
    // not JSON: fall through
  }
  return { type: 'unknown', message: 'unreadable error body' };
}
