import { createHmac, randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { passesLuhn } from '@kessai/cards';
import { IdempotencyKeys, InjectedFaults, isRecord, postWebhook, startLocalServer } from './fake-server';
import { ThreeDsPages } from './three-ds-pages';

// A stateful fake of KOMOJU's Payments API for tests, speaking KOMOJU's wire only as KOMOJU documents
// it: https://doc.komoju.com/reference (payments: create, show, list, capture, cancel, refund),
// https://doc.komoju.com/docs/errors (the error object and statuses), https://doc.komoju.com/docs/
// idempotent-requests (X-KOMOJU-IDEMPOTENCY: a repeat answers the first answer, a repeat while the
// first runs answers 409), https://doc.komoju.com/docs/webhooks (Event bodies, X-Komoju-ID,
// X-Komoju-Event, X-Komoju-Signature = hex HMAC-SHA256 of the raw body), https://doc.komoju.com/
// docs/test-cards (the test card numbers and their outcomes), https://doc.komoju.com/reference/
// payments (statuses: `pending` awaits the customer), and the models of the official Ruby SDK
// (komoju/komoju-ruby-sdk: PaymentDetailsPayPay, ResponsePaymentDetailsPayPay). Where KOMOJU documents nothing the fake says so beside the rule.

/** KOMOJU's test cards (https://doc.komoju.com/docs/test-cards) and the error each answers with. */
export const KOMOJU_TEST_CARDS = {
  visa: '4111111111111111',
  mastercard: '5555555555554444',
  jcb: '3530111333300000',
  amex: '378282246310005',
  diners: '30569309025904',
  insufficientFunds: '4123111111111000',
  exceededLimit: '4123111111111018',
  badSecurityCode: '4123111111111034',
  expired: '4123111111111042',
  cardUnusable: '4123111111111059',
  invalidCard: '4123111111111075',
  /**
   * asks for 3-D Secure: the card of KOMOJU's 3-D Secure guide (https://doc.komoju.com/docs/
   * 3d-secure). The fake answers it `pending` with payment_details.redirect_url, its ACS page.
   */
  threeDsRequired: '4100000000000100',
} as const;

/**
 * The error code of each failing test card. The page names the scenario, not the code: the codes
 * are KOMOJU's card codes (KOMOJU's ActiveMerchant gateway: bad_verification_value, card_expired,
 * card_declined, invalid_number) and the Komoju-Scenario name insufficient_funds.
 */
const DECLINES: Record<string, { code: string; message: string }> = {
  [KOMOJU_TEST_CARDS.insufficientFunds]: { code: 'insufficient_funds', message: 'Insufficient funds' },
  [KOMOJU_TEST_CARDS.exceededLimit]: { code: 'card_declined', message: 'The card exceeded its limit' },
  [KOMOJU_TEST_CARDS.badSecurityCode]: {
    code: 'bad_verification_value',
    message: 'The verification value is invalid',
  },
  [KOMOJU_TEST_CARDS.expired]: { code: 'card_expired', message: 'The card has expired' },
  [KOMOJU_TEST_CARDS.cardUnusable]: { code: 'card_declined', message: 'The card was declined' },
  [KOMOJU_TEST_CARDS.invalidCard]: { code: 'invalid_number', message: 'The card number is invalid' },
};

const KONBINI_STORES = ['seven-eleven', 'lawson', 'family-mart', 'ministop', 'daily-yamazaki', 'seicomart'];

type Status = 'pending' | 'authorized' | 'captured' | 'cancelled' | 'expired' | 'refunded' | 'failed';

export interface FakeKomojuPayment {
  id: string;
  resource: 'payment';
  status: Status;
  amount: number;
  tax: number;
  customer: null;
  payment_deadline: string | null;
  payment_details: Record<string, unknown>;
  payment_method_fee: number;
  total: number;
  currency: string;
  description: string | null;
  captured_at: string | null;
  external_order_num: string | null;
  metadata: Record<string, string>;
  created_at: string;
  amount_refunded: number;
  locale: string;
  session: null;
  customer_family_name: null;
  customer_given_name: null;
  mcc: null;
  statement_descriptor: null;
  refunds: {
    id: string;
    resource: 'refund';
    amount: number;
    currency: string;
    payment: string;
    created_at: string;
  }[];
  refund_requests: never[];
}

export interface FakeKomojuOptions {
  secretKey: string;
  /** signs webhook deliveries */
  webhookSecret: string;
  /** where deliveries go; none are sent without it */
  webhookUrl?: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  body: string;
  status: number | null;
}

interface Answer {
  status: number;
  body: unknown;
}

export interface FakeKomoju {
  /** the API base, as KomojuPaymentProcessor's baseUrl (…/api/v1) */
  url: string;
  payments: Map<string, FakeKomojuPayment>;
  /** operations executed, by name: what a retried key must not raise */
  executed: { create: number; capture: number; cancel: number; refund: number };
  /** every request received, in order: its method, path and X-KOMOJU-IDEMPOTENCY key */
  requests: { method: string; path: string; key: string | null }[];
  /** payment creations executed under an external_order_num (declined attempts included) */
  createdFor(externalOrderNum: string): number;
  /** the next `count` POSTs answer 503 service_unavailable without executing */
  failNext(count: number): void;
  /** the next `count` POSTs execute, then answer only after `ms` (a client timeout after the fact) */
  delayNext(count: number, ms: number): void;
  /** a customer pays a konbini payment at the store: captured, and payment.captured delivered */
  payKonbini(paymentId: string): Promise<void>;
  /**
   * The cardholder ends a pending 3-D Secure at the fake's ACS page (GET/POST
   * /three_d_secure/:id, what payment_details.redirect_url names): authenticated, the payment is
   * captured or authorized as it was asked, else failed; the event delivered; the browser sent to
   * the payment's return_url. Once: a repeat changes nothing.
   */
  authenticate(paymentId: string, result: 'authenticated' | 'failed'): Promise<string | null>;
  /** 3-D Secure authentications ended, by payment id */
  authentications: Map<string, number>;
  /**
   * The customer ends a pending PayPay payment at its page (GET/POST /paypay/:id, what
   * payment_details.redirect_url names), as KOMOJU's redirect to PayPay and back: paid, the
   * payment is captured and payment.captured delivered; refused by the wallet, failed and
   * payment.failed. Answers the payment's return_url (where the browser goes next). Once: a
   * payment no longer pending changes nothing.
   */
  payOnline(paymentId: string, result: 'paid' | 'failed'): Promise<string | null>;
  /** a pending PayPay payment nobody paid in time: expired, and payment.expired delivered */
  expireOnline(paymentId: string): Promise<void>;
  /** PayPay payments ended at their page (paid or failed), by payment id */
  onlinePayments: Map<string, number>;
  /** delivers an event of a payment (again), as KOMOJU does on its retries */
  deliver(event: string, paymentId: string): Promise<WebhookDelivery>;
  webhookUrl: string | undefined;
  /** the secret key requests must carry: changed, the old one is refused (a key rolled at KOMOJU) */
  secretKey: string;
  /** what deliveries are signed with from now on */
  webhookSecret: string;
  deliveries: WebhookDelivery[];
  close(): Promise<void>;
}

function komojuId(): string {
  return randomBytes(13).toString('hex');
}

function error(status: number, code: string, message: string, param: string | null = null): Answer {
  return { status, body: { error: { code, message, param } } };
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^5[1-5]/.test(number)) return 'master';
  if (/^3[47]/.test(number)) return 'american_express';
  if (number.startsWith('35')) return 'jcb';
  if (number.startsWith('30') || number.startsWith('36')) return 'diners_club';
  return 'unknown';
}

export async function startFakeKomoju(options: FakeKomojuOptions): Promise<FakeKomoju> {
  const payments = new Map<string, FakeKomojuPayment>();
  const keys = new IdempotencyKeys<Answer>();
  const faults = new InjectedFaults();
  const executed = { create: 0, capture: 0, cancel: 0, refund: 0 };
  const createdByOrder = new Map<string, number>();
  const requests: FakeKomoju['requests'] = [];
  const deliveries: WebhookDelivery[] = [];
  /** what a pending 3-D Secure payment becomes when authenticated, and where the browser goes back */
  const challenges = new Map<string, { capture: boolean; returnUrl: string | null }>();
  const authentications = new Map<string, number>();
  /** pending PayPay payments' return_url, by payment id */
  const wallets = new Map<string, { returnUrl: string | null }>();
  const onlinePayments = new Map<string, number>();

  const fake: FakeKomoju = {
    url: '',
    payments,
    executed,
    requests,
    createdFor: (order) => createdByOrder.get(order) ?? 0,
    webhookUrl: options.webhookUrl,
    secretKey: options.secretKey,
    webhookSecret: options.webhookSecret,
    deliveries,
    failNext: (count) => faults.failNext(count),
    delayNext: (count, ms) => faults.delayNext(count, ms),
    payKonbini: async (paymentId) => {
      const payment = payments.get(paymentId);
      if (!payment || payment.payment_details.type !== 'konbini' || payment.status !== 'authorized') {
        throw new Error(`payment ${paymentId} is no konbini payment waiting to be paid`);
      }
      payment.status = 'captured';
      payment.captured_at = new Date().toISOString();
      await fake.deliver('payment.captured', paymentId);
    },
    deliver: async (event, paymentId) => {
      const payment = payments.get(paymentId);
      if (!payment) throw new Error(`no payment ${paymentId}`);
      const body = JSON.stringify({
        id: `ev_${komojuId()}`,
        type: event,
        resource: 'event',
        data: payment,
        created_at: new Date().toISOString(),
        reason: null,
      });
      const delivery: WebhookDelivery = { id: komojuId(), event, body, status: null };
      deliveries.push(delivery);
      if (!fake.webhookUrl) return delivery;
      delivery.status = await postWebhook(
        fake.webhookUrl,
        {
          'content-type': 'application/json',
          'user-agent': 'Komoju-Webhook',
          'x-komoju-id': delivery.id,
          'x-komoju-event': event,
          'x-komoju-signature': createHmac('sha256', fake.webhookSecret).update(body).digest('hex'),
        },
        body,
      );
      return delivery;
    },
    authentications,
    authenticate: async (paymentId, result) => {
      const payment = payments.get(paymentId);
      const challenge = challenges.get(paymentId);
      if (!payment || !challenge) throw new Error(`payment ${paymentId} never asked for 3-D Secure`);
      if (payment.status !== 'pending') return challenge.returnUrl;
      authentications.set(paymentId, (authentications.get(paymentId) ?? 0) + 1);
      if (result === 'authenticated') {
        payment.status = challenge.capture ? 'captured' : 'authorized';
        if (challenge.capture) payment.captured_at = new Date().toISOString();
      } else {
        payment.status = 'failed';
      }
      const event = { captured: 'payment.captured', authorized: 'payment.authorized' }[
        payment.status as 'captured' | 'authorized'
      ];
      await fake.deliver(event ?? 'payment.failed', paymentId);
      return challenge.returnUrl;
    },
    onlinePayments,
    payOnline: async (paymentId, result) => {
      const payment = payments.get(paymentId);
      const wallet = wallets.get(paymentId);
      if (!payment || !wallet) throw new Error(`payment ${paymentId} is no PayPay payment`);
      if (payment.status !== 'pending') return wallet.returnUrl;
      onlinePayments.set(paymentId, (onlinePayments.get(paymentId) ?? 0) + 1);
      if (result === 'paid') {
        payment.status = 'captured';
        payment.captured_at = new Date().toISOString();
        payment.payment_details.external_payment_id = `pp_${komojuId()}`;
      } else {
        payment.status = 'failed';
      }
      await fake.deliver(result === 'paid' ? 'payment.captured' : 'payment.failed', paymentId);
      return wallet.returnUrl;
    },
    expireOnline: async (paymentId) => {
      const payment = payments.get(paymentId);
      if (!payment || !wallets.has(paymentId) || payment.status !== 'pending')
        throw new Error(`payment ${paymentId} is no PayPay payment waiting to be paid`);
      payment.status = 'expired';
      await fake.deliver('payment.expired', paymentId);
    },
    close: () => server.close(),
  };

  function paymentIn(status: Status, request: Record<string, unknown>, details: Record<string, unknown>) {
    const amount = request.amount as number;
    const now = new Date().toISOString();
    const payment: FakeKomojuPayment = {
      id: komojuId(),
      resource: 'payment',
      status,
      amount,
      tax: 0,
      customer: null,
      payment_deadline: null,
      payment_details: details,
      payment_method_fee: 0,
      total: amount,
      currency: request.currency as string,
      description: typeof request.description === 'string' ? request.description : null,
      captured_at: status === 'captured' ? now : null,
      external_order_num: typeof request.external_order_num === 'string' ? request.external_order_num : null,
      metadata: {},
      created_at: now,
      amount_refunded: 0,
      locale: 'ja',
      session: null,
      customer_family_name: null,
      customer_given_name: null,
      mcc: null,
      statement_descriptor: null,
      refunds: [],
      refund_requests: [],
    };
    payments.set(payment.id, payment);
    return payment;
  }

  function countCreation(request: Record<string, unknown>) {
    executed.create++;
    if (typeof request.external_order_num === 'string') {
      const order = request.external_order_num;
      createdByOrder.set(order, (createdByOrder.get(order) ?? 0) + 1);
    }
  }

  function create(request: Record<string, unknown>): Answer {
    if (!Number.isSafeInteger(request.amount) || (request.amount as number) < 0)
      return error(422, 'missing_parameter', 'A required parameter (amount) is missing', 'amount');
    if (typeof request.currency !== 'string' || !/^[A-Z]{3}$/.test(request.currency))
      return error(422, 'missing_parameter', 'A required parameter (currency) is missing', 'currency');
    const details = request.payment_details;
    if (!isRecord(details))
      return error(
        422,
        'missing_parameter',
        'A required parameter (payment_details) is missing',
        'payment_details',
      );
    if (details.type === 'credit_card') {
      for (const field of ['number', 'month', 'year'])
        if (details[field] === undefined || details[field] === null)
          return error(
            422,
            'missing_parameter',
            `A required parameter (payment_details[${field}]) is missing`,
          );
      const number = String(details.number);
      countCreation(request);
      const decline = DECLINES[number];
      if (decline) return error(422, decline.code, decline.message);
      if (!/^\d{12,19}$/.test(number) || !passesLuhn(number))
        return error(422, 'invalid_number', 'The card number is invalid');
      const cardDetails = {
        type: 'credit_card',
        brand: brandOf(number),
        last_four_digits: number.slice(-4),
        month: Number(details.month),
        year: Number(details.year),
        name: typeof details.name === 'string' ? details.name : null,
        email: typeof details.email === 'string' ? details.email : null,
      };
      if (number === KOMOJU_TEST_CARDS.threeDsRequired) {
        // the cardholder must authenticate: pending until the ACS page says how it went
        const payment = paymentIn('pending', request, cardDetails);
        payment.payment_details.redirect_url = `${origin()}/three_d_secure/${payment.id}`;
        challenges.set(payment.id, {
          capture: request.capture !== false,
          returnUrl: typeof request.return_url === 'string' ? request.return_url : null,
        });
        return { status: 200, body: payment };
      }
      // "The payment will be captured immediately if omitted" (CreatePaymentRequest.capture)
      const payment = paymentIn(request.capture === false ? 'authorized' : 'captured', request, cardDetails);
      void fake.deliver(
        payment.status === 'captured' ? 'payment.captured' : 'payment.authorized',
        payment.id,
      );
      return { status: 200, body: payment };
    }
    if (details.type === 'konbini') {
      if (typeof details.store !== 'string' || !KONBINI_STORES.includes(details.store))
        return error(422, 'missing_parameter', 'A required parameter (payment_details[store]) is missing');
      if (typeof details.email !== 'string' || details.email === '')
        return error(422, 'missing_parameter', 'A required parameter (payment_details[email]) is missing');
      countCreation(request);
      const receipt = String(Math.floor(Math.random() * 1e11)).padStart(11, '0');
      const payment = paymentIn('authorized', request, {
        type: 'konbini',
        store: details.store,
        email: details.email,
        confirmation_code: String(Math.floor(Math.random() * 1e6)).padStart(6, '0'),
        receipt,
        instructions_url: `${origin()}/konbini/${receipt}`,
      });
      payment.payment_deadline = new Date(Date.now() + 7 * 86_400_000).toISOString();
      void fake.deliver('payment.authorized', payment.id);
      return { status: 200, body: payment };
    }
    if (details.type === 'paypay') {
      // PayPay takes yen only; what KOMOJU answers for another currency is not documented: the
      // fake refuses it as a bad request, executing nothing
      if (request.currency !== 'JPY') return error(400, 'bad_request', 'PayPay takes JPY only', 'currency');
      countCreation(request);
      // ResponsePaymentDetailsPayPay: pending until the customer pays at redirect_url (PayPay)
      const payment = paymentIn('pending', request, {
        type: 'paypay',
        email: null,
        redirect_url: null,
        external_payment_id: null,
      });
      payment.payment_details.redirect_url = `${origin()}/paypay/${payment.id}`;
      wallets.set(payment.id, {
        returnUrl: typeof request.return_url === 'string' ? request.return_url : null,
      });
      return { status: 200, body: payment };
    }
    return error(422, 'bad_request', 'The payment type is not supported', 'payment_details[type]');
  }

  function capture(payment: FakeKomojuPayment): Answer {
    // "Only works on payments with a payment_type of credit_card" (Payment: Capture)
    if (payment.payment_details.type !== 'credit_card' || payment.status !== 'authorized')
      return error(422, 'unprocessable_entity', 'The payment cannot be captured');
    executed.capture++;
    payment.status = 'captured';
    payment.captured_at = new Date().toISOString();
    void fake.deliver('payment.captured', payment.id);
    return { status: 200, body: payment };
  }

  function cancel(payment: FakeKomojuPayment): Answer {
    // "The given payment must have a state of pending or authorized" (Payment: Cancel)
    if (payment.status !== 'pending' && payment.status !== 'authorized')
      return error(422, 'unprocessable_entity', 'The payment cannot be cancelled');
    executed.cancel++;
    payment.status = 'cancelled';
    void fake.deliver('payment.cancelled', payment.id);
    return { status: 200, body: payment };
  }

  function refund(payment: FakeKomojuPayment, request: Record<string, unknown>): Answer {
    const remaining = payment.amount - payment.amount_refunded;
    // konbini is refunded by a Refund Request (a manual bank transfer), not by this call; cards and
    // PayPay (KOMOJU's "smartphone payments") are refunded by it, in part too
    const refundable =
      payment.payment_details.type === 'credit_card' || payment.payment_details.type === 'paypay';
    if (payment.status !== 'captured' || !refundable)
      return error(422, 'unprocessable_entity', 'The payment cannot be refunded');
    // "If no amount is specified, the whole payment is refunded" (Payment: Refund)
    const amount = request.amount === undefined ? remaining : request.amount;
    if (!Number.isSafeInteger(amount) || (amount as number) <= 0 || (amount as number) > remaining)
      return error(422, 'unprocessable_entity', 'The refund amount is invalid', 'amount');
    executed.refund++;
    payment.refunds.push({
      id: komojuId(),
      resource: 'refund',
      amount: amount as number,
      currency: payment.currency,
      payment: payment.id,
      created_at: new Date().toISOString(),
    });
    payment.amount_refunded += amount as number;
    if (payment.amount_refunded === payment.amount) payment.status = 'refunded';
    void fake.deliver(
      payment.status === 'refunded' ? 'payment.refunded' : 'payment.refund.created',
      payment.id,
    );
    return { status: 200, body: payment };
  }

  function route(method: string, url: URL, body: Record<string, unknown>): Answer {
    const path = url.pathname.replace(/^\/api\/v1/, '');
    if (method === 'GET' && path === '/payments') {
      const order = url.searchParams.get('external_order_num');
      const data = [...payments.values()].filter((p) => order === null || p.external_order_num === order);
      return {
        status: 200,
        body: { resource: 'list', data, total: data.length, page: 1, per_page: 10, last_page: 1 },
      };
    }
    if (method === 'POST' && path === '/payments') return create(body);
    const match = /^\/payments\/([^/]+)(?:\/(capture|cancel|refund))?$/.exec(path);
    const payment = match ? payments.get(decodeURIComponent(match[1])) : undefined;
    if (!match) return error(404, 'not_found', 'The requested resource could not be found');
    if (!payment) return error(404, 'not_found', 'The requested resource could not be found');
    if (method === 'GET' && !match[2]) return { status: 200, body: payment };
    if (method === 'POST' && match[2] === 'capture') return capture(payment);
    if (method === 'POST' && match[2] === 'cancel') return cancel(payment);
    if (method === 'POST' && match[2] === 'refund') return refund(payment, body);
    return error(404, 'not_found', 'The requested resource could not be found');
  }

  /** the fake's own origin: its pages (the konbini slip, the ACS) are outside the API */
  function origin(): string {
    return fake.url.replace(/\/api\/v1$/, '');
  }

  const pages = new ThreeDsPages('/three_d_secure', 'KOMOJU 3-D Secure', challenges, (id, result) =>
    fake.authenticate(id, result),
  );

  // the PayPay page (payment_details.redirect_url): "authenticated" is the customer paying there
  const wallet = new ThreeDsPages('/paypay', 'PayPay (KOMOJU fake)', wallets, (id, result) =>
    fake.payOnline(id, result === 'authenticated' ? 'paid' : 'failed'),
  );

  function handle(request: IncomingMessage, response: ServerResponse, raw: string) {
    const send = (answer: Answer) =>
      response
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(answer.body));
    // the 3-D Secure page (payment_details.redirect_url): the cardholder's browser, no API key
    if (pages.serve(request, response, raw) || wallet.serve(request, response, raw)) return;
    if (request.headers.authorization !== `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}`)
      return send(error(401, 'unauthorized', 'User authorization failed'));
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const idempotency = request.headers['x-komoju-idempotency'];
    requests.push({ method, path: url.pathname, key: typeof idempotency === 'string' ? idempotency : null });
    let body: Record<string, unknown> = {};
    if (method === 'POST') {
      try {
        const parsed: unknown = raw === '' ? {} : JSON.parse(raw);
        if (!isRecord(parsed)) throw new Error('not an object');
        body = parsed;
      } catch {
        return send(error(400, 'bad_request', 'The request body is not JSON'));
      }
      if (faults.takeFailure()) {
        return send(error(503, 'service_unavailable', 'The server is under maintenance'));
      }
    }
    const key = method === 'POST' ? request.headers['x-komoju-idempotency'] : undefined;
    if (typeof key === 'string') {
      if (key.length === 0 || key.length > 100 || !/^[\x20-\x7e]+$/.test(key))
        return send(error(400, 'bad_request', 'The idempotency key is invalid'));
      const turn = keys.turn(key, url.pathname, raw);
      // KOMOJU asks that every retry send the same key and body; what it answers to a different
      // body is not documented: the fake refuses it as a bad request, never executing it
      if (turn.kind === 'mismatch')
        return send(error(400, 'bad_request', 'The idempotency key was used for another request'));
      // "If the request is retried before the first one produces a response, HTTP 409 is returned"
      if (turn.kind === 'in-progress')
        return send(error(409, 'conflict', 'A request with this key is in progress'));
      if (turn.kind === 'replay') return send(turn.answer);
      const answer = route(method, url, body);
      // a 5xx is no answer to keep: the operation was not executed and may be retried
      if (answer.status >= 500) turn.forget();
      else turn.keep(answer);
      return faults.answer(() => send(answer));
    }
    return send(route(method, url, body));
  }

  const server = await startLocalServer(handle);
  fake.url = `http://127.0.0.1:${server.port}/api/v1`;
  return fake;
}
