import Stripe from 'stripe';
import { checkWireAmount } from '../amounts';
import { type PaymentErrorDetails, paymentError, type PaymentErrorName } from '../payment-errors';
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
  type ProcessorDeposit,
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
  unexecutedReasonOf,
} from '../processor-errors';
import {
  captureMismatch,
  cardToAuthorize,
  konbiniToCreate,
  operatorPaymentsUnsupported,
  REDIRECT_CONTENT_TYPE,
  threeDsReturnUrlOf,
} from '../hosted-processor-limits';
import {
  isRawCardDataRefusal,
  type StripeErrorFacts,
  stripeErrorDisposition,
  stripePaymentError,
} from './stripe-errors';

export const STRIPE_API_URL = 'https://api.stripe.com';

/** The PaymentIntent metadata key holding our reference (the charge id), which `status` searches by. */
export const STRIPE_REFERENCE_METADATA_KEY = 'kessai_reference';

/** Stripe keeps an idempotency key's answer for 24 hours; `status` lists that far back when search lags. */
const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

export interface StripePaymentProcessorOptions {
  /** the account's secret key (sk_… or rk_…) */
  secretKey: string;
  /** https://api.stripe.com unless a test points it at a fake */
  baseUrl?: string;
  timeoutMs?: number;
}

/**
 * The API's ConvenienceStore → the store of Stripe's konbini_display_details
 * (https://docs.stripe.com/payments/konbini): FamilyMart, Lawson, Ministop and Seicomart only.
 */
export const STRIPE_KONBINI_STORES: Readonly<
  Record<string, keyof Stripe.PaymentIntent.NextAction.KonbiniDisplayDetails.Stores>
> = {
  family_mart: 'familymart',
  lawson: 'lawson',
  mini_stop: 'ministop',
  seico_mart: 'seicomart',
};

/**
 * What Stripe can do of the port, for the gateway to refuse the rest at creation with the SDK's
 * error code (docs/connectors.md, "Stripe"). A call outside it is refused by the adapter too
 * (ProcessorRequestRejectedError, nothing sent).
 */
export const STRIPE_CAPABILITIES = {
  /** amount_to_capture: Stripe captures part and releases the rest */
  partialCapture: true,
  /**
   * 3-D Secure by redirect: confirmed with return_url, a card Stripe wants authenticated answers
   * requires_action with next_action.redirect_to_url (docs/connectors.md, "3-D Secure")
   */
  threeDsRedirect: true,
  /** payment_method_options[card][request_three_d_secure]: mode require asks `any`, force `challenge` */
  threeDsRequests: true,
  operatorPayments: false,
  /** no online brand: online and QR payments are refused at creation */
  onlineBrands: {} as Readonly<Record<string, { type: string; currencies: readonly string[] }>>,
  /**
   * Japanese bank transfers through customer_balance: a virtual account (zengin) per charge, paid
   * when the transfers into it fund the PaymentIntent (docs/connectors.md, "Bank transfer at Stripe")
   */
  bankTransfer: true,
  konbiniStores: Object.keys(STRIPE_KONBINI_STORES),
  /**
   * A card token's own 3-D Secure, a hold of 1 yen (decision 0079): below Stripe's minimum (below),
   * and no return route takes a token's reference back from Stripe's redirect. Refused at token creation.
   */
  tokenThreeDs: false,
  /**
   * A card token's CVV authorization, a hold of 1 (minor unit; decisions 0064, 0079): a
   * PaymentIntent's amount is at least $0.50 US or the equivalent in its currency (Stripe's API
   * reference, PaymentIntent `amount`), so Stripe refuses it. Refused at token creation.
   */
  smallestHold: false,
} as const;

const DEFAULT_TIMEOUT_MS = 10_000;

/** Raw card details in payment_method_data: sent only by accounts Stripe allowed to (not in stripe-node's types). */
interface RawCardPaymentMethodData {
  type: 'card';
  card: { number: string; exp_month: number; exp_year: number; cvc?: string };
  billing_details: { name: string };
}

/**
 * The PaymentProcessor port on Stripe's PaymentIntents (https://docs.stripe.com/api/payment_intents)
 * through the official `stripe` package as the client.
 *
 * - Every state-changing call carries Idempotency-Key: the charge id for a payment, our capture's,
 *   cancel's or refund's id otherwise. Stripe executes a key once and replays its first answer
 *   (errors included) for 24 hours; a repeat while the first runs answers 409
 *   idempotency_key_in_use, retried here as transient. stripe-node's own retries are off
 *   (maxNetworkRetries 0): the charge path retries, with the same key.
 * - Our charge id is also the PaymentIntent's metadata[kessai_reference]: `status(reference)`
 *   searches by it, then, since search can lag a minute behind a write, lists the last 24 hours.
 * - Cards are confirmed at creation with the raw card in payment_method_data, which needs
 *   Stripe's approval of the account ("raw card data APIs"); an account without it is refused as a
 *   ProcessorRequestRejectedError of type raw_card_data_not_enabled, never as a decline.
 * - Declines are results mapped through STRIPE_ERROR_TABLE; connection failures, timeouts, 5xx,
 *   429 and 409 are TransientProcessorError.
 * The request carries the PAN and CVV: never put into an error or a log line (a stripe-node error
 * is never chained as a cause).
 */
export class StripePaymentProcessor implements PaymentProcessor {
  readonly #stripe: Stripe;

  constructor(options: StripePaymentProcessorOptions) {
    const url = new URL(options.baseUrl ?? STRIPE_API_URL);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    this.#stripe = new Stripe(options.secretKey, {
      host: url.hostname,
      port: url.port || (protocol === 'http' ? 80 : 443),
      protocol,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxNetworkRetries: 0,
      telemetry: false,
    });
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const sensitive = cardToAuthorize('Stripe', request, STRIPE_CAPABILITIES.threeDsRequests);
    const cvv = sensitive.revealCvv();
    const card: RawCardPaymentMethodData = {
      type: 'card',
      card: {
        number: sensitive.cardNumber.reveal(),
        exp_month: sensitive.expMonth,
        exp_year: sensitive.expYear,
        ...(cvv === null ? {} : { cvc: cvv }),
      },
      billing_details: { name: sensitive.cardholder },
    };
    // the same on every retry of the reference (it names the charge), as the key's parameters must be
    const returnUrl = threeDsReturnUrlOf(request);
    const params = {
      amount: checkWireAmount(request.amount),
      currency: request.currency.toLowerCase(),
      capture_method: request.capture ? 'automatic' : 'manual',
      confirm: true,
      // with a return route a card that wants 3-D Secure waits for it (requires_action, redirected);
      // without one it fails as authentication_required instead
      ...(returnUrl ? { return_url: returnUrl } : { error_on_requires_action: true }),
      ...threeDsOptions(request),
      ...descriptorSuffix(request.descriptor),
      // the stripe package's API version names the list allowed_payment_method_types
      allowed_payment_method_types: ['card'],
      payment_method_data: card,
      metadata: { [STRIPE_REFERENCE_METADATA_KEY]: request.reference },
    } as unknown as Stripe.PaymentIntentCreateParams;
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.#stripe.paymentIntents.create(params, { idempotencyKey: request.reference });
    } catch (error) {
      const facts = factsOf(error);
      if (isRawCardDataRefusal(facts, messageOf(error))) {
        throw new ProcessorRequestRejectedError(
          'authorize',
          facts.statusCode ?? 400,
          'raw_card_data_not_enabled',
          'Stripe refused raw card numbers: the account needs Stripe to enable its raw card data APIs',
        );
      }
      const decline = this.#decline('authorize', error);
      // Stripe answers a declined card with the error and the PaymentIntent it left unpaid
      return {
        outcome: 'declined',
        processorReference: intentIdOf(error) ?? request.reference,
        error: decline,
      };
    }
    switch (intent.status) {
      case 'succeeded':
        return { outcome: 'approved', processorReference: intent.id, captured: true };
      case 'requires_capture':
        return { outcome: 'approved', processorReference: intent.id, captured: false };
      case 'requires_action': {
        const redirect = intent.next_action?.redirect_to_url?.url;
        if (intent.next_action?.type === 'redirect_to_url' && redirect && returnUrl) {
          return {
            outcome: 'three_ds_required',
            processorReference: intent.id,
            threeDs: {
              issuerToken: redirect,
              callMethod: 'http_get',
              payload: {},
              contentType: REDIRECT_CONTENT_TYPE,
            },
          };
        }
        // an action this adapter cannot hand the customer (Stripe.js' use_stripe_sdk): left to expire
        return {
          outcome: 'declined',
          processorReference: intent.id,
          error: paymentError(
            'THREE_DS_COULD_NOT_BE_COMPLETED',
            'Stripe asked for an action other than a redirect',
          ),
        };
      }
      case 'requires_payment_method':
      case 'requires_confirmation':
      case 'canceled':
        return { outcome: 'declined', processorReference: intent.id, error: intentError(intent) };
      case 'processing':
      default:
        // `processing` (or a status newer than this adapter) is no answer yet: the retry replays
        // this one, `status` finds the outcome later
        throw new TransientProcessorError('authorize', 'malformed_response');
    }
  }

  async capture(request: CaptureRequest): Promise<CaptureResult> {
    const current = await this.#retrieve('capture', request.processorReference);
    if (!current) return { outcome: 'rejected', error: transactionNotFound() };
    const mismatch = captureMismatch(
      { amount: request.amount, currency: request.currency.toLowerCase() },
      current,
    );
    if (mismatch) return mismatch;
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.#stripe.paymentIntents.capture(
        request.processorReference,
        { amount_to_capture: checkWireAmount(request.amount) },
        { idempotencyKey: request.idempotencyKey },
      );
    } catch (error) {
      return { outcome: 'rejected', error: this.#decline('capture', error, 'CHARGE_INVALID_DATA') };
    }
    if (intent.status !== 'succeeded') throw new TransientProcessorError('capture', 'malformed_response');
    return { outcome: 'captured', capturedAmount: intent.amount_received };
  }

  async void(request: VoidRequest): Promise<VoidResult> {
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.#stripe.paymentIntents.cancel(
        request.processorReference,
        {},
        { idempotencyKey: request.idempotencyKey },
      );
    } catch (error) {
      return { outcome: 'rejected', error: this.#decline('void', error, 'CANCEL_UNAVAILABLE') };
    }
    if (intent.status !== 'canceled') throw new TransientProcessorError('void', 'malformed_response');
    return { outcome: 'voided' };
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    let refund: Stripe.Refund;
    try {
      refund = await this.#stripe.refunds.create(
        { payment_intent: request.processorReference, amount: checkWireAmount(request.amount) },
        { idempotencyKey: request.idempotencyKey },
      );
    } catch (error) {
      return { outcome: 'rejected', error: this.#decline('refund', error, 'REFUND_FAILED') };
    }
    if (refund.currency !== request.currency.toLowerCase())
      throw new TransientProcessorError('refund', 'malformed_response');
    if (refund.status === 'failed' || refund.status === 'canceled') {
      return {
        outcome: 'rejected',
        error: stripePaymentError('REFUND_FAILED', refund.failure_reason ?? undefined),
      };
    }
    return { outcome: 'refunded', refundReference: refund.id, amount: refund.amount };
  }

  createOperatorPayment(_request: OperatorPaymentRequest): Promise<OperatorPaymentResult> {
    return operatorPaymentsUnsupported('Stripe');
  }

  /**
   * A konbini payment: a PaymentIntent confirmed with payment_method_data[type]=konbini, left
   * `requires_action` with the codes to pay at the store until the customer pays
   * (payment_intent.succeeded, the deposit notice). Its expiry is the charge's deadline as a
   * timestamp (`expires_at`), the same on every retry, unlike a day count from now.
   */
  async createDeferredPayment(request: DeferredPaymentRequest): Promise<DeferredPaymentResult> {
    if (request.method.type === 'bank_transfer') return this.#createBankTransfer(request);
    const { method, store } = konbiniToCreate('Stripe', request, STRIPE_KONBINI_STORES);
    // Stripe sends no instructions itself but requires the customer's name and email
    if (!request.customerEmail)
      throw new ProcessorRequestRejectedError(
        'create_deferred_payment',
        0,
        'missing_parameter',
        'Stripe: a konbini payment needs the customer email',
      );
    const params: Stripe.PaymentIntentCreateParams = {
      amount: checkWireAmount(request.amount),
      currency: request.currency.toLowerCase(),
      confirm: true,
      allowed_payment_method_types: ['konbini'],
      payment_method_data: {
        type: 'konbini',
        billing_details: { name: method.customerName, email: request.customerEmail },
      },
      payment_method_options: { konbini: { expires_at: Math.floor(request.expiresOn.getTime() / 1000) } },
      metadata: { [STRIPE_REFERENCE_METADATA_KEY]: request.reference },
    };
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.#stripe.paymentIntents.create(params, { idempotencyKey: request.reference });
    } catch (error) {
      // transient as any call's; anything else a payment refused as such: nothing to pay, nothing to retry
      throw this.#failure('create_deferred_payment', error);
    }
    const details = intent.next_action?.konbini_display_details;
    const codes = details?.stores[store];
    if (intent.status !== 'requires_action' || !details?.hosted_voucher_url || !codes)
      throw new TransientProcessorError('create_deferred_payment', 'malformed_response');
    return {
      processorReference: intent.id,
      instructions: {
        type: 'konbini',
        convenienceStore: method.convenienceStore,
        paymentCode: codes.payment_code,
        receiptNumber: codes.confirmation_number ?? '',
        paymentUrl: details.hosted_voucher_url,
      },
    };
  }

  /**
   * A Japanese bank transfer (https://docs.stripe.com/payments/bank-transfers/accept-a-payment,
   * https://docs.stripe.com/payments/customer-balance): a Customer of the charge's own, whose cash
   * balance's virtual account (zengin) the customer transfers to, then a PaymentIntent for that
   * customer confirmed with payment_method_data[type]=customer_balance, funding_type bank_transfer,
   * bank_transfer[type]=jp_bank_transfer. Stripe answers requires_action with
   * next_action.display_bank_transfer_instructions; each transfer arriving is applied to the
   * PaymentIntent (payment_intent.partially_funded) until it is funded (payment_intent.succeeded).
   * Both calls carry keys derived from the charge id, so a retry finds the same customer and
   * PaymentIntent. Stripe keeps no expiry of its own here: Kessai cancels the PaymentIntent past
   * the charge's deadline, and what arrives later stays in the customer's cash balance.
   */
  async #createBankTransfer(request: DeferredPaymentRequest): Promise<DeferredPaymentResult> {
    let intent: Stripe.PaymentIntent;
    try {
      const customer = await this.#stripe.customers.create(
        {
          ...(request.customerEmail ? { email: request.customerEmail } : {}),
          metadata: { [STRIPE_REFERENCE_METADATA_KEY]: request.reference },
        },
        { idempotencyKey: `${request.reference}:customer` },
      );
      intent = await this.#stripe.paymentIntents.create(
        {
          amount: checkWireAmount(request.amount),
          currency: request.currency.toLowerCase(),
          customer: customer.id,
          confirm: true,
          allowed_payment_method_types: ['customer_balance'],
          payment_method_data: { type: 'customer_balance' },
          payment_method_options: {
            customer_balance: { funding_type: 'bank_transfer', bank_transfer: { type: 'jp_bank_transfer' } },
          },
          metadata: { [STRIPE_REFERENCE_METADATA_KEY]: request.reference },
        },
        { idempotencyKey: request.reference },
      );
    } catch (error) {
      throw this.#failure('create_deferred_payment', error);
    }
    const instructions = intent.next_action?.display_bank_transfer_instructions;
    const zengin = instructions?.financial_addresses?.find((address) => address.type === 'zengin')?.zengin;
    const customerId = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
    if (
      intent.status !== 'requires_action' ||
      !instructions?.hosted_instructions_url ||
      !zengin?.bank_code ||
      !zengin.account_number ||
      !customerId
    )
      throw new TransientProcessorError('create_deferred_payment', 'malformed_response');
    return {
      processorReference: intent.id,
      instructions: {
        type: 'bank_transfer',
        bankCode: zengin.bank_code,
        bankName: zengin.bank_name ?? '',
        branchCode: zengin.branch_code ?? '',
        branchName: zengin.branch_name ?? '',
        // the virtual account is the customer's cash balance's: the customer names it
        accountId: customerId,
        accountNumber: zengin.account_number,
        accountHolderName: zengin.account_holder_name ?? '',
        paymentUrl: instructions.hosted_instructions_url,
      },
    };
  }

  async status(reference: string): Promise<PaymentStatusResult> {
    const intent = (await this.#search(reference)) ?? (await this.#listRecent(reference));
    if (!intent) return { found: false };
    const deposits = kindOf(intent) === 'bank_transfer' ? await this.#fundingsOf(intent) : undefined;
    return { found: true, payment: fromStripe(intent, reference, deposits) };
  }

  /**
   * A bank-transfer PaymentIntent's deposits: the customer's cash balance transactions that applied
   * money to it (`applied_to_payment`), oldest first, each its own id and amount
   * (https://docs.stripe.com/api/cash_balance_transactions). A transfer of more than the
   * PaymentIntent still needs leaves the rest in the cash balance, never applied.
   */
  async #fundingsOf(intent: Stripe.PaymentIntent): Promise<ProcessorDeposit[]> {
    const customer = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
    if (!customer) return [];
    const deposits: ProcessorDeposit[] = [];
    try {
      for await (const transaction of this.#stripe.customers.listCashBalanceTransactions(customer, {
        limit: 100,
      })) {
        const applied = transaction.applied_to_payment?.payment_intent;
        const appliedTo = typeof applied === 'string' ? applied : applied?.id;
        if (transaction.type !== 'applied_to_payment' || appliedTo !== intent.id) continue;
        deposits.push({
          id: transaction.id,
          amount: -transaction.net_amount,
          receivedOn: new Date(transaction.created * 1000),
        });
      }
    } catch (error) {
      throw this.#failure('status', error);
    }
    // Stripe lists newest first
    return deposits.reverse();
  }

  async #search(reference: string): Promise<Stripe.PaymentIntent | null> {
    const quoted = reference.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
    try {
      const result = await this.#stripe.paymentIntents.search({
        query: `metadata['${STRIPE_REFERENCE_METADATA_KEY}']:'${quoted}'`,
        expand: ['data.latest_charge'],
      });
      return result.data.find((intent) => referenceOf(intent) === reference) ?? null;
    } catch (error) {
      throw this.#failure('status', error);
    }
  }

  /** Search can lag behind a write: the list is consistent. Newest first, as far back as a key lives. */
  async #listRecent(reference: string): Promise<Stripe.PaymentIntent | null> {
    const since = Math.floor(Date.now() / 1000) - IDEMPOTENCY_WINDOW_SECONDS;
    try {
      for await (const intent of this.#stripe.paymentIntents.list({
        created: { gte: since },
        limit: 100,
        expand: ['data.latest_charge'],
      })) {
        if (referenceOf(intent) === reference) return intent;
      }
      return null;
    } catch (error) {
      throw this.#failure('status', error);
    }
  }

  /** GET /v1/payment_intents/:id; null when Stripe has no such PaymentIntent. */
  async #retrieve(operation: ProcessorOperation, id: string): Promise<Stripe.PaymentIntent | null> {
    try {
      return await this.#stripe.paymentIntents.retrieve(id);
    } catch (error) {
      if (stripeErrorDisposition(factsOf(error)).kind === 'not_found') return null;
      throw this.#failure(operation, error);
    }
  }

  /** A declined or refused operation as its SDK error; anything else thrown as transient or refused. */
  #decline(operation: ProcessorOperation, error: unknown, stateRefusal: PaymentErrorName = 'CARD_REJECTED') {
    const disposition = stripeErrorDisposition(factsOf(error));
    switch (disposition.kind) {
      case 'decline':
        return stripePaymentError(disposition.sdk, messageOf(error));
      case 'state':
        return stripePaymentError(stateRefusal, messageOf(error));
      case 'not_found':
        if (operation !== 'authorize') return transactionNotFound();
        throw this.#failure(operation, error);
      case 'transient':
      case 'refused':
        throw this.#failure(operation, error);
    }
  }

  /** The thrown form of an error that is no result: transient, or else a refused request. */
  #failure(operation: ProcessorOperation, error: unknown): Error {
    const facts = factsOf(error);
    if (facts.type === 'StripeConnectionError') {
      const timedOut = /timeout/i.test(messageOf(error));
      if (timedOut) return new TransientProcessorError(operation, 'timeout');
      // stripe-node keeps the socket's error as `detail`: refused or unresolved, never sent
      const detail = error instanceof Stripe.errors.StripeError ? (error.detail as unknown) : undefined;
      return new TransientProcessorError(operation, 'network', null, null, unexecutedReasonOf(detail));
    }
    const disposition = stripeErrorDisposition(facts);
    if (disposition.kind === 'transient') {
      const status = facts.statusCode ?? null;
      if (facts.type === 'StripeAPIError' && /invalid json/i.test(messageOf(error)))
        return new TransientProcessorError(operation, 'malformed_response', status);
      const kind = status === 429 || facts.type === 'StripeRateLimitError' ? 'rate_limited' : 'server_error';
      // Stripe saves an idempotent result only once an endpoint began executing, which a request
      // its rate limiter turned away never did: an explicit "not processed" (decision 0056)
      const unexecuted = status === 429 && facts.code === 'rate_limit' ? 'not_processed' : null;
      return new TransientProcessorError(operation, kind, status, retryAfterOf(error), unexecuted);
    }
    if (!(error instanceof Stripe.errors.StripeError)) {
      // not Stripe's: a bug on this side, rethrown as it is (no request data in it)
      return error instanceof Error ? error : new Error(String(error));
    }
    return new ProcessorRequestRejectedError(
      operation,
      facts.statusCode ?? 0,
      facts.code ?? error.rawType ?? 'unknown',
      messageOf(error).slice(0, 200),
    );
  }
}

/**
 * The longest statement_descriptor_suffix that fits every account: Stripe's whole card descriptor
 * is at most 22 characters, its prefix ("shortened descriptor") up to 10, joined by "* "
 * (https://docs.stripe.com/get-started/account/statement-descriptors).
 */
export const STRIPE_DESCRIPTOR_SUFFIX_MAX = 22 - 10 - 2;

/**
 * The charge's descriptor as Stripe's dynamic suffix of a card's statement descriptor, within
 * Stripe's rules: Latin letters, digits, spaces and punctuation other than < > \ ' " *, at least
 * one letter, at most STRIPE_DESCRIPTOR_SUFFIX_MAX characters. What cannot be made to fit is
 * dropped (the account's own descriptor shows alone), never sent to be refused.
 */
export function stripeDescriptorSuffix(descriptor: string | undefined): string | null {
  if (!descriptor) return null;
  const latin = descriptor
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/[<>\\'"*]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, STRIPE_DESCRIPTOR_SUFFIX_MAX)
    .trim();
  return /[A-Za-z]/.test(latin) ? latin : null;
}

function descriptorSuffix(descriptor: string | undefined): Partial<Stripe.PaymentIntentCreateParams> {
  const suffix = stripeDescriptorSuffix(descriptor);
  return suffix ? { statement_descriptor_suffix: suffix } : {};
}

/** payment_method_options for a charge that asks for 3-D Secure: `any` for mode require, `challenge` for force. */
function threeDsOptions(request: AuthorizeRequest): Partial<Stripe.PaymentIntentCreateParams> {
  const mode = request.threeDs?.mode;
  if (mode !== 'require' && mode !== 'force') return {};
  return {
    payment_method_options: {
      card: { request_three_d_secure: mode === 'force' ? 'challenge' : 'any' },
    },
  };
}

function factsOf(error: unknown): StripeErrorFacts {
  if (!(error instanceof Stripe.errors.StripeError)) return { type: 'unknown' };
  return {
    type: error.type,
    statusCode: error.statusCode,
    code: error.code,
    declineCode: error.decline_code || undefined,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : '';
}

function intentIdOf(error: unknown): string | undefined {
  return error instanceof Stripe.errors.StripeError ? error.payment_intent?.id : undefined;
}

function retryAfterOf(error: unknown): number | null {
  if (!(error instanceof Stripe.errors.StripeError)) return null;
  const header = error.headers?.['retry-after'];
  const seconds = header === undefined ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

function transactionNotFound() {
  return paymentError('TRANSACTION_NOT_FOUND', 'Stripe has no PaymentIntent with this id');
}

function referenceOf(intent: Stripe.PaymentIntent): string | undefined {
  return intent.metadata?.[STRIPE_REFERENCE_METADATA_KEY];
}

/** The SDK error of a PaymentIntent left unpaid: its last payment error through the table. */
function intentError(intent: Stripe.PaymentIntent): PaymentErrorDetails {
  const last = intent.last_payment_error;
  if (!last) return paymentError('CARD_REJECTED');
  const disposition = stripeErrorDisposition({
    type: last.type === 'card_error' ? 'StripeCardError' : 'StripeInvalidRequestError',
    code: last.code,
    declineCode: last.decline_code,
  });
  return disposition.kind === 'decline'
    ? stripePaymentError(disposition.sdk, last.message)
    : paymentError('CARD_REJECTED');
}

function kindOf(intent: Stripe.PaymentIntent): ProcessorPayment['kind'] {
  if (intent.payment_method_types.includes('konbini')) return 'konbini';
  if (intent.payment_method_types.includes('customer_balance')) return 'bank_transfer';
  return 'card';
}

function statusOf(intent: Stripe.PaymentIntent): ProcessorPaymentStatus {
  switch (intent.status) {
    case 'requires_action':
      // a konbini or bank transfer waits for the customer's money, a card for its authentication
      return kindOf(intent) === 'card' ? 'pending_authentication' : 'awaiting_payment';
    case 'processing':
      return 'awaiting_payment';
    case 'requires_capture':
      return 'authorized';
    case 'succeeded':
      // a bank transfer's money is its deposits, whose total the charge's own match_amount rule
      // judges, as for every processor's transfers (the processor decides no match)
      return kindOf(intent) === 'bank_transfer' ? 'awaiting_payment' : 'captured';
    case 'canceled':
      return 'voided';
    case 'requires_payment_method':
    case 'requires_confirmation':
      return 'declined';
    default:
      // a status newer than this adapter: not readable, asked again later
      throw new TransientProcessorError('status', 'malformed_response');
  }
}

/**
 * Stripe's PaymentIntent as the port's payment; the refunded amount is its latest charge's. A paid
 * konbini payment is one deposit of the amount received, its id the PaymentIntent's; a bank
 * transfer's deposits are the fundings applied to it (`fundings`, read from the cash balance).
 */
export function fromStripe(
  intent: Stripe.PaymentIntent,
  reference: string,
  fundings?: ProcessorDeposit[],
): ProcessorPayment {
  const status = statusOf(intent);
  const kind = kindOf(intent);
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  return {
    processorReference: intent.id,
    reference,
    kind,
    status,
    amount: intent.amount,
    currency: intent.currency.toUpperCase(),
    capturedAmount: status === 'captured' ? intent.amount_received : 0,
    refundedAmount: charge?.amount_refunded ?? 0,
    error: status === 'declined' ? intentError(intent) : null,
    deposits:
      kind === 'bank_transfer'
        ? (fundings ?? [])
        : kind === 'konbini' && status === 'captured'
          ? [
              {
                id: intent.id,
                amount: intent.amount_received,
                receivedOn: new Date((charge?.created ?? intent.created) * 1000),
              },
            ]
          : [],
  };
}
