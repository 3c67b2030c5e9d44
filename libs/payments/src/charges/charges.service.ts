import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  CapturesRepository,
  ChargesRepository,
  ProcessorAccountsRepository,
  StoresRepository,
  TransactionTokensRepository,
  type AccessScope,
  type AuditEntry,
  type Charge,
  type ChargeFilters,
  type ChargeCreation,
  type ChargeIssuerTokens,
  type ChargeListItem,
  type CreateChargeOptions,
  type CreateChargeResult,
  type ChargeableToken,
  type ChargeableTokenKey,
} from '@kessai/db';
import {
  BusinessRuleError,
  CAPTURABLE_CHARGE_STATUS,
  carriesDescriptor,
  chargeFee,
  DAILY_QUOTAS,
  isChargeablePaymentType,
  isDeferredPaymentType,
  holdsForCapture,
  isUuid,
  NotFoundError,
  RateLimitedError,
  ResourceLimitError,
  tokenCvvAuthorizeRefusal,
  tokenThreeDsRefusal,
  ValidationError,
  type FeeTerms,
  type PageRequest,
} from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { paymentError } from '@kessai/processor';
import { Coalescer } from '@kessai/runtime';
import {
  cardLimitFor,
  chargeRefusal,
  effectiveConfiguration,
  feeTermsOf,
  LONGEST_PAYMENT_PERIOD,
  paymentDeadline,
  type StoreConfiguration,
} from '@kessai/store-configuration';
import type { Metadata, PaymentsActor, StoreActor } from '../actor';
import type { CaptureInput, ChargeInput } from './charge-inputs';
import {
  LIVE_PROCESSOR_LIMITS,
  liveProcessorRefusal,
  processorLimitsOf,
  refusesPartialCapture,
  routedProcessorLimits,
  type LiveProcessorLimits,
} from './live-processor-limits';

/** The duplicate rule (spec "Duplicate charge rule"): same recurring card token and amount within 30 s. */
const DUPLICATE_RULE: NonNullable<CreateChargeOptions['duplicateRule']> = {
  windowSeconds: 30,
  error: paymentError(
    'TOO_MANY_CHARGE_REQUESTS',
    'a charge of the same amount on this recurring token was made less than 30 seconds ago',
  ),
};
/** How far ahead capture_at may be: card authorizations do not outlive a week. */
export const MAX_CAPTURE_DELAY_MS = 7 * 24 * 3_600_000;

const TOKEN_FIELD = 'transaction_token_id';

/**
 * The charge use cases (api-reference §5.2, docs/charges.md), for the gateway and any other front
 * end: accept a charge (pending, with its charge_requested command, in one transaction), read it,
 * list, update metadata, request a capture, and show where an awaiting charge is paid or
 * authenticated. Inputs are parsed already; answers are rows, which each front end presents.
 * Processing itself is charge-service's.
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
    @Optional()
    @Inject(LIVE_PROCESSOR_LIMITS)
    private readonly liveLimits: LiveProcessorLimits | null = null,
    @Optional()
    @Inject(ProcessorAccountsRepository)
    private readonly processorAccounts: ProcessorAccountsRepository | null = null,
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

  /**
   * Accepts a charge in the actor's store. `id`: the new charge's id when the caller chose it (the
   * hosted link page claims it first).
   */
  async create(actor: StoreActor, request: ChargeInput, correlation: Correlation, id?: string) {
    const prepared = await this.prepareCreation(actor, request, correlation);
    if (id !== undefined) prepared.creation.charge.id = id;
    const settled = await this.#creations.submit(prepared.creation);
    if (settled.status === 'rejected') throw settled.reason;
    return this.answerCreation(actor, prepared.creation.charge.storeId, prepared.token, settled.value);
  }

  /**
   * A charge's acceptance up to the write: its token read and checked, the store's rules and fee
   * terms applied. Resolves to the charge to create (a single charge, or a batch's charge with its
   * subscriptions) and its token.
   */
  async prepareCreation(
    actor: StoreActor,
    request: ChargeInput,
    correlation: Correlation,
    extraMetadata: Metadata | null = null,
  ): Promise<{ creation: ChargeCreation; token: ChargeableToken }> {
    const storeId = actor.storeId;
    const now = new Date();
    checkCaptureAt(request, now);

    const token = await this.#chargeableTokens.submit({
      merchantId: actor.merchantId,
      storeId,
      id: request.transaction_token_id,
    });
    if (!token) throw new NotFoundError('transaction_token');
    const deferred = isDeferredPaymentType(token.paymentType);
    checkToken(token, actor, request);
    // a charge the processor it will go to cannot take (its route's account's provider, else the
    // mode's default) is refused now, never accepted to end `error`
    const unsupported = liveProcessorRefusal(
      routedProcessorLimits(token, request.currency, this.liveLimits),
      token.paymentType,
      request.three_ds?.mode,
      token.konbiniStore,
      { brand: token.onlineBrand, currency: request.currency },
    );
    if (unsupported) {
      throw new BusinessRuleError('NOT_SUPPORTED_BY_PROCESSOR', [
        { field: unsupported, reason: 'NOT_SUPPORTED_BY_PROCESSOR' },
      ]);
    }
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
    const fees = requestedFeeTerms(
      request,
      amount,
      feeTermsOf(configuration, {
        paymentType: token.paymentType,
        cardBrand: token.cardBrand,
        currency: request.currency,
      }),
    );
    const descriptor = descriptorFor(token, request);
    const deadline = deferred ? deferredPaymentDeadline(token, request, configuration, now) : null;

    const creation: ChargeCreation = {
      charge: {
        id: randomUUID(),
        merchantId: actor.merchantId,
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
                scope: { merchantId: actor.merchantId, storeId },
                max: DAILY_QUOTAS.test_charge,
              }
            : null,
        cardLimit: cardLimitOf(configuration, token.paymentType, amount, request.currency, now),
        correlationId: correlation.correlationId,
        now,
      },
    };
    return { creation, token };
  }

  /** The answer to a charge's creation: the charge, or the refusal as an error. */
  async answerCreation(
    scope: AccessScope,
    storeId: string,
    token: ChargeableToken,
    result: CreateChargeResult,
  ): Promise<Charge> {
    switch (result.outcome) {
      case 'created':
      case 'duplicate':
        return result.charge;
      case 'quota_exhausted':
        throw new ResourceLimitError('test_charge');
      case 'card_limit_exceeded':
        throw cardLimitExceeded();
      case 'busy':
        // other charges of the same card (or recurring token) are being created: nothing was
        // written; the SDK's rateLimit helper retries a 429 (decision 0076)
        throw new RateLimitedError(1, [{ field: TOKEN_FIELD, reason: 'TOO_MANY_CHARGE_REQUESTS' }]);
      case 'token_not_claimable': {
        // lost a race for the token (checked above while it was usable): say why it is not any more
        const current = await this.tokens.findInStore(scope.merchantId, storeId, token.id);
        throw unusableToken(current ?? token);
      }
    }
  }

  /** A charge the scope may see; a malformed id is the same 404 as an unknown one. */
  async find(scope: AccessScope, id: string): Promise<Charge> {
    return this.findVisible(scope, id);
  }

  /** A charge's status alone (a polling read), or null when there is no such charge. */
  status(id: string): Promise<string | null> {
    return this.charges.findStatus(id);
  }

  /**
   * A page of the charges `scope` may see, in `storeId` (which must be visible to it) or, when null,
   * in the scope itself (a store token's own store, a merchant's all); with the total count on a
   * first page (total_hits, as UnivaPay's lists: api-reference §4) unless `countTotal` is false (the
   * console's list shows none, and a count reads every charge the filters keep).
   */
  async list(
    scope: AccessScope,
    storeId: string | null,
    filters: Omit<ChargeFilters, 'storeId'>,
    page: PageRequest,
    { countTotal = true }: { countTotal?: boolean } = {},
  ): Promise<{ rows: ChargeListItem[]; totalHits: number | null }> {
    const where: ChargeFilters = { ...filters, storeId: storeId ?? scope.storeId };
    if (storeId !== null && !(await this.stores.findVisible(scope, storeId))) {
      throw new NotFoundError('store');
    }
    if (!countTotal) return { rows: await this.charges.list(scope.merchantId, where, page), totalHits: null };
    return this.charges.listCounted(scope.merchantId, where, page);
  }

  /**
   * Every charge `scope` may see under `filters`, newest first, in keyset pages of `pageSize` read
   * one at a time as the caller asks for them (an export that never holds more than a page). The
   * store, when named, must be visible to the scope (else NotFoundError, before any row).
   */
  async *pages(
    scope: AccessScope,
    storeId: string | null,
    filters: Omit<ChargeFilters, 'storeId'>,
    pageSize: number,
  ): AsyncGenerator<ChargeListItem[]> {
    const where: ChargeFilters = { ...filters, storeId: storeId ?? scope.storeId };
    if (storeId !== null && !(await this.stores.findVisible(scope, storeId))) {
      throw new NotFoundError('store');
    }
    let cursor: string | null = null;
    for (;;) {
      const rows = await this.charges.list(scope.merchantId, where, {
        limit: pageSize,
        cursor,
        direction: 'desc',
      });
      const page = rows.slice(0, pageSize);
      if (page.length > 0) yield page;
      if (rows.length <= pageSize) return;
      cursor = page[page.length - 1].id;
    }
  }

  /** Metadata only, replaced whole; `charge` as find() read it. */
  async updateMetadata(scope: AccessScope, charge: Charge, metadata: Metadata | undefined): Promise<Charge> {
    if (metadata === undefined) return charge;
    const updated = await this.charges.updateMetadata(scope, charge.id, metadata);
    if (!updated) throw new NotFoundError('charge');
    return updated;
  }

  /**
   * What the processor holding the charge's payment cannot do: its processor account's provider
   * when the charge was routed to one (decision 0055), else the live default's for a live charge.
   */
  async #limitsOf(charge: Charge): Promise<LiveProcessorLimits | null> {
    if (charge.processorAccountId !== null && this.processorAccounts) {
      const account = await this.processorAccounts.find(charge.processorAccountId);
      return account ? processorLimitsOf(account.provider) : null;
    }
    return charge.mode === 'live' ? this.liveLimits : null;
  }

  /**
   * Asks for the capture of an authorized charge (partial allowed, same currency), `charge` as
   * find() read it; charge-service carries it out. The charge shows the result once captured. A
   * charge whose processor captures the whole authorization only (KOMOJU, the live default or the
   * charge's processor account) is refused a smaller capture here, never sent to fail at the processor (docs/connectors.md, "Unsupported"). With
   * `audit` (a console write) the capture and its audit row share one transaction.
   */
  async capture(
    charge: Charge,
    request: CaptureInput,
    correlation: Correlation,
    options: { audit?: AuditEntry } = {},
  ): Promise<void> {
    if (refusesPartialCapture(await this.#limitsOf(charge), BigInt(request.amount), charge.requestedAmount)) {
      throw new BusinessRuleError('PARTIAL_CAPTURE_NOT_SUPPORTED', [
        { field: 'amount', reason: 'PARTIAL_CAPTURE_NOT_SUPPORTED' },
      ]);
    }
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
    const result = await this.captures.requestCapture(
      {
        chargeId: charge.id,
        amount: BigInt(request.amount),
        currency: request.currency,
        correlationId: correlation.correlationId,
      },
      { audit: options.audit },
    );
    switch (result.outcome) {
      case 'created':
        return;
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
  async issuerToken(scope: AccessScope, id: string): Promise<ChargeIssuerTokens> {
    const charge = await this.findIssuerTokens(scope, id);
    if (charge.paymentType === 'card') throw new BusinessRuleError('NOT_ONLINE_CHARGE');
    if (charge.status !== 'awaiting' || charge.issuerToken === null) {
      throw new BusinessRuleError('INVALID_CHARGE_STATUS');
    }
    return charge;
  }

  /** Where the customer authenticates an awaiting 3-D Secure card charge (the issuer's page). */
  async threeDsIssuerToken(scope: AccessScope, id: string): Promise<ChargeIssuerTokens> {
    const charge = await this.findIssuerTokens(scope, id);
    if (charge.status !== 'awaiting') throw new BusinessRuleError('INVALID_CHARGE_STATUS');
    if (charge.threeDsIssuerToken === null) throw new BusinessRuleError('INVALID_THREE_DS_STATUS');
    return charge;
  }

  private async findVisible(scope: AccessScope, id: string): Promise<Charge> {
    const charge = isUuid(id) ? await this.charges.findInScope(scope, id) : null;
    if (!charge) throw new NotFoundError('charge');
    return charge;
  }

  private async findIssuerTokens(scope: AccessScope, id: string): Promise<ChargeIssuerTokens> {
    const charge = isUuid(id) ? await this.charges.findIssuerTokens(scope, id) : null;
    if (!charge) throw new NotFoundError('charge');
    return charge;
  }
}

/**
 * capture_at, before the token is read: a time ahead, whatever the payment type (a card
 * authorization's capture time, or a bank transfer's or konbini's payment deadline).
 */
function checkCaptureAt(request: ChargeInput, now: Date): void {
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
function checkCaptureAtFor(paymentType: string, request: ChargeInput, now: Date): void {
  const at = request.capture_at;
  if (at === undefined || at === null) return;
  const delay = at.getTime() - now.getTime();
  const allowed = isDeferredPaymentType(paymentType)
    ? delay <= LONGEST_PAYMENT_PERIOD.as('milliseconds')
    : holdsForCapture(paymentType) && !request.capture && delay <= MAX_CAPTURE_DELAY_MS;
  if (!allowed) throw ValidationError.field('capture_at', 'INVALID_SCHEDULED_CAPTURE_DATE');
}

function checkToken(token: ChargeableToken, actor: PaymentsActor, request: ChargeInput): void {
  if (token.mode !== actor.mode) {
    throw new BusinessRuleError('PROCESSING_MODE_MISMATCH', [
      { field: TOKEN_FIELD, reason: 'PROCESSING_MODE_MISMATCH' },
    ]);
  }
  if (!isChargeablePaymentType(token.paymentType)) {
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
  // the token's CVV authorization, when enabled: a charge waits for it to be current
  const cvvRefusal = tokenCvvAuthorizeRefusal(token.cvvAuthorize);
  if (cvvRefusal !== null) {
    throw new BusinessRuleError(cvvRefusal, [{ field: TOKEN_FIELD, reason: cvvRefusal }]);
  }
  // Apple Pay's authentication is the device's cryptogram, carried in its payment data
  if (token.paymentType !== 'card' && request.three_ds)
    throw ValidationError.field('three_ds', 'ONLY_FOR_CARD_PAYMENT');
  if (!holdsForCapture(token.paymentType)) {
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
  request: ChargeInput,
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
 * The fee terms a charge is accepted under: the store's, or the fee the request names (a platform
 * passing its own: decision 0045) as a flat amount with no rate. That fee is in the charge's
 * currency (CURRENCY_MUST_MATCH_CHARGE otherwise), at most the amount (INVALID_AMOUNT) and at
 * least what the store's terms give on the amount (NUMBER_MIN): a request never lowers the
 * operator's fee. A partial capture keeps it whole, up to what was captured (chargeFee).
 */
function requestedFeeTerms(request: ChargeInput, amount: bigint, store: FeeTerms): FeeTerms {
  if (request.fee_amount === undefined || request.fee_amount === null) {
    if (request.fee_currency !== undefined && request.fee_currency !== null) {
      throw ValidationError.field('fee_amount', 'REQUIRED_VALUE');
    }
    return store;
  }
  const fee = BigInt(request.fee_amount);
  const currency = request.fee_currency ?? request.currency;
  if (currency !== request.currency)
    throw ValidationError.field('fee_currency', 'CURRENCY_MUST_MATCH_CHARGE');
  if (fee > amount) throw ValidationError.field('fee_amount', 'INVALID_AMOUNT');
  if (fee < chargeFee(amount, store)) throw ValidationError.field('fee_amount', 'NUMBER_MIN');
  return { ratePpm: 0, flatAmount: fee };
}

/**
 * The descriptor the charge carries. Card and scanned-QR payments pass it to the processor; an
 * operator's payment page (online) takes none, so a descriptor there is refused (api-reference
 * §2.3: exactly one item, descriptor / NOT_SUPPORTED_BY_PROCESSOR), or dropped when the request says
 * `ignore_descriptor_on_error` (the SDK's own retry without it never fires, api-reference §5.2).
 */
function descriptorFor(token: ChargeableToken, request: ChargeInput): string | null {
  const descriptor = request.descriptor ?? null;
  if (descriptor === null || carriesDescriptor(token.paymentType)) return descriptor;
  if (request.ignore_descriptor_on_error) return null;
  throw ValidationError.field('descriptor', 'NOT_SUPPORTED_BY_PROCESSOR');
}

function unusableToken(token: Pick<ChargeableToken, 'type' | 'usedCount'>): BusinessRuleError {
  if (token.type === 'one_time' && token.usedCount > 0) {
    return new BusinessRuleError('TRANSACTION_ALREADY_PROCESSED', [
      { field: TOKEN_FIELD, reason: 'TRANSACTION_ALREADY_PROCESSED' },
    ]);
  }
  return new BusinessRuleError('INVALID_TOKEN', [{ field: TOKEN_FIELD, reason: 'NOT_ACTIVE' }]);
}

function notCapturable(captureStatus: Charge['captureStatus']): BusinessRuleError {
  return captureStatus === 'captured'
    ? new BusinessRuleError('ALREADY_CAPTURED')
    : new BusinessRuleError('INVALID_CHARGE_STATUS');
}

/** The SDK's refusal of a charge over the store's card limit (decision 0070). */
function cardLimitExceeded(): BusinessRuleError {
  return new BusinessRuleError('CARD_LIMIT_EXCEEDED_FOR_STORE', [
    { field: 'amount', reason: 'CARD_LIMIT_EXCEEDED_FOR_STORE' },
  ]);
}

/**
 * The store's card limit as the charge is held to it (cardLimitFor, the rule the subscription engine
 * applies too). A charge over the limit alone is refused here, before anything is read or locked.
 */
function cardLimitOf(
  configuration: StoreConfiguration,
  paymentType: ChargeableToken['paymentType'],
  amount: bigint,
  currency: string,
  now: Date,
): CreateChargeOptions['cardLimit'] {
  const limit = cardLimitFor(configuration, { paymentType, currency }, now);
  if (limit !== null && amount > limit.amount) throw cardLimitExceeded();
  return limit;
}
