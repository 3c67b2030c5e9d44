import { createHash, createHmac, randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { passesLuhn } from '@kessai/cards';
import { IdempotencyKeys, InjectedFaults, isRecord, postWebhook, startLocalServer } from './fake-server';
import { ThreeDsPages } from './three-ds-pages';

// A stateful fake of Stripe's PaymentIntents, Refunds, and the Customers and cash balances of bank
// transfers (customer_balance), for tests, speaking Stripe's wire as Stripe
// documents it and stripe-node sends it: form-encoded bodies with bracketed keys (a[b]=…, a[0]=…),
// Bearer secret key, Idempotency-Key (https://docs.stripe.com/api/idempotent_requests: a key's first
// answer is replayed, with Idempotent-Replayed: true; other parameters answer 400 idempotency_error;
// a repeat while the first runs answers 409 idempotency_key_in_use), the error object
// (https://docs.stripe.com/api/errors: type, code, decline_code, message, payment_intent), the
// PaymentIntent status machine (https://docs.stripe.com/payments/paymentintents/lifecycle), the test
// cards (https://docs.stripe.com/testing), search and list, and webhooks signed with Stripe's scheme
// (Stripe-Signature: t=…,v1=hex HMAC-SHA256 of "t.body", https://docs.stripe.com/webhooks).
// Objects are shaped as Stripe's published fixtures (stripe/openapi fixtures3.json): a test checks
// every object this fake answers against them.

/** Stripe's test cards (https://docs.stripe.com/testing) this fake knows. */
export const STRIPE_TEST_CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  jcb: '3566002020360505',
  amex: '378282246310005',
  genericDecline: '4000000000000002',
  insufficientFunds: '4000000000009995',
  lostCard: '4000000000009987',
  expiredCard: '4000000000000069',
  incorrectCvc: '4000000000000127',
  processingError: '4000000000000119',
  fraudulent: '4100000000000019',
  /** fails the Luhn check */
  incorrectNumber: '4242424242424241',
  /** always asks for 3-D Secure */
  authenticationRequired: '4000002760003184',
} as const;

const DECLINES: Record<string, { code: string; decline_code?: string; message: string }> = {
  [STRIPE_TEST_CARDS.genericDecline]: {
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  },
  [STRIPE_TEST_CARDS.insufficientFunds]: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  [STRIPE_TEST_CARDS.lostCard]: {
    code: 'card_declined',
    decline_code: 'lost_card',
    message: 'Your card was declined.',
  },
  [STRIPE_TEST_CARDS.fraudulent]: {
    code: 'card_declined',
    decline_code: 'fraudulent',
    message: 'Your card was declined.',
  },
  [STRIPE_TEST_CARDS.expiredCard]: { code: 'expired_card', message: 'Your card has expired.' },
  [STRIPE_TEST_CARDS.incorrectCvc]: {
    code: 'incorrect_cvc',
    message: "Your card's security code is incorrect.",
  },
  [STRIPE_TEST_CARDS.processingError]: {
    code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
  },
};

type IntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

type StripeObject = Record<string, unknown>;

export interface FakeStripeOptions {
  secretKey: string;
  /** signs webhook deliveries (whsec_…) */
  webhookSecret: string;
  /** where deliveries go; none are sent without it */
  webhookUrl?: string;
  /** false: the account may not send raw card numbers, as most Stripe accounts */
  rawCardData?: boolean;
}

export interface StripeWebhookDelivery {
  id: string;
  type: string;
  body: string;
  status: number | null;
}

interface Answer {
  status: number;
  body: unknown;
}

export interface FakeStripe {
  /** the API base, as StripePaymentProcessor's baseUrl (the client adds /v1) */
  url: string;
  paymentIntents: Map<string, StripeObject>;
  charges: Map<string, StripeObject>;
  refunds: Map<string, StripeObject>;
  customers: Map<string, StripeObject>;
  /** every customer's cash balance transactions, oldest first */
  cashBalanceTransactions: StripeObject[];
  /** operations executed, by name: what a retried key must not raise */
  executed: { create: number; capture: number; cancel: number; refund: number };
  /** every request received, in order: method, path, Idempotency-Key and the decoded form */
  requests: { method: string; path: string; key: string | null; form: StripeObject }[];
  /** every object answered, by its `object` name: what the fixture test checks */
  answered: StripeObject[];
  /** PaymentIntents created with metadata[kessai_reference] = reference (declined ones too) */
  createdFor(reference: string): number;
  /** the next `count` POSTs answer 500 api_error without executing */
  failNext(count: number): void;
  /**
   * the next `count` POSTs answer 429 `rate_limit` without executing, as Stripe's rate limiter
   * turns a request away before any endpoint runs (no idempotent result is saved)
   */
  rateLimitNext(count: number): void;
  /** the next `count` POSTs execute, then answer only after `ms` (a client timeout after the fact) */
  delayNext(count: number, ms: number): void;
  /** search finds nothing for the next `count` queries, as when Stripe's index lags a write */
  searchLagsNext(count: number): void;
  /** a customer pays a konbini payment at the store: succeeded, payment_intent.succeeded delivered */
  payKonbini(intentId: string): void;
  /**
   * A bank transfer of `amount` arrives in the virtual account of a bank-transfer PaymentIntent's
   * customer, as Stripe's test helper fund_cash_balance does (https://docs.stripe.com/api/
   * cash_balance_transactions, https://docs.stripe.com/payments/customer-balance/reconciliation):
   * a `funded` cash balance transaction, then, reconciled automatically, the money applied to the
   * customer's PaymentIntent waiting for it (`applied_to_payment`), at most what it still needs;
   * funded in full it succeeds (payment_intent.succeeded), else payment_intent.partially_funded.
   * Money beyond what it needs stays in the cash balance.
   */
  fundBankTransfer(intentId: string, amount: number): void;
  /**
   * The cardholder ends a card's 3-D Secure at the fake's page (GET/POST /3ds/:id, what
   * next_action.redirect_to_url.url names): authenticated, the PaymentIntent goes on to
   * succeeded or requires_capture with a charge whose payment_method_details.card.three_d_secure
   * says so; failed, back to requires_payment_method with last_payment_error
   * payment_intent_authentication_failure. The browser goes to return_url with Stripe's
   * payment_intent, payment_intent_client_secret and redirect_status. Once: a repeat changes nothing.
   */
  authenticate(intentId: string, result: 'authenticated' | 'failed'): string | null;
  /** 3-D Secure authentications ended, by PaymentIntent id */
  authentications: Map<string, number>;
  /** sends an event of an object (again), signed, as Stripe does on its retries */
  deliver(type: string, object: StripeObject): Promise<StripeWebhookDelivery>;
  webhookUrl: string | undefined;
  deliveries: StripeWebhookDelivery[];
  close(): Promise<void>;
}

function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function error(status: number, body: StripeObject): Answer {
  return {
    status,
    body: {
      error: {
        ...body,
        doc_url:
          typeof body.code === 'string' ? `https://docs.stripe.com/error-codes/${body.code}` : undefined,
        request_log_url: `https://dashboard.stripe.com/test/logs/${stripeId('req')}`,
      },
    },
  };
}

function invalid(message: string, extra: StripeObject = {}): Answer {
  return error(400, { type: 'invalid_request_error', message, ...extra });
}

function missing(kind: string, id: string): Answer {
  return error(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${id}'`,
    param: 'id',
  });
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^5[1-5]/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (number.startsWith('35')) return 'jcb';
  return 'unknown';
}

/** expand[0]=…&expand[1]=… (stripe-node's encoding of an array) */
function expandOf(query: URLSearchParams): string[] {
  return [...query.entries()].filter(([key]) => /^expand\[\d*\]$/.test(key)).map(([, value]) => value);
}

/** Stripe's form encoding as a nested object: a[b]=1 → {a: {b: '1'}}, a[0]=x → {a: ['x']}. */
export function decodeStripeForm(text: string): StripeObject {
  const root: StripeObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const [head, ...rest] = key.split('[');
    const path = [head, ...rest.map((part) => part.replace(/]$/, ''))];
    let node: StripeObject = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value;
      else node = node[part] = isRecord(node[part]) ? node[part] : {};
    });
  }
  const arrays = (value: unknown): unknown => {
    if (!isRecord(value)) return value;
    const keys = Object.keys(value);
    if (keys.length > 0 && keys.every((key, index) => key === String(index)))
      return keys.map((key) => arrays(value[key]));
    return Object.fromEntries(keys.map((key) => [key, arrays(value[key])]));
  };
  return arrays(root) as StripeObject;
}

export async function startFakeStripe(options: FakeStripeOptions): Promise<FakeStripe> {
  const paymentIntents = new Map<string, StripeObject>();
  const charges = new Map<string, StripeObject>();
  const refunds = new Map<string, StripeObject>();
  const customers = new Map<string, StripeObject>();
  const cashBalanceTransactions: StripeObject[] = [];
  /** each customer's virtual account (zengin), given at its first bank-transfer PaymentIntent */
  const virtualAccounts = new Map<string, StripeObject>();
  const keys = new IdempotencyKeys<Answer>();
  const faults = new InjectedFaults();
  const rateLimits = new InjectedFaults();
  const executed = { create: 0, capture: 0, cancel: 0, refund: 0 };
  const createdByReference = new Map<string, number>();
  const requests: FakeStripe['requests'] = [];
  const answered: StripeObject[] = [];
  const deliveries: StripeWebhookDelivery[] = [];
  let searchLagging = 0;
  /** a card waiting for its 3-D Secure: what confirms it, and where the browser goes back */
  const challenges = new Map<
    string,
    {
      card: { number: string; exp_month: number; exp_year: number; name: string | null };
      returnUrl: string | null;
    }
  >();
  const authentications = new Map<string, number>();

  const fake: FakeStripe = {
    url: '',
    paymentIntents,
    charges,
    refunds,
    customers,
    cashBalanceTransactions,
    executed,
    requests,
    answered,
    createdFor: (reference) => createdByReference.get(reference) ?? 0,
    webhookUrl: options.webhookUrl,
    deliveries,
    failNext: (count) => faults.failNext(count),
    rateLimitNext: (count) => rateLimits.failNext(count),
    delayNext: (count, ms) => faults.delayNext(count, ms),
    searchLagsNext: (count) => {
      searchLagging = count;
    },
    payKonbini: () => {
      throw new Error('not started');
    },
    fundBankTransfer: () => {
      throw new Error('not started');
    },
    authentications,
    authenticate: () => {
      throw new Error('not started');
    },
    deliver: async (type, object) => {
      const created = now();
      const body = JSON.stringify({
        id: stripeId('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created,
        data: { object },
        livemode: false,
        pending_webhooks: 1,
        request: { id: stripeId('req'), idempotency_key: null },
        type,
      });
      const delivery: StripeWebhookDelivery = { id: stripeId('whd'), type, body, status: null };
      deliveries.push(delivery);
      if (!fake.webhookUrl) return delivery;
      const signature = createHmac('sha256', options.webhookSecret)
        .update(`${created}.${body}`)
        .digest('hex');
      delivery.status = await postWebhook(
        fake.webhookUrl,
        {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': `t=${created},v1=${signature}`,
        },
        body,
      );
      return delivery;
    },
    close: () => server.close(),
  };

  function notify(type: string, object: StripeObject) {
    // delivered after the answer, as Stripe does: a copy, the object as it was
    const copy = structuredClone(object);
    setImmediate(() => void fake.deliver(type, copy));
  }

  function newCharge(
    intent: StripeObject,
    card: { number: string; exp_month: number; exp_year: number; name: string | null },
  ) {
    const charge: StripeObject = {
      id: stripeId('ch'),
      object: 'charge',
      amount: intent.amount,
      amount_captured: 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: null,
      billing_details: { address: null, email: null, name: card.name, phone: null, tax_id: null },
      calculated_statement_descriptor: 'KESSAI',
      captured: false,
      created: now(),
      currency: intent.currency,
      customer: null,
      description: null,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: null,
      failure_message: null,
      fraud_details: {},
      livemode: false,
      metadata: { ...(intent.metadata as StripeObject) },
      on_behalf_of: null,
      outcome: null,
      paid: false,
      payment_intent: intent.id,
      payment_method: intent.payment_method,
      payment_method_details: {
        card: {
          amount_authorized: null,
          authorization_code: null,
          brand: brandOf(card.number),
          checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
          country: 'JP',
          exp_month: card.exp_month,
          exp_year: card.exp_year,
          extended_authorization: { status: 'disabled' },
          fingerprint: createHash('sha256').update(card.number).digest('base64url').slice(0, 16),
          funding: 'credit',
          incremental_authorization: { status: 'unavailable' },
          installments: null,
          last4: card.number.slice(-4),
          mandate: null,
          multicapture: { status: 'unavailable' },
          network: brandOf(card.number),
          network_token: { used: false },
          network_transaction_id: null,
          overcapture: { maximum_amount_capturable: intent.amount, status: 'unavailable' },
          regulated_status: null,
          three_d_secure: null,
          transaction_link_id: null,
          wallet: null,
        },
        type: 'card',
      },
      receipt_email: null,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      refunds: { object: 'list', data: [], has_more: false, url: '' },
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: 'pending',
      transfer_data: null,
      transfer_group: null,
    };
    (charge.refunds as StripeObject).url = `/v1/charges/${charge.id as string}/refunds`;
    charges.set(charge.id as string, charge);
    return charge;
  }

  function newIntent(form: StripeObject): StripeObject {
    // allowed_payment_method_types since API version 2026-10-28 (stripe-node 23), payment_method_types before
    const list = form.allowed_payment_method_types ?? form.payment_method_types;
    const allowed = Array.isArray(list) ? (list as string[]) : ['card'];
    const intent: StripeObject = {
      id: stripeId('pi'),
      object: 'payment_intent',
      amount: Number(form.amount),
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: form.capture_method === 'manual' ? 'manual' : 'automatic',
      client_secret: '',
      confirmation_method: 'automatic',
      created: now(),
      currency: form.currency,
      customer: typeof form.customer === 'string' ? form.customer : null,
      customer_account: null,
      description: typeof form.description === 'string' ? form.description : null,
      excluded_payment_method_types: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      managed_payments: { enabled: false },
      metadata: isRecord(form.metadata) ? { ...form.metadata } : {},
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { request_three_d_secure: 'automatic' } },
      payment_method_types: allowed,
      allowed_payment_method_types: allowed,
      processing: null,
      receipt_email: null,
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix:
        typeof form.statement_descriptor_suffix === 'string' ? form.statement_descriptor_suffix : null,
      status: 'requires_payment_method' satisfies IntentStatus,
      transfer_data: null,
      transfer_group: null,
    };
    intent.client_secret = `${intent.id as string}_secret_${randomBytes(12).toString('hex')}`;
    paymentIntents.set(intent.id as string, intent);
    return intent;
  }

  function create(form: StripeObject): Answer {
    const amount = Number(form.amount);
    if (typeof form.amount !== 'string' || !Number.isSafeInteger(amount) || amount < 1)
      return invalid('Missing required param: amount.', { code: 'parameter_missing', param: 'amount' });
    if (typeof form.currency !== 'string' || !/^[a-z]{3}$/.test(form.currency))
      return invalid('Missing required param: currency.', { code: 'parameter_missing', param: 'currency' });
    const data = form.payment_method_data;
    const card = isRecord(data) && isRecord(data.card) ? data.card : null;
    if (card && options.rawCardData === false) {
      // Stripe's own words to an account without raw card data access (no code)
      return invalid(
        'Sending credit card numbers directly to the Stripe API is generally unsafe. To continue ' +
          'processing use Stripe.js, the Stripe mobile bindings, or Stripe Elements. If you are qualified ' +
          'to handle card data directly, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.',
      );
    }
    if (isRecord(data) && data.type === 'customer_balance') {
      const refused = customerBalanceRefusal(form);
      if (refused) return refused;
    }
    const reference = isRecord(form.metadata) ? form.metadata.kessai_reference : undefined;
    executed.create++;
    if (typeof reference === 'string')
      createdByReference.set(reference, (createdByReference.get(reference) ?? 0) + 1);
    const intent = newIntent(form);
    notify('payment_intent.created', intent);
    if (form.confirm !== 'true') return ok(intent);
    if (isRecord(data) && data.type === 'konbini') return confirmKonbini(intent, data, form);
    if (isRecord(data) && data.type === 'customer_balance') return confirmCustomerBalance(intent, form);
    if (!card) return invalid('You must provide a payment method to confirm.', { code: 'parameter_missing' });
    const number = typeof card.number === 'string' ? card.number : '';
    const billing = isRecord(data) && isRecord(data.billing_details) ? data.billing_details : {};
    const cardFacts = {
      number,
      exp_month: Number(card.exp_month),
      exp_year: Number(card.exp_year),
      name: typeof billing.name === 'string' ? billing.name : null,
    };
    intent.payment_method = stripeId('pm');
    const decline = (details: { code: string; decline_code?: string; message: string }): Answer => {
      const charge = newCharge(intent, cardFacts);
      charge.status = 'failed';
      charge.failure_code = details.code;
      charge.failure_message = details.message;
      intent.latest_charge = charge.id;
      intent.last_payment_error = {
        type: 'card_error',
        charge: charge.id,
        code: details.code,
        ...(details.decline_code ? { decline_code: details.decline_code } : {}),
        message: details.message,
        payment_method: { id: intent.payment_method, object: 'payment_method', type: 'card' },
      };
      intent.payment_method = null;
      intent.status = 'requires_payment_method';
      notify('payment_intent.payment_failed', intent);
      return error(402, {
        type: 'card_error',
        charge: charge.id,
        code: details.code,
        ...(details.decline_code ? { decline_code: details.decline_code } : {}),
        message: details.message,
        payment_intent: structuredClone(intent),
      });
    };
    if (!/^\d{12,19}$/.test(number) || !passesLuhn(number))
      return decline({ code: 'incorrect_number', message: 'Your card number is incorrect.' });
    const known = DECLINES[number];
    if (known) return decline(known);
    const methodOptions = isRecord(form.payment_method_options) ? form.payment_method_options : {};
    const cardOptions = isRecord(methodOptions.card) ? methodOptions.card : {};
    // request_three_d_secure: `any` and `challenge` authenticate every card that supports it
    const requested = cardOptions.request_three_d_secure;
    const asked = requested === 'any' || requested === 'challenge';
    if (typeof requested === 'string')
      intent.payment_method_options = { card: { request_three_d_secure: requested } };
    if (number === STRIPE_TEST_CARDS.authenticationRequired || asked) {
      if (form.error_on_requires_action === 'true')
        return decline({
          code: 'authentication_required',
          decline_code: 'authentication_required',
          message: 'Your card was declined. This transaction requires authentication.',
        });
      intent.status = 'requires_action';
      intent.next_action = {
        type: 'redirect_to_url',
        redirect_to_url: {
          return_url: typeof form.return_url === 'string' ? form.return_url : null,
          url: `${fake.url}/3ds/${intent.id as string}`,
        },
      };
      challenges.set(intent.id as string, {
        card: cardFacts,
        returnUrl: typeof form.return_url === 'string' ? form.return_url : null,
      });
      notify('payment_intent.requires_action', intent);
      return ok(intent);
    }
    approveCard(intent, cardFacts, null);
    return ok(intent);
  }

  /** An approved card's charge: the intent succeeded, or requires_capture when captured manually. */
  function approveCard(
    intent: StripeObject,
    cardFacts: { number: string; exp_month: number; exp_year: number; name: string | null },
    threeDSecure: StripeObject | null,
  ) {
    const charge = newCharge(intent, cardFacts);
    const details = (charge.payment_method_details as StripeObject).card as StripeObject;
    details.three_d_secure = threeDSecure;
    charge.status = 'succeeded';
    charge.paid = true;
    charge.outcome = {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: 'approved_by_network',
      reason: null,
      risk_level: 'normal',
      seller_message: 'Payment complete.',
      type: 'authorized',
    };
    intent.latest_charge = charge.id;
    if (intent.capture_method === 'manual') {
      intent.status = 'requires_capture';
      intent.amount_capturable = intent.amount;
      notify('payment_intent.amount_capturable_updated', intent);
    } else {
      succeed(intent, charge, intent.amount as number);
    }
  }

  fake.authenticate = (intentId, result) => {
    const intent = paymentIntents.get(intentId);
    const challenge = challenges.get(intentId);
    if (!intent || !challenge) throw new Error(`${intentId} never asked for 3-D Secure`);
    const back = (status: string) =>
      challenge.returnUrl === null
        ? null
        : `${challenge.returnUrl}${challenge.returnUrl.includes('?') ? '&' : '?'}${new URLSearchParams({
            payment_intent: intent.id as string,
            payment_intent_client_secret: intent.client_secret as string,
            redirect_status: status,
          }).toString()}`;
    if (intent.status !== 'requires_action')
      return back(intent.status === 'requires_payment_method' ? 'failed' : 'succeeded');
    authentications.set(intentId, (authentications.get(intentId) ?? 0) + 1);
    intent.next_action = null;
    if (result === 'authenticated') {
      approveCard(intent, challenge.card, {
        authentication_flow: 'challenge',
        electronic_commerce_indicator: '05',
        exemption_indicator: null,
        result: 'authenticated',
        result_reason: null,
        transaction_id: randomBytes(16).toString('hex'),
        version: '2.2.0',
      });
      return back('succeeded');
    }
    intent.status = 'requires_payment_method';
    intent.last_payment_error = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      doc_url: 'https://docs.stripe.com/error-codes/payment-intent-authentication-failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
      payment_method: { id: intent.payment_method, object: 'payment_method', type: 'card' },
    };
    intent.payment_method = null;
    notify('payment_intent.payment_failed', intent);
    return back('failed');
  };

  /**
   * A konbini payment (https://docs.stripe.com/payments/konbini/accept-a-payment): JPY only, the
   * customer's name and email required, left requires_action with the codes of each store until
   * paid (payKonbini).
   */
  function confirmKonbini(intent: StripeObject, data: StripeObject, form: StripeObject): Answer {
    const billing = isRecord(data.billing_details) ? data.billing_details : {};
    for (const field of ['name', 'email'])
      if (typeof billing[field] !== 'string' || billing[field] === '')
        return invalid(`Missing required param: payment_method_data[billing_details][${field}].`, {
          code: 'parameter_missing',
          param: `payment_method_data[billing_details][${field}]`,
        });
    if (intent.currency !== 'jpy')
      return invalid('Konbini payments only support JPY.', {
        code: 'parameter_invalid_string',
        param: 'currency',
      });
    const options = isRecord(form.payment_method_options) ? form.payment_method_options : {};
    const konbini = isRecord(options.konbini) ? options.konbini : {};
    const expiresAt =
      typeof konbini.expires_at === 'string' ? Number(konbini.expires_at) : now() + 3 * 86_400;
    const code = () => String(Math.floor(Math.random() * 1e11)).padStart(11, '0');
    intent.payment_method = stripeId('pm');
    intent.payment_method_options = {
      konbini: {
        confirmation_number: null,
        expires_after_days: null,
        expires_at: expiresAt,
        product_description: null,
      },
    };
    intent.status = 'requires_action';
    intent.next_action = {
      type: 'konbini_display_details',
      konbini_display_details: {
        expires_at: expiresAt,
        hosted_voucher_url: `${fake.url}/konbini/${intent.id as string}`,
        stores: {
          familymart: { confirmation_number: code(), payment_code: code() },
          lawson: { confirmation_number: code(), payment_code: code() },
          ministop: { confirmation_number: code(), payment_code: code() },
          seicomart: { confirmation_number: code(), payment_code: code() },
        },
      },
    };
    notify('payment_intent.requires_action', intent);
    return ok(intent);
  }

  /**
   * What Stripe refuses of a customer_balance PaymentIntent before creating it
   * (https://docs.stripe.com/payments/bank-transfers/accept-a-payment): no customer, a customer it
   * does not have, a currency other than JPY for jp_bank_transfer, no bank_transfer funding type.
   */
  function customerBalanceRefusal(form: StripeObject): Answer | null {
    if (typeof form.customer !== 'string')
      return invalid('A customer is required to use the customer_balance payment method.', {
        code: 'parameter_missing',
        param: 'customer',
      });
    if (!customers.has(form.customer)) return { ...missing('customer', form.customer), status: 400 };
    const options = isRecord(form.payment_method_options) ? form.payment_method_options : {};
    const balance = isRecord(options.customer_balance) ? options.customer_balance : {};
    const transfer = isRecord(balance.bank_transfer) ? balance.bank_transfer : {};
    if (balance.funding_type !== 'bank_transfer' || transfer.type !== 'jp_bank_transfer')
      return invalid('This fake takes customer_balance with a jp_bank_transfer funding only.', {
        code: 'parameter_invalid_string',
        param: 'payment_method_options[customer_balance][bank_transfer][type]',
      });
    if (form.currency !== 'jpy')
      return invalid('jp_bank_transfer only supports JPY.', {
        code: 'parameter_invalid_string',
        param: 'currency',
      });
    return null;
  }

  /** The customer's virtual account: one per customer, the same for every PaymentIntent of it. */
  function virtualAccountOf(customer: string): StripeObject {
    let address = virtualAccounts.get(customer);
    if (!address) {
      const blank = { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };
      // Stripe documents the fields, not its test accounts' values: these are the fake's own
      address = {
        type: 'zengin',
        supported_networks: ['zengin'],
        zengin: {
          account_holder_address: { ...blank, country: 'JP' },
          account_holder_name: 'ｶ)ｽﾄﾗｲﾌﾟﾃｽﾄ',
          account_number: String(Math.floor(Math.random() * 1e7)).padStart(7, '0'),
          account_type: 'futsu',
          bank_address: { ...blank, country: 'JP' },
          bank_code: '0999',
          bank_name: 'ﾃｽﾄｷﾞﾝｺｳ',
          branch_code: '001',
          branch_name: 'ﾎﾝﾃﾝ',
        },
      };
      virtualAccounts.set(customer, address);
    }
    return address;
  }

  /**
   * A bank transfer: the PaymentIntent waits (requires_action) with the customer's virtual account
   * in next_action.display_bank_transfer_instructions until its cash balance funds it.
   */
  function confirmCustomerBalance(intent: StripeObject, form: StripeObject): Answer {
    const customer = form.customer as string;
    intent.payment_method = stripeId('pm');
    intent.payment_method_options = {
      customer_balance: {
        bank_transfer: { requested_address_types: ['zengin'], type: 'jp_bank_transfer' },
        funding_type: 'bank_transfer',
      },
    };
    intent.status = 'requires_action';
    intent.next_action = {
      type: 'display_bank_transfer_instructions',
      display_bank_transfer_instructions: {
        amount_remaining: intent.amount,
        currency: 'jpy',
        financial_addresses: [structuredClone(virtualAccountOf(customer))],
        hosted_instructions_url: `${fake.url}/bank_transfer/${intent.id as string}`,
        reference: null,
        type: 'jp_bank_transfer',
      },
    };
    notify('payment_intent.requires_action', intent);
    return ok(intent);
  }

  function balanceOf(customer: string): number {
    const last = cashBalanceTransactions.filter((transaction) => transaction.customer === customer).at(-1);
    return last ? (last.ending_balance as number) : 0;
  }

  function cashBalanceTransaction(customer: string, type: string, net: number, details: StripeObject) {
    const transaction: StripeObject = {
      id: stripeId('ccsbtxn'),
      object: 'customer_cash_balance_transaction',
      created: now(),
      currency: 'jpy',
      customer,
      customer_account: null,
      ending_balance: balanceOf(customer) + net,
      livemode: false,
      net_amount: net,
      type,
      [type]: details,
    };
    cashBalanceTransactions.push(transaction);
    notify('customer_cash_balance_transaction.created', transaction);
    return transaction;
  }

  fake.fundBankTransfer = (intentId, amount) => {
    const intent = paymentIntents.get(intentId);
    const instructions = (intent?.next_action as StripeObject | null)?.display_bank_transfer_instructions as
      StripeObject | undefined;
    if (!intent || intent.status !== 'requires_action' || !instructions)
      throw new Error(`${intentId} is no bank transfer waiting for money`);
    const customer = intent.customer as string;
    cashBalanceTransaction(customer, 'funded', amount, {
      bank_transfer: {
        jp_bank_transfer: { sender_bank: null, sender_branch: null, sender_name: 'ﾔﾏﾀﾞ ﾀﾛｳ' },
        reference: null,
        type: 'jp_bank_transfer',
      },
    });
    const applied = Math.min(balanceOf(customer), instructions.amount_remaining as number);
    cashBalanceTransaction(customer, 'applied_to_payment', -applied, { payment_intent: intent.id });
    instructions.amount_remaining = (instructions.amount_remaining as number) - applied;
    if ((instructions.amount_remaining as number) > 0) {
      notify('payment_intent.partially_funded', intent);
      return;
    }
    const charge = newCharge(intent, { number: '', exp_month: 0, exp_year: 0, name: null });
    charge.customer = customer;
    charge.payment_method_details = { customer_balance: {}, type: 'customer_balance' };
    charge.status = 'succeeded';
    charge.paid = true;
    intent.latest_charge = charge.id;
    intent.next_action = null;
    succeed(intent, charge, intent.amount as number);
  };

  function createCustomer(form: StripeObject): Answer {
    const customer: StripeObject = {
      id: stripeId('cus'),
      object: 'customer',
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: typeof form.description === 'string' ? form.description : null,
      discount: null,
      email: typeof form.email === 'string' ? form.email : null,
      invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
      invoice_settings: {
        custom_fields: null,
        default_payment_method: null,
        footer: null,
        rendering_options: null,
      },
      livemode: false,
      metadata: isRecord(form.metadata) ? { ...form.metadata } : {},
      name: typeof form.name === 'string' ? form.name : null,
      next_invoice_sequence: 1,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
      customer_account: null,
    };
    customers.set(customer.id as string, customer);
    notify('customer.created', customer);
    return ok(customer);
  }

  /** GET /v1/customers/:id/cash_balance_transactions: newest first, as Stripe lists */
  function listCashBalanceTransactions(customer: string, query: URLSearchParams): Answer {
    if (!customers.has(customer)) return missing('customer', customer);
    const limit = Math.min(Number(query.get('limit') ?? 10), 100);
    const after = query.get('starting_after');
    let all = cashBalanceTransactions.filter((transaction) => transaction.customer === customer).reverse();
    if (after) {
      const index = all.findIndex((transaction) => transaction.id === after);
      all = index < 0 ? [] : all.slice(index + 1);
    }
    return list(
      `/v1/customers/${customer}/cash_balance_transactions`,
      all.slice(0, limit),
      all.length > limit,
    );
  }

  function succeed(intent: StripeObject, charge: StripeObject, amount: number) {
    intent.status = 'succeeded';
    intent.amount_capturable = 0;
    intent.amount_received = amount;
    charge.captured = true;
    charge.amount_captured = amount;
    notify('payment_intent.succeeded', intent);
    notify('charge.succeeded', charge);
  }

  function capture(intent: StripeObject, form: StripeObject): Answer {
    if (intent.status !== 'requires_capture')
      return invalid(
        `This PaymentIntent could not be captured because it has a status of ${intent.status as string}. ` +
          'Only a PaymentIntent with one of the following statuses may be captured: requires_capture.',
        { code: 'payment_intent_unexpected_state', payment_intent: structuredClone(intent) },
      );
    const amount =
      form.amount_to_capture === undefined ? (intent.amount as number) : Number(form.amount_to_capture);
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > (intent.amount_capturable as number))
      return invalid('The amount to capture must be at most the amount capturable.', {
        code: 'amount_too_large',
        param: 'amount_to_capture',
      });
    executed.capture++;
    // "any remaining amount is released" (amount_to_capture)
    succeed(intent, charges.get(intent.latest_charge as string)!, amount);
    return ok(intent);
  }

  fake.payKonbini = (intentId) => {
    const intent = paymentIntents.get(intentId);
    const waiting =
      intent?.status === 'requires_action' &&
      (intent.next_action as StripeObject | null)?.type === 'konbini_display_details';
    if (!intent || !waiting) throw new Error(`${intentId} is no konbini payment waiting to be paid`);
    const charge = newCharge(intent, { number: '', exp_month: 0, exp_year: 0, name: null });
    charge.payment_method_details = { konbini: { store: { chain: 'lawson' } }, type: 'konbini' };
    charge.status = 'succeeded';
    charge.paid = true;
    intent.latest_charge = charge.id;
    intent.next_action = null;
    succeed(intent, charge, intent.amount as number);
  };

  function cancel(intent: StripeObject, form: StripeObject): Answer {
    const cancelable = [
      'requires_payment_method',
      'requires_capture',
      'requires_confirmation',
      'requires_action',
    ];
    if (!cancelable.includes(intent.status as string))
      return invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status as string}.`,
        { code: 'payment_intent_unexpected_state', payment_intent: structuredClone(intent) },
      );
    executed.cancel++;
    const instructions = (intent.next_action as StripeObject | null)?.display_bank_transfer_instructions as
      StripeObject | undefined;
    if (instructions) {
      // what was applied goes back to the customer's cash balance (unapplied_from_payment)
      const applied = (intent.amount as number) - (instructions.amount_remaining as number);
      if (applied > 0)
        cashBalanceTransaction(intent.customer as string, 'unapplied_from_payment', applied, {
          payment_intent: intent.id,
        });
      intent.next_action = null;
    }
    intent.status = 'canceled';
    intent.canceled_at = now();
    intent.amount_capturable = 0;
    intent.cancellation_reason =
      typeof form.cancellation_reason === 'string' ? form.cancellation_reason : null;
    notify('payment_intent.canceled', intent);
    return ok(intent);
  }

  function refund(form: StripeObject): Answer {
    const id = typeof form.payment_intent === 'string' ? form.payment_intent : '';
    const intent = paymentIntents.get(id);
    if (!intent) return { ...missing('payment_intent', id), status: 400 };
    const charge = typeof intent.latest_charge === 'string' ? charges.get(intent.latest_charge) : undefined;
    if (intent.status !== 'succeeded' || !charge)
      return invalid(`This PaymentIntent (${id}) does not have a successful charge to refund.`, {
        code: 'payment_intent_unexpected_state',
      });
    const remaining = (charge.amount_captured as number) - (charge.amount_refunded as number);
    if (remaining === 0)
      return invalid(`Charge ${charge.id as string} has already been refunded.`, {
        code: 'charge_already_refunded',
      });
    const amount = form.amount === undefined ? remaining : Number(form.amount);
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > remaining)
      return invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, {
        code: 'amount_too_large',
        param: 'amount',
      });
    executed.refund++;
    const created: StripeObject = {
      id: stripeId('re'),
      object: 'refund',
      amount,
      balance_transaction: null,
      charge: charge.id,
      created: now(),
      currency: intent.currency,
      customer: null,
      customer_account: null,
      destination_details: { card: { type: 'refund' }, type: 'card' },
      metadata: isRecord(form.metadata) ? { ...form.metadata } : {},
      payment_intent: intent.id,
      payment_method: null,
      reason: typeof form.reason === 'string' ? form.reason : null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    };
    refunds.set(created.id as string, created);
    ((charge.refunds as StripeObject).data as StripeObject[]).unshift(created);
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    notify('refund.created', created);
    notify('charge.refunded', charge);
    return ok(created);
  }

  /** expand[]=latest_charge (or data.latest_charge in a list): the charge object in place of its id */
  function expanded(intent: StripeObject, expand: string[], prefix: string): StripeObject {
    if (!expand.includes(`${prefix}latest_charge`) || typeof intent.latest_charge !== 'string') return intent;
    return { ...intent, latest_charge: charges.get(intent.latest_charge) ?? intent.latest_charge };
  }

  function list(url: string, data: StripeObject[], hasMore: boolean): Answer {
    return { status: 200, body: { object: 'list', data, has_more: hasMore, url } };
  }

  function search(query: URLSearchParams): Answer {
    const text = query.get('query') ?? '';
    const match = /^metadata\['([^']+)'\]:'((?:[^'\\]|\\.)*)'$/.exec(text);
    if (!match) return invalid(`Invalid search query: ${text}`, { code: 'parameter_invalid_string' });
    const value = match[2].replace(/\\(.)/g, '$1');
    const expand = expandOf(query);
    if (searchLagging > 0) {
      searchLagging--;
      return {
        status: 200,
        body: {
          object: 'search_result',
          data: [],
          has_more: false,
          next_page: null,
          url: '/v1/payment_intents/search',
        },
      };
    }
    const data = [...paymentIntents.values()]
      .filter((intent) => (intent.metadata as StripeObject)[match[1]] === value)
      .map((intent) => expanded(intent, expand, 'data.'));
    return {
      status: 200,
      body: {
        object: 'search_result',
        data,
        has_more: false,
        next_page: null,
        url: '/v1/payment_intents/search',
      },
    };
  }

  function listIntents(query: URLSearchParams): Answer {
    const gte = Number(query.get('created[gte]') ?? 0);
    const limit = Math.min(Number(query.get('limit') ?? 10), 100);
    const after = query.get('starting_after');
    const expand = expandOf(query);
    // newest first, as Stripe lists
    let all = [...paymentIntents.values()].reverse().filter((intent) => (intent.created as number) >= gte);
    if (after) {
      const index = all.findIndex((intent) => intent.id === after);
      all = index < 0 ? [] : all.slice(index + 1);
    }
    const page = all.slice(0, limit).map((intent) => expanded(intent, expand, 'data.'));
    return list('/v1/payment_intents', page, all.length > limit);
  }

  function ok(object: StripeObject): Answer {
    return { status: 200, body: structuredClone(object) };
  }

  function route(method: string, url: URL, form: StripeObject): Answer {
    const path = url.pathname;
    if (method === 'POST' && path === '/v1/payment_intents') return create(form);
    if (method === 'GET' && path === '/v1/payment_intents') return listIntents(url.searchParams);
    if (method === 'GET' && path === '/v1/payment_intents/search') return search(url.searchParams);
    if (method === 'POST' && path === '/v1/refunds') return refund(form);
    if (method === 'POST' && path === '/v1/customers') return createCustomer(form);
    const transactions = /^\/v1\/customers\/([^/]+)\/cash_balance_transactions$/.exec(path);
    if (method === 'GET' && transactions)
      return listCashBalanceTransactions(decodeURIComponent(transactions[1]), url.searchParams);
    const match = /^\/v1\/payment_intents\/([^/]+)(?:\/(capture|cancel))?$/.exec(path);
    if (!match)
      return error(404, {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${method}: ${path}).`,
      });
    const id = decodeURIComponent(match[1]);
    const intent = paymentIntents.get(id);
    if (!intent) return missing('payment_intent', id);
    if (method === 'GET' && !match[2]) {
      return { status: 200, body: structuredClone(expanded(intent, expandOf(url.searchParams), '')) };
    }
    if (method === 'POST' && match[2] === 'capture') return capture(intent, form);
    if (method === 'POST' && match[2] === 'cancel') return cancel(intent, form);
    return error(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  function record(answer: Answer) {
    const body = answer.body;
    if (!isRecord(body)) return;
    if (isRecord(body.error)) {
      if (isRecord(body.error.payment_intent)) answered.push(body.error.payment_intent);
      return;
    }
    if (Array.isArray(body.data)) {
      for (const item of body.data as StripeObject[]) {
        answered.push(item);
        if (isRecord(item.latest_charge)) answered.push(item.latest_charge);
      }
      return;
    }
    answered.push(body);
    if (isRecord(body.latest_charge)) answered.push(body.latest_charge);
  }

  const pages = new ThreeDsPages('/3ds', 'Stripe 3-D Secure', challenges, (id, result) =>
    fake.authenticate(id, result),
  );

  function handle(request: IncomingMessage, response: ServerResponse, raw: string) {
    const send = (answer: Answer, replayed = false) => {
      record(answer);
      response
        .writeHead(answer.status, {
          'content-type': 'application/json',
          'request-id': stripeId('req'),
          'stripe-version': '2026-10-28.endive',
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        })
        .end(JSON.stringify(answer.body));
    };
    // the 3-D Secure page (next_action.redirect_to_url.url): the cardholder's browser, no API key
    if (pages.serve(request, response, raw)) return;
    if (request.headers.authorization !== `Bearer ${options.secretKey}`)
      return send(
        error(401, {
          type: 'invalid_request_error',
          message: 'Invalid API Key provided: sk_*****',
        }),
      );
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const header = request.headers['idempotency-key'];
    const key = typeof header === 'string' ? header : null;
    const form = method === 'POST' ? decodeStripeForm(raw) : {};
    requests.push({ method, path: url.pathname, key, form });
    if (method === 'POST' && faults.takeFailure()) {
      return send(error(500, { type: 'api_error', message: 'An unknown error occurred' }));
    }
    if (method === 'POST' && rateLimits.takeFailure()) {
      return send(
        error(429, {
          type: 'invalid_request_error',
          code: 'rate_limit',
          message:
            'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
        }),
      );
    }
    if (method === 'POST' && key !== null) {
      if (key.length > 255) return send(invalid('Idempotency-Key is too long'));
      const turn = keys.turn(key, url.pathname, raw);
      if (turn.kind === 'mismatch')
        return send(
          error(400, {
            type: 'idempotency_error',
            message:
              'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          }),
        );
      if (turn.kind === 'in-progress')
        return send(
          error(409, {
            type: 'invalid_request_error',
            code: 'idempotency_key_in_use',
            message:
              'There is currently another in-progress request using this Stripe API key and idempotency key.',
          }),
        );
      if (turn.kind === 'replay') return send(turn.answer, true);
      const answer = route(method, url, form);
      turn.keep(answer);
      return faults.answer(() => send(answer));
    }
    return send(route(method, url, form));
  }

  const server = await startLocalServer(handle);
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
