import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import {
  CapturesRepository,
  ChargesRepository,
  StoresRepository,
  TransactionTokensRepository,
  type AccessScope,
  type Charge,
  type ChargeFilters,
  type ChargeCreation,
  type CreateChargeOptions,
  type CreateChargeResult,
  type ChargeableToken,
  type ChargeableTokenKey,
} from '@kessai/db';
import {
  BusinessRuleError,
  CAPTURABLE_CHARGE_STATUS,
  DAILY_QUOTAS,
  NotFoundError,
  StoreTokenRequiredError,
  ResourceLimitError,
  ValidationError,
  parsePageRequest,
  toPage,
  tokenThreeDsRefusal,
} from '@kessai/domain';
import { paymentError } from '@kessai/processor';
import { Coalescer } from '@kessai/runtime';
import {
  chargeRefusal,
  effectiveConfiguration,
  feeTermsOf,
  LONGEST_PAYMENT_PERIOD,
  paymentDeadline,
  type StoreConfiguration,
} from '@kessai/store-configuration';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import type { Metadata } from '../transaction-tokens/transaction-token.schemas';
import {
  MAX_CAPTURE_DELAY_MS,
  captureSchema,
  createChargeSchema,
  getChargeSchema,
  listChargesSchema,
  updateChargeSchema,
  type CreateChargeRequest,
} from './charge.schemas';
import {
  presentCharge,
  presentChargeListItem,
  presentIssuerToken,
  presentThreeDsIssuerToken,
} from '@kessai/presenters';

export interface RequestContext {
  /** the request id, carried into the outbox event */
  correlationId: string;
}

/** The duplicate rule (spec "Duplicate charge rule"): same recurring card token and amount within 30 s. */
const DUPLICATE_RULE: NonNullable<CreateChargeOptions['duplicateRule']> = {
  windowSeconds: 30,
  error: paymentError(
    'TOO_MANY_CHARGE_REQUESTS',
    'a charge of the same amount on this recurring token was made less than 30 seconds ago',
  ),
};
/** How often a polling GET re-reads a pending charge's status. */
const POLLING_INTERVAL_MS = 100;
const CHARGEABLE_PAYMENT_TYPES: readonly string[] = ['card', 'online', 'qr_scan', 'bank_transfer', 'konbini'];
/** paid later by the customer, outside (docs/bank-transfer-and-konbini.md): a deadline, in yen */
const DEFERRED_PAYMENT_TYPES: readonly string[] = ['bank_transfer', 'konbini'];
/** payment types whose processor request carries a descriptor (PaymentProcessor.authorize) */
const DESCRIPTOR_PAYMENT_TYPES: readonly string[] = ['card', 'qr_scan'];

const uuid = z.string().uuid();
const TOKEN_FIELD = 'transaction_token_id';

/**
 * The charge use cases of the gateway (api-reference §5.2, docs/charges.md): accept a charge (pending,
 * with its charge_requested command, in one transaction), read it (optionally holding the answer
 * while it is pending), list, update metadata, request a capture, and show where an awaiting charge
 * is paid or authenticated. Processing itself is charge-service's.
 */
@Injectable()
export class ChargesService {
  /** concurrent POST /charges read their tokens with one query (a round trip costs more than the read) */
  readonly #chargeableTokens: Coalescer<ChargeableTokenKey, ChargeableToken | null>;
  /** and create their charges with one statement when none is refused (ChargesRepository.createMany) */
  readonly #creations: Coalescer<ChargeCreation, PromiseSettledResult<CreateChargeResult>>;

  constructor(
    private readonly charges: ChargesRepository,
    private readonly captures: CapturesRepository,
    private readonly tokens: TransactionTokensRepository,
    private readonly stores: StoresRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.#chargeableTokens = new Coalescer((keys) => this.tokens.findChargeableMany(keys), {
      maxItems: 200,
      maxInFlight: 2,
    });
    this.#creations = new Coalescer((creations) => this.charges.createMany(creations), {
      maxItems: 100,
      maxInFlight: 2,
    });
  }

  /** `id`: the new charge's id when the caller chose it (the hosted link page claims it first). */
  async create(principal: Principal, body: unknown, context: RequestContext, id?: string) {
    const prepared = await this.prepareCreation(principal, body, context);
    if (id !== undefined) prepared.creation.charge.id = id;
    const settled = await this.#creations.submit(prepared.creation);
    if (settled.status === 'rejected') throw settled.reason;
    return this.answerCreation(principal, prepared.creation.charge.storeId, prepared.token, settled.value);
  }

  /**
   * POST /charges up to the write: the request parsed, its token read and checked, the store's
   * rules and fee terms applied. Resolves to the charge to create (POST /charges, or a batch's
   * charge with its subscriptions) and its token.
   */
  async prepareCreation(
    principal: Principal,
    body: unknown,
    context: RequestContext,
    extraMetadata: Metadata | null = null,
  ): Promise<{ creation: ChargeCreation; token: ChargeableToken }> {
    // POST /charges names no store: it is the app token's (api-reference §1.2)
    if (principal.storeId === null) throw new StoreTokenRequiredError();
    const storeId = principal.storeId;
    const request = parseInput(createChargeSchema, body);
    const now = new Date();
    checkCaptureAt(request, now);

    const token = await this.#chargeableTokens.submit({
      merchantId: principal.merchantId,
      storeId,
      id: request.transaction_token_id,
    });
    if (!token) throw new NotFoundError('transaction_token');
    const deferred = DEFERRED_PAYMENT_TYPES.includes(token.paymentType);
    checkToken(token, principal, request);
    checkCaptureAtFor(token.paymentType, request, now);
    const configuration = effectiveConfiguration(token.merchantConfiguration, token.storeConfiguration);
    const amount = BigInt(request.amount);
    const refusal = chargeRefusal(configuration, {
      paymentType: token.paymentType,
      tokenType: token.type,
      usageLimit: token.usageLimit,
      cardBrand: token.cardBrand,
      qrGateway: token.qrGateway,
      amount,
      currency: request.currency,
    });
    if (refusal) throw new BusinessRuleError(refusal.code, [{ field: refusal.field, reason: refusal.code }]);
    const fees = feeTermsOf(configuration, {
      paymentType: token.paymentType,
      cardBrand: token.cardBrand,
      currency: request.currency,
    });
    const descriptor = descriptorFor(token, request);
    const deadline = deferred ? deferredPaymentDeadline(token, request, configuration, now) : null;

    const creation: ChargeCreation = {
      charge: {
        id: randomUUID(),
        merchantId: principal.merchantId,
        storeId,
        transactionTokenId: token.id,
        transactionTokenType: token.type,
        mode: token.mode,
        requestedAmount: amount,
        requestedCurrency: request.currency,
        feeRatePpm: fees.ratePpm,
        feeFlatAmount: fees.flatAmount,
        capture: request.capture,
        captureAt: request.capture_at ?? null,
        expiresOn: deadline,
        matchAmount: deferred ? configuration.bank_transfer_configuration.match_amount : null,
        descriptor,
        onlyDirectCurrency: request.only_direct_currency,
        threeDs: request.three_ds ?? null,
        redirect: request.redirect ?? null,
        // a batch's initial_charge_metadata over the charge's own; POST /charges copies nothing
        metadata: extraMetadata ? { ...request.metadata, ...extraMetadata } : (request.metadata ?? {}),
      },
      options: {
        duplicateRule: token.type === 'recurring' && token.paymentType === 'card' ? DUPLICATE_RULE : null,
        quota:
          token.mode === 'test'
            ? {
                resource: 'test_charge',
                scope: { merchantId: principal.merchantId, storeId },
                max: DAILY_QUOTAS.test_charge,
              }
            : null,
        correlationId: context.correlationId,
        now,
      },
    };
    return { creation, token };
  }

  /** The answer to a charge's creation: the charge, or the refusal as an error. */
  async answerCreation(
    principal: Principal,
    storeId: string,
    token: ChargeableToken,
    result: CreateChargeResult,
  ) {
    switch (result.outcome) {
      case 'created':
      case 'duplicate':
        return presentCharge(result.charge);
      case 'quota_exhausted':
        throw new ResourceLimitError('test_charge');
      case 'token_not_claimable': {
        // lost a race for the token (checked above while it was usable): say why it is not any more
        const current = await this.tokens.findInStore(principal.merchantId, storeId, token.id);
        throw unusableToken(current ?? token);
      }
    }
  }

  /**
   * `storeId` from the path, or null for GET /charges/{id}. With `polling=true` a pending charge is
   * re-read every POLLING_INTERVAL_MS until its status changes, at most CHARGE_POLLING_MAX_WAIT_MS
   * (or until the client goes away); the answer is then the charge as it is, pending or not.
   */
  async get(
    principal: Principal,
    storeId: string | null,
    id: string,
    query: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const { polling } = parseInput(getChargeSchema, query);
    const scope = scopeOf(principal, storeId);
    let charge = await this.findVisible(scope, id);
    if (polling && charge.status === 'pending') charge = await this.waitWhilePending(scope, charge, signal);
    return presentCharge(charge);
  }

  /** `storeId` from the path, or null for GET /charges (a store token's own store, a merchant's all). */
  async list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const filters = parseInput(listChargesSchema, query);
    const scope = scopeOf(principal, storeId);
    if (storeId !== null && !(await this.stores.findVisible(principal, storeId))) {
      throw new NotFoundError('store');
    }
    const where: ChargeFilters = {
      storeId: scope.storeId,
      status: filters.status,
      mode: filters.mode,
      transactionTokenId: filters.transaction_token_id,
      subscriptionId: filters.subscription_id,
      currency: filters.currency,
      amountFrom: filters.amount_from,
      amountTo: filters.amount_to,
      from: filters.from,
      to: filters.to,
      metadata: filters.metadata,
    };
    const rows = await this.charges.list(principal.merchantId, where, page);
    const result = toPage(rows, page.limit, presentChargeListItem);
    // total_hits only on a first page, as UnivaPay's lists (api-reference §4)
    if (page.cursor !== null) return result;
    return { ...result, total_hits: await this.charges.count(principal.merchantId, where) };
  }

  /** PATCH: metadata only, replaced whole. */
  async update(principal: Principal, storeId: string, id: string, body: unknown) {
    const scope = scopeOf(principal, storeId);
    const charge = await this.findVisible(scope, id);
    const request = parseInput(updateChargeSchema, body);
    if (request.metadata === undefined) return presentCharge(charge);
    const updated = await this.charges.updateMetadata(scope, charge.id, request.metadata);
    if (!updated) throw new NotFoundError('charge');
    return presentCharge(updated);
  }

  /**
   * Asks for the capture of an authorized charge (partial allowed, same currency); charge-service
   * carries it out. The answer is `{}` as UnivaPay's; the charge shows the result once captured.
   */
  async capture(principal: Principal, storeId: string, id: string, body: unknown, context: RequestContext) {
    const charge = await this.findVisible(scopeOf(principal, storeId), id);
    const request = parseInput(captureSchema, body);
    if (charge.status !== CAPTURABLE_CHARGE_STATUS) throw notCapturable(charge.captureStatus);
    if (request.currency !== charge.requestedCurrency) {
      throw new BusinessRuleError('CURRENCY_MUST_MATCH_CHARGE', [
        { field: 'currency', reason: 'CURRENCY_MUST_MATCH_CHARGE' },
      ]);
    }
    if (BigInt(request.amount) > charge.requestedAmount) {
      throw new BusinessRuleError('CAPTURE_AMOUNT_TOO_LARGE', [
        { field: 'amount', reason: 'CAPTURE_AMOUNT_TOO_LARGE' },
      ]);
    }
    const result = await this.captures.requestCapture({
      chargeId: charge.id,
      amount: BigInt(request.amount),
      currency: request.currency,
      correlationId: context.correlationId,
    });
    switch (result.outcome) {
      case 'created':
        return {};
      case 'already_captured':
        throw new BusinessRuleError('ALREADY_CAPTURED');
      case 'cancel_pending':
        // a cancel of this charge was accepted first and is voiding it
        throw new BusinessRuleError('INVALID_CHARGE_STATUS', [
          { field: 'status', reason: 'CANCEL_IN_PROGRESS' },
        ]);
      case 'not_authorized':
        throw notCapturable(result.captureStatus);
      case 'charge_not_found':
        throw new NotFoundError('charge');
    }
  }

  /** Where the customer pays an awaiting online/QR charge (the operator's payment URL). */
  async issuerToken(principal: Principal, storeId: string, id: string) {
    const charge = await this.findIssuerTokens(scopeOf(principal, storeId), id);
    if (charge.paymentType === 'card') throw new BusinessRuleError('NOT_ONLINE_CHARGE');
    if (charge.status !== 'awaiting' || charge.issuerToken === null) {
      throw new BusinessRuleError('INVALID_CHARGE_STATUS');
    }
    return presentIssuerToken(charge, charge.issuerToken);
  }

  /** Where the customer authenticates an awaiting 3-D Secure card charge (the issuer's page). */
  async threeDsIssuerToken(principal: Principal, storeId: string, id: string) {
    const charge = await this.findIssuerTokens(scopeOf(principal, storeId), id);
    if (charge.status !== 'awaiting') throw new BusinessRuleError('INVALID_CHARGE_STATUS');
    if (charge.threeDsIssuerToken === null) throw new BusinessRuleError('INVALID_THREE_DS_STATUS');
    return presentThreeDsIssuerToken(charge, charge.threeDsIssuerToken);
  }

  private async findVisible(scope: AccessScope, id: string): Promise<Charge> {
    const charge = uuid.safeParse(id).success ? await this.charges.findInScope(scope, id) : null;
    if (!charge) throw new NotFoundError('charge');
    return charge;
  }

  private async findIssuerTokens(scope: AccessScope, id: string) {
    const charge = uuid.safeParse(id).success ? await this.charges.findIssuerTokens(scope, id) : null;
    if (!charge) throw new NotFoundError('charge');
    return charge;
  }

  private async waitWhilePending(scope: AccessScope, charge: Charge, signal?: AbortSignal): Promise<Charge> {
    const deadline = Date.now() + this.config.CHARGE_POLLING_MAX_WAIT_MS;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || signal?.aborted) return charge;
      try {
        await sleep(Math.min(POLLING_INTERVAL_MS, remaining), undefined, { signal });
      } catch {
        return charge; // the client went away
      }
      const status = await this.charges.findStatus(charge.id);
      if (status !== 'pending') return (await this.charges.findInScope(scope, charge.id)) ?? charge;
    }
  }
}

/**
 * The scope a route reads in: the path's store (which a store token must own), or the caller's own
 * scope. A malformed or foreign store id is the same 404 as an unknown charge.
 */
function scopeOf(principal: Principal, storeId: string | null): AccessScope {
  if (storeId === null) return { merchantId: principal.merchantId, storeId: principal.storeId };
  if (!uuid.safeParse(storeId).success) throw new NotFoundError('charge');
  if (principal.storeId !== null && principal.storeId !== storeId) throw new NotFoundError('charge');
  return { merchantId: principal.merchantId, storeId };
}

/**
 * capture_at, before the token is read: a time ahead, whatever the payment type (a card
 * authorization's capture time, or a bank transfer's or konbini's payment deadline).
 */
function checkCaptureAt(request: CreateChargeRequest, now: Date): void {
  const at = request.capture_at;
  if (at === undefined || at === null) return;
  if (at.getTime() <= now.getTime())
    throw ValidationError.field('capture_at', 'INVALID_SCHEDULED_CAPTURE_DATE');
}

/**
 * capture_at by payment type (api-reference §5.2): a card's scheduled capture needs capture=false
 * and is at most MAX_CAPTURE_DELAY_MS ahead; for a bank transfer or konbini it is the payment
 * deadline, at most LONGEST_PAYMENT_PERIOD ahead (deferredPaymentDeadline); online and QR payments
 * are taken whole, so have nothing to capture later.
 */
function checkCaptureAtFor(paymentType: string, request: CreateChargeRequest, now: Date): void {
  const at = request.capture_at;
  if (at === undefined || at === null) return;
  const delay = at.getTime() - now.getTime();
  const allowed = DEFERRED_PAYMENT_TYPES.includes(paymentType)
    ? delay <= LONGEST_PAYMENT_PERIOD.as('milliseconds')
    : paymentType === 'card' && !request.capture && delay <= MAX_CAPTURE_DELAY_MS;
  if (!allowed) throw ValidationError.field('capture_at', 'INVALID_SCHEDULED_CAPTURE_DATE');
}

function checkToken(token: ChargeableToken, principal: Principal, request: CreateChargeRequest): void {
  if (token.mode !== principal.mode) {
    throw new BusinessRuleError('PROCESSING_MODE_MISMATCH', [
      { field: TOKEN_FIELD, reason: 'PROCESSING_MODE_MISMATCH' },
    ]);
  }
  if (!CHARGEABLE_PAYMENT_TYPES.includes(token.paymentType)) {
    throw new BusinessRuleError('PAYMENT_TYPE_NOT_ALLOWED', [
      { field: TOKEN_FIELD, reason: 'PAYMENT_TYPE_NOT_ALLOWED' },
    ]);
  }
  // subscription tokens are charged by their subscription only
  if (token.type === 'subscription') {
    throw new BusinessRuleError('INVALID_TOKEN_TYPE', [{ field: TOKEN_FIELD, reason: 'INVALID_TOKEN_TYPE' }]);
  }
  if (!token.active) throw unusableToken(token);
  // use_confirmation: the customer's code first (POST …/tokens/{id}/confirm)
  if (token.confirmed === false) {
    throw new BusinessRuleError('TOKEN_MUST_BE_CONFIRMED', [
      { field: TOKEN_FIELD, reason: 'TOKEN_MUST_BE_CONFIRMED' },
    ]);
  }
  // the token's own 3-D Secure (docs/transaction-tokens.md): failed, or not finished yet
  const threeDsRefusal = tokenThreeDsRefusal(token.threeDs);
  if (threeDsRefusal !== null) {
    throw new BusinessRuleError(threeDsRefusal, [{ field: TOKEN_FIELD, reason: threeDsRefusal }]);
  }
  if (token.paymentType !== 'card') {
    if (request.three_ds) throw ValidationError.field('three_ds', 'ONLY_FOR_CARD_PAYMENT');
    // online and QR payments are taken whole by the operator: there is nothing to hold and capture later
    if (!request.capture) {
      throw new BusinessRuleError('CAPTURE_ONLY_FOR_CARD_PAYMENT', [
        { field: 'capture', reason: 'CAPTURE_ONLY_FOR_CARD_PAYMENT' },
      ]);
    }
  }
}

/**
 * A bank transfer or konbini charge's payment deadline: `capture_at` when the request names one
 * (the reference's meaning of capture_at for these types; checked by checkCaptureAtFor), else the
 * token's and its store's rules (paymentDeadline). Yen only: Japanese banks and convenience stores
 * take nothing else.
 */
function deferredPaymentDeadline(
  token: ChargeableToken,
  request: CreateChargeRequest,
  configuration: StoreConfiguration,
  now: Date,
): Date {
  if (request.currency !== 'JPY') throw ValidationError.field('currency', 'CURRENCY_NOT_SUPPORTED');
  if (request.capture_at) return request.capture_at;
  const rules =
    token.paymentType === 'konbini'
      ? configuration.convenience_configuration
      : configuration.bank_transfer_configuration;
  return paymentDeadline(
    rules,
    { expiration_period: token.expirationPeriod, expiration_time_shift: token.expirationTimeShift },
    now,
  );
}

/**
 * The descriptor the charge carries. Card and scanned-QR payments pass it to the processor; an
 * operator's payment page (online) takes none, so a descriptor there is refused (api-reference
 * §2.3: exactly one item, descriptor / NOT_SUPPORTED_BY_PROCESSOR), or dropped when the request says
 * `ignore_descriptor_on_error` (the SDK's own retry without it never fires, api-reference §5.2).
 */
function descriptorFor(token: ChargeableToken, request: CreateChargeRequest): string | null {
  const descriptor = request.descriptor ?? null;
  if (descriptor === null || DESCRIPTOR_PAYMENT_TYPES.includes(token.paymentType)) return descriptor;
  if (request.ignore_descriptor_on_error) return null;
  throw ValidationError.field('descriptor', 'NOT_SUPPORTED_BY_PROCESSOR');
}

function unusableToken(token: Pick<ChargeableToken, 'type' | 'usedCount'>): BusinessRuleError {
  if (token.type === 'one_time' && token.usedCount > 0) {
    return new BusinessRuleError('TRANSACTION_ALREADY_PROCESSED', [
      { field: TOKEN_FIELD, reason: 'TRANSACTION_ALREADY_PROCESSED' },
    ]);
  }
  return new BusinessRuleError('INVALID_TOKEN', [{ field: TOKEN_FIELD, reason: 'INACTIVE' }]);
}

function notCapturable(captureStatus: Charge['captureStatus']): BusinessRuleError {
  return captureStatus === 'captured'
    ? new BusinessRuleError('ALREADY_CAPTURED')
    : new BusinessRuleError('INVALID_CHARGE_STATUS');
}
