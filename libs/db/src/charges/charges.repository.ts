import { Injectable } from '@nestjs/common';
import { DatabaseError, type PoolClient } from 'pg';
import { CHARGE_ENTRY, isUuid, unknownCursor, utcDay, type PageRequest } from '@kessai/domain';
import {
  Prisma,
  type Charge as ChargeRow,
  type ChargeStatus,
  type Merchant,
  type PaymentType,
  type Store,
  type TransactionToken,
} from '../generated/prisma/client';
import { keysetBounds, type KeysetRow } from '../keyset';
import type { DailyQuota } from '../limits/daily-quotas';
import { limitScopeKey } from '../limits/limit-scope';
import { PrismaService } from '../prisma.service';
import {
  CREATE_CHARGE,
  CREATE_CHARGES,
  RECORD_PROCESSOR_NOTICE,
  LOCK_CARD_LIMIT,
  REFUSED_CARD_LIMIT,
  TRY_LOCK_CHARGE_CREATION,
  REFUSED_QUOTA,
  REFUSED_TOKEN,
  type ChargeCreateInput,
  FIND_CHARGE_CURSOR,
  FIND_CHARGE_IN_SCOPE,
  FIND_CHARGES,
  FIND_CHARGE_LEDGER_IDS,
  LIST_CHARGES,
  type ChargeListFilterParams,
  type ChargeListRow,
} from './charges.sql';
import type { RowOf } from '../sql/statement';
import { ADVISORY_XACT_LOCK } from '../limits/limits.sql';
import { scopeWhere, type AccessScope } from '../scope';

/**
 * A charge as the API, the console and the use cases read it: `processorAccountId` the account its
 * calls go to (its fallback once it failed over); `ledgerId` its sale's id in the ledger, read by the
 * ledger's key (decision 0080), not the row's `ledger_id` column, which is no longer written. The failover's bookkeeping (decision 0056) is
 * charge-service's and the operator's, read through ChargeOutcomesRepository and
 * ProcessorAccountsRepository.
 */
export type Charge = Omit<
  ChargeRow,
  | 'fallbackProcessorAccountId'
  | 'processorCallsStarted'
  | 'processorCallsUnexecuted'
  | 'processorFailedOverOn'
>;
export type { ChargeStatus };

export type ChargeListItem = Charge & {
  store: Pick<Store, 'name'> & { merchant: Pick<Merchant, 'name'> };
  /** the customer's email and the payment type, from the charge's transaction token */
  transactionToken: Pick<TransactionToken, 'email' | 'paymentType'>;
};

/** A charge to insert; the id is chosen by the caller (it is the processor reference). */
export type NewCharge = Pick<
  Charge,
  | 'id'
  | 'merchantId'
  | 'storeId'
  | 'transactionTokenId'
  | 'transactionTokenType'
  | 'mode'
  | 'requestedAmount'
  | 'requestedCurrency'
  | 'capture'
  | 'captureAt'
  | 'descriptor'
  | 'onlyDirectCurrency'
  | 'matchAmount'
> & {
  /** bank transfer and konbini: the payment deadline (its charge_expiries row is inserted with it) */
  expiresOn: Date | null;
  /** the fee terms the charge is accepted under (its store's configuration) */
  feeRatePpm: number;
  feeFlatAmount: bigint;
  threeDs: Prisma.InputJsonObject | null;
  redirect: Prisma.InputJsonObject | null;
  metadata: Prisma.InputJsonObject;
};

/** The payment error a charge refused by the duplicate rule is recorded with. */
export interface DuplicateRuleError {
  code: number;
  message: string;
  detail: string | null;
}

export interface CreateChargeOptions {
  /**
   * Refuse a charge on the same token with the same amount and currency as one created within
   * `windowSeconds` (charges refused by this rule do not count): the new charge is recorded as failed
   * with `error`. Checked under a transaction-scoped advisory lock on the token.
   */
  duplicateRule: {
    windowSeconds: number;
    error: DuplicateRuleError;
  } | null;
  /** a daily quota the charge takes one unit of, in its transaction */
  quota: DailyQuota | null;
  /**
   * The store's card limit, when it applies to this charge (a card token, the limit's currency):
   * what the same card was charged at the store since `since` by charges that did not fail or get
   * canceled, plus this charge, may not pass `amount`. Checked under a transaction-scoped advisory
   * lock on the card (its vault fingerprint) at the store.
   */
  cardLimit?: { amount: bigint; since: Date } | null;
  correlationId: string | null;
  now: Date;
}

export type CreateChargeResult =
  /** inserted as pending, token claimed, quota taken, charge_requested recorded */
  | { outcome: 'created'; charge: Charge }
  /** inserted as failed by the duplicate rule, charge_finished recorded; token and quota untouched */
  | { outcome: 'duplicate'; charge: Charge }
  /** nothing written: the token is inactive, or a one_time token already used */
  | { outcome: 'token_not_claimable' }
  /** nothing written: the quota is used up */
  | { outcome: 'quota_exhausted' }
  /** nothing written: the card's charges at the store in the limit's window, with this one, pass it */
  | { outcome: 'card_limit_exceeded' }
  /**
   * nothing written: the token's duplicate-rule lock or the card's limit lock stayed with other
   * charges' creations for CREATION_LOCK_WAIT_MS (many charges of one card at once); try again
   */
  | { outcome: 'busy' };

/** One charge for `createMany`: what `create` takes. */
export interface ChargeCreation {
  charge: NewCharge;
  options: CreateChargeOptions;
}

export interface ChargeFilters {
  /** the store whose charges are listed; null lists every store of the merchant */
  storeId: string | null;
  status?: ChargeStatus;
  mode?: Charge['mode'];
  transactionTokenId?: string;
  subscriptionId?: string;
  /** the charges made for one scheduled payment (its tries) */
  scheduledPaymentId?: string;
  currency?: string;
  /** requested_amount ≥ */
  amountFrom?: bigint;
  /** requested_amount < */
  amountTo?: bigint;
  /** created_on ≥ */
  from?: Date;
  /** created_on < */
  to?: Date;
  /** one metadata entry, matched as a string or, when numeric, as a number */
  metadata?: { key: string; value: string };
  /** the charge's transaction token's payment type */
  paymentType?: PaymentType;
  /** the charge's transaction token's email, exactly (emails are kept as given) */
  email?: string;
  /** the last four digits of the card of the charge's transaction token */
  cardLastFour?: string;
}

/** What GET .../issuer_token and .../three_ds/issuer_token need of a charge. */
export type ChargeIssuerTokens = Pick<Charge, 'id' | 'status' | 'issuerToken' | 'threeDsIssuerToken'> & {
  paymentType: PaymentType;
};

/**
 * The content of `charges.issuer_token` / `three_ds_issuer_token` as charge-service writes it: the
 * wire answer of the issuer-token routes, snake_case (api-reference §5.2).
 */
export interface StoredIssuerToken {
  issuer_token: string;
  call_method: string;
  payload?: Record<string, string> | null;
  content_type?: string | null;
}

type Refusal = typeof REFUSED_TOKEN | typeof REFUSED_QUOTA | typeof REFUSED_CARD_LIMIT;

/** A charge created inside a transaction was refused (its token's claim, the card limit, or the quota): roll back. */
export class ChargeRefusedError extends Error {
  constructor(readonly outcome: Refusal) {
    super(`charge refused: ${outcome}`);
  }
}

function refusalOf(error: unknown): Refusal | null {
  if (!(error instanceof Error) || (error as { code?: string }).code !== 'KS001') return null;
  const reasons = [REFUSED_TOKEN, REFUSED_QUOTA, REFUSED_CARD_LIMIT] as const;
  return reasons.find((reason) => reason === error.message) ?? null;
}

/**
 * How long a charge's creation tries its token's and card's locks while other creations hold them
 * before it answers `busy` (decision 0076): far above the few milliseconds a creation holds them.
 */
export const CREATION_LOCK_WAIT_MS = 2_000;

/** The pause before the next try: 5 ms doubling to 80 ms, with jitter so that waiters spread out. */
function creationLockPause(attempt: number): number {
  const base = Math.min(80, 5 * 2 ** attempt);
  return base / 2 + Math.random() * base;
}

/** The duplicate rule's lock of a token (the key ADVISORY_XACT_LOCK and TRY_LOCK_CHARGE_CREATION hash). */
const duplicateLockKey = (charge: NewCharge) => `charge-duplicate:${charge.transactionTokenId}`;

function creationLocks(charge: NewCharge, options: CreateChargeOptions) {
  return {
    duplicateKey: options.duplicateRule ? duplicateLockKey(charge) : null,
    cardLimit: Boolean(options.cardLimit),
    storeId: charge.storeId,
    transactionTokenId: charge.transactionTokenId,
  };
}

/** what a create statement whose outcome is unknown was doing (WriteOutcomeUnknownError) */
const WRITE = 'charge creation';

/**
 * Charges. Every write appends its outbox event in the same statement. `create` and `createMany`
 * are the hot path of POST /charges: plain SQL, one statement (CREATE_CHARGE or CREATE_CHARGES, whose
 * rules — token claim, quota, charge and event — are written once), no row read back.
 */
@Injectable()
export class ChargesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * CREATE_CHARGE: one charge, atomic on its own: a refused claim, card limit or quota undoes it all
   * and is answered as such. For a duplicate-checked token, or a charge under a card limit, it runs
   * in a transaction after the advisory lock on the token, then on the card at the store, so that
   * the checks and the insert are atomic across gateway replicas (always in that order: no two
   * creations wait on each other's lock). The locks are tried (TRY_LOCK_CHARGE_CREATION): while
   * another creation holds one, the transaction ends, the connection goes back to the pool, and the
   * try is repeated after a short pause, for at most CREATION_LOCK_WAIT_MS, then `busy` (decision
   * 0076). So many charges of one card at once wait outside Postgres, and the pool stays free for
   * every other charge.
   *
   * One round trip (four with a lock, each try), on a connection of its own (PrismaService.write).
   */
  async create(charge: NewCharge, options: CreateChargeOptions): Promise<CreateChargeResult> {
    const params = createChargeParams(charge, options);
    try {
      if (!options.duplicateRule && !options.cardLimit)
        return createdResult(charge, options, (await this.prisma.write(WRITE, CREATE_CHARGE, params))[0]);
      // tried, never waited for in Postgres: a try that finds a lock taken ends its transaction and
      // gives its connection back before the next (decision 0076)
      const deadline = Date.now() + CREATION_LOCK_WAIT_MS;
      for (let attempt = 0; ; attempt++) {
        const rows = await this.prisma.inTransaction(async (client) => {
          const [{ locked }] = await this.prisma.run(
            TRY_LOCK_CHARGE_CREATION,
            creationLocks(charge, options),
            {
              db: client,
            },
          );
          return locked ? this.prisma.run(CREATE_CHARGE, params, { db: client }) : null;
        });
        if (rows !== null) return createdResult(charge, options, rows[0]);
        const pause = creationLockPause(attempt);
        if (Date.now() + pause > deadline) return { outcome: 'busy' };
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } catch (error) {
      // a refusal is an outcome; anything else is thrown as it is (WriteOutcomeUnknownError when the
      // connection was lost once the statement, or the COMMIT, had been sent)
      const refused = refusalOf(error);
      if (refused) return { outcome: refused };
      throw error;
    }
  }

  /**
   * `create` inside the caller's transaction (`db`), with what it commits alongside (a batch's
   * subscriptions): a refused claim or quota is thrown as ChargeRefusedError, which the caller lets
   * out of its transaction so that everything rolls back.
   */
  async createInTransaction(
    db: PoolClient,
    charge: NewCharge,
    options: CreateChargeOptions,
  ): Promise<Exclude<CreateChargeResult, { outcome: Refusal | 'busy' }>> {
    await this.#lockForCreation(db, charge, options);
    let rows;
    try {
      rows = await this.prisma.run(CREATE_CHARGE, createChargeParams(charge, options), { db });
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) throw new ChargeRefusedError(refused);
      throw error;
    }
    return createdResult(charge, options, rows[0]) as Exclude<
      CreateChargeResult,
      { outcome: Refusal | 'busy' }
    >;
  }

  /**
   * The locks CREATE_CHARGE's checks need in `db`'s transaction: the token's duplicate rule, then the
   * card limit. Waited for: the caller's transaction (a subscription batch's) holds what it wrote.
   */
  async #lockForCreation(db: PoolClient, charge: NewCharge, options: CreateChargeOptions): Promise<void> {
    if (options.duplicateRule) {
      await this.prisma.run(ADVISORY_XACT_LOCK, { key: duplicateLockKey(charge) }, { db });
    }
    if (options.cardLimit) {
      const card = { storeId: charge.storeId, transactionTokenId: charge.transactionTokenId };
      await this.prisma.run(LOCK_CARD_LIMIT, card, { db });
    }
  }

  /**
   * `create` for several charges at once, one settled result per creation, in order: each charge
   * succeeds or fails on its own. Those that can share a statement (no duplicate rule, distinct
   * tokens, one quota maximum) are created by one CREATE_CHARGES, all or nothing. When Postgres
   * refuses that statement — a claim or quota refused, a lost deadlock, any error it reports —
   * nothing was written, and each of them runs `create` on its own, which tells which one was
   * refused and why. When the connection fails instead, the statement may have committed: those
   * charges fail with that error, never retried here (a retry could charge twice). The others (a
   * duplicate-checked token, a token seen earlier in the list) run `create` beside it.
   *
   * Refusals are rare, so the cost of a charge on the hot path falls from a round trip, a statement
   * and a commit to a share of them. The effects are `create`'s, charge by charge.
   */
  async createMany(
    creations: readonly ChargeCreation[],
  ): Promise<PromiseSettledResult<CreateChargeResult>[]> {
    const batch: number[] = [];
    const alone: number[] = [];
    const tokens = new Set<string>();
    const quotaMax = creations.find((c) => c.options.quota !== null)?.options.quota?.max;
    creations.forEach(({ charge, options }, i) => {
      const shareable =
        options.duplicateRule === null &&
        !options.cardLimit &&
        !tokens.has(charge.transactionTokenId) &&
        (options.quota === null || options.quota.max === quotaMax);
      tokens.add(charge.transactionTokenId);
      (shareable ? batch : alone).push(i);
    });
    if (batch.length < 2) alone.push(...batch.splice(0));

    const results = new Array<PromiseSettledResult<CreateChargeResult>>(creations.length);
    const createAlone = (indexes: number[]) =>
      Promise.all(
        indexes.map(async (i) => {
          try {
            results[i] = {
              status: 'fulfilled',
              value: await this.create(creations[i].charge, creations[i].options),
            };
          } catch (reason) {
            results[i] = { status: 'rejected', reason };
          }
        }),
      );
    const createBatch = async () => {
      if (batch.length === 0) return;
      let created: Date[] | null;
      try {
        created = await this.#createBatch(
          batch.map((i) => creations[i]),
          quotaMax ?? 0,
        );
      } catch (reason) {
        for (const i of batch) results[i] = { status: 'rejected', reason };
        return;
      }
      if (created === null) return createAlone(batch);
      batch.forEach((i, k) => {
        const charge = storedCharge(creations[i].charge, created[k], null);
        results[i] = { status: 'fulfilled', value: { outcome: 'created', charge } };
      });
    };
    await Promise.all([createBatch(), createAlone(alone)]);
    return results;
  }

  /**
   * One CREATE_CHARGES creating every charge of `creations` as pending, or nothing: null when
   * Postgres refused the statement (a claim or a quota refused, a lost deadlock, or any other error
   * it reports: the statement and its implicit transaction were rolled back). Resolves to each
   * charge's created_on, in order. Requires distinct tokens, no duplicate rule, and `quotaMax` as
   * every quota's maximum.
   */
  async #createBatch(creations: readonly ChargeCreation[], quotaMax: number): Promise<Date[] | null> {
    try {
      const rows = await this.prisma.write(WRITE, CREATE_CHARGES, {
        input: creations.map(({ charge, options }) => creationInput(charge, options)),
        tokenIds: creations.map(({ charge }) => charge.transactionTokenId),
        quotaMax,
      });
      const createdOn = new Map(rows.map((row) => [row.id, row.created_on]));
      return creations.map(({ charge }) => {
        const at = createdOn.get(charge.id);
        if (!at) throw new Error(`charge ${charge.id}: the create statement inserted nothing`);
        return at;
      });
    } catch (error) {
      // an error Postgres answered with means nothing was written; a connection lost is thrown
      // (WriteOutcomeUnknownError), since the statement may have committed before it
      if (error instanceof DatabaseError) return null;
      throw error;
    }
  }

  /**
   * The charge if the scope may see it; null for missing and foreign charges alike. One plain
   * statement: every GET of a charge or of its refunds and cancels reads it, and Prisma's query
   * compiler was most of the gateway's CPU per read (bench:reads).
   */
  async findInScope(scope: AccessScope, id: string): Promise<Charge | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.prisma.run(FIND_CHARGE_IN_SCOPE, {
      id,
      merchantId: scope.merchantId,
      storeId: scope.storeId,
    });
    return row ? chargeOfRow(row) : null;
  }

  /**
   * The charges `ids` that exist, in no particular order: one plain statement (webhook data, in
   * batches of hundreds, where Prisma's per-row cost showed), rows as Prisma's `Charge`.
   */
  async findMany(ids: readonly string[]): Promise<Charge[]> {
    const rows = await this.prisma.run(FIND_CHARGES, { ids: [...new Set(ids)] });
    return rows.map(chargeOfRow);
  }

  /** The status alone (what polling re-reads), or null when the charge is gone. */
  async findStatus(id: string): Promise<ChargeStatus | null> {
    const row = await this.prisma.charge.findUnique({ where: { id }, select: { status: true } });
    return row?.status ?? null;
  }

  findIssuerTokens(scope: AccessScope, id: string): Promise<ChargeIssuerTokens | null> {
    return this.prisma.charge
      .findFirst({
        where: { id, ...scopeWhere(scope) },
        select: {
          id: true,
          status: true,
          issuerToken: true,
          threeDsIssuerToken: true,
          transactionToken: { select: { paymentType: true } },
        },
      })
      .then((row) => (row ? { ...row, paymentType: row.transactionToken.paymentType } : null));
  }

  /**
   * `limit + 1` charges after the cursor in the page's direction (toPage makes the page of them),
   * with their store's and merchant's names and their token's email and type: one plain statement
   * (LIST_CHARGES), and a primary-key lookup of the cursor before it on a later page. A cursor the
   * scope may not list is as unknown as a missing one.
   */
  async list(merchantId: string, filters: ChargeFilters, page: PageRequest): Promise<ChargeListItem[]> {
    return (await this.#listPage(merchantId, filters, page, false)).rows;
  }

  /**
   * `list`, and on a first page (no cursor) the number of charges matching the filters (total_hits,
   * api-reference §4), from the same statement and snapshot (0 when the page is empty).
   */
  listCounted(
    merchantId: string,
    filters: ChargeFilters,
    page: PageRequest,
  ): Promise<{ rows: ChargeListItem[]; totalHits: number | null }> {
    return this.#listPage(merchantId, filters, page, page.cursor === null);
  }

  async #listPage(
    merchantId: string,
    filters: ChargeFilters,
    page: PageRequest,
    countAll: boolean,
  ): Promise<{ rows: ChargeListItem[]; totalHits: number | null }> {
    let cursor: KeysetRow | null = null;
    if (page.cursor !== null) {
      const [row] = isUuid(page.cursor)
        ? await this.prisma.run(FIND_CHARGE_CURSOR, {
            id: page.cursor,
            merchantId,
            storeId: filters.storeId,
          })
        : [];
      if (!row) throw unknownCursor();
      cursor = { id: page.cursor, createdOn: row.created_on };
    }
    const { lower, upper } = keysetBounds(
      { from: filters.from ?? null, to: filters.to ?? null },
      cursor,
      page.direction,
    );
    const params = {
      merchantId,
      lowerOn: lower.on,
      lowerId: lower.id,
      upperOn: upper.on,
      upperId: upper.id,
      take: page.limit + 1,
      countAll,
    };
    const narrowing = filterParams(filters);
    const kind = narrowing === null ? LIST_CHARGES.plain : LIST_CHARGES.filtered;
    const statement = filters.storeId === null ? kind.merchant[page.direction] : kind.store[page.direction];
    const rows = await this.prisma.run(statement, {
      ...params,
      ...narrowing,
      ...(filters.storeId === null ? {} : { storeId: filters.storeId }),
    });
    const items = rows.map(chargeListItemOfRow);
    if (!countAll) return { rows: items, totalHits: null };
    return { rows: items, totalHits: rows.length === 0 ? 0 : Number(rows[0].total_hits) };
  }

  /**
   * Replaces the metadata of a charge the scope may see; null when it may not. No event: UnivaPay's
   * charge_updated announces status transitions only.
   */
  async updateMetadata(
    scope: AccessScope,
    id: string,
    metadata: Prisma.InputJsonObject,
  ): Promise<Charge | null> {
    const [row] = await this.prisma.charge.updateManyAndReturn({
      where: { id, ...scopeWhere(scope) },
      data: { metadata },
    });
    if (!row) return null;
    // the charge's ledger_id is its sale's, read by the ledger's key (decision 0080), not its column
    const [posted] = await this.prisma.run(FIND_CHARGE_LEDGER_IDS, { ids: [row.id] });
    return { ...row, ledgerId: posted?.ledger_id ?? null };
  }

  /**
   * Records a processor notice about a charge as a processor_notice_received command, in one
   * statement; false when no charge has this id (`awaitingOnly`: none awaiting). The payload
   * names the notice, never its content beyond event and status: charge-service asks the
   * processor itself.
   */
  async recordProcessorNotice(
    chargeId: string,
    notice: { noticeId: string; event: string; status: string },
    correlationId: string | null,
    options: { awaitingOnly?: boolean } = {},
  ): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_PROCESSOR_NOTICE, {
      chargeId,
      ...notice,
      awaitingOnly: options.awaitingOnly ?? false,
      correlationId,
    });
    return rows.length > 0;
  }
}

/** A charge of a batch and its options as CREATE_CHARGES reads them (no duplicate rule). */
function creationInput(charge: NewCharge, options: CreateChargeOptions): ChargeCreateInput {
  const quota = options.quota;
  return {
    id: charge.id,
    merchant_id: charge.merchantId,
    store_id: charge.storeId,
    transaction_token_id: charge.transactionTokenId,
    transaction_token_type: charge.transactionTokenType,
    mode: charge.mode,
    requested_amount: charge.requestedAmount.toString(),
    requested_currency: charge.requestedCurrency,
    capture: charge.capture,
    capture_at: charge.captureAt?.toISOString() ?? null,
    descriptor: charge.descriptor,
    only_direct_currency: charge.onlyDirectCurrency,
    fee_rate_ppm: charge.feeRatePpm,
    fee_flat_amount: charge.feeFlatAmount.toString(),
    expires_on: charge.expiresOn?.toISOString() ?? null,
    match_amount: charge.matchAmount,
    three_ds: charge.threeDs,
    redirect: charge.redirect,
    metadata: charge.metadata,
    correlation_id: options.correlationId,
    now: options.now.toISOString(),
    quota_resource: quota?.resource ?? null,
    quota_scope_key: quota ? limitScopeKey(quota.scope) : null,
    quota_day: quota ? utcDay(options.now) : null,
  };
}

/** What CREATE_CHARGE answered for one charge: created (pending) or refused as a duplicate. */
function createdResult(
  charge: NewCharge,
  options: CreateChargeOptions,
  row: { created_on: Date; status: string } | undefined,
): CreateChargeResult {
  // the statement raises or inserts: no row is a defect, never a charge to answer with
  if (!row) throw new Error(`charge ${charge.id}: the create statement inserted nothing`);
  if (row.status !== CHARGE_ENTRY.duplicate.status) {
    return { outcome: 'created', charge: storedCharge(charge, row.created_on, null) };
  }
  const error = options.duplicateRule?.error ?? null;
  return { outcome: 'duplicate', charge: storedCharge(charge, row.created_on, error) };
}

/** CREATE_CHARGE's parameters for one charge (`create`, and `createInTransaction`). */
function createChargeParams(charge: NewCharge, options: CreateChargeOptions) {
  const quota = options.quota;
  const rule = options.duplicateRule;
  return Object.assign(newChargeColumns(charge), {
    threeDs: charge.threeDs,
    redirect: charge.redirect,
    metadata: charge.metadata,
    correlationId: options.correlationId,
    now: options.now,
    quotaResource: quota?.resource ?? null,
    quotaScopeKey: quota ? limitScopeKey(quota.scope) : null,
    quotaDay: quota ? utcDay(options.now) : null,
    quotaMax: quota?.max ?? 0,
    duplicateWindowSeconds: rule?.windowSeconds ?? null,
    duplicateErrorCode: rule?.error.code ?? null,
    duplicateErrorMessage: rule?.error.message ?? null,
    duplicateErrorDetail: rule?.error.detail ?? null,
    cardLimitAmount: options.cardLimit?.amount ?? null,
    cardLimitSince: options.cardLimit?.since ?? null,
  });
}

/**
 * The new charge's columns that CREATE_CHARGE takes and the stored charge keeps as they are, under
 * the same names. Each field spelled out, and the rest added by Object.assign: an object spread
 * (`{ ...charge, … }`, `{ ...newChargeColumns(charge), … }`) took V8 tens of µs per call, a few per
 * cent of the gateway's CPU on POST /charges; Object.assign costs a few hundred ns.
 */
function newChargeColumns(charge: NewCharge) {
  return {
    id: charge.id,
    merchantId: charge.merchantId,
    storeId: charge.storeId,
    transactionTokenId: charge.transactionTokenId,
    transactionTokenType: charge.transactionTokenType,
    mode: charge.mode,
    requestedAmount: charge.requestedAmount,
    requestedCurrency: charge.requestedCurrency,
    capture: charge.capture,
    captureAt: charge.captureAt,
    descriptor: charge.descriptor,
    onlyDirectCurrency: charge.onlyDirectCurrency,
    feeRatePpm: charge.feeRatePpm,
    feeFlatAmount: charge.feeFlatAmount,
    expiresOn: charge.expiresOn,
    matchAmount: charge.matchAmount,
  };
}

/** The charge as `create` stored it: pending, or failed with `error` (the duplicate rule). */
function storedCharge(charge: NewCharge, createdOn: Date, error: DuplicateRuleError | null): Charge {
  return Object.assign(newChargeColumns(charge), {
    threeDs: charge.threeDs as Prisma.JsonValue,
    redirect: charge.redirect as Prisma.JsonValue,
    metadata: charge.metadata as Prisma.JsonValue,
    subscriptionId: null,
    scheduledPaymentId: null,
    paymentAttempt: null,
    status: error ? ('failed' as const) : ('pending' as const),
    chargedAmount: null,
    chargedCurrency: null,
    feeAmount: null,
    captureStatus: null,
    pendingOperation: null,
    refundReservedAmount: 0n,
    refundedAmount: 0n,
    errorCode: error?.code ?? null,
    errorMessage: error?.message ?? null,
    errorDetail: error?.detail ?? null,
    processorReference: null,
    issuerToken: null,
    threeDsIssuerToken: null,
    ledgerId: null,
    // the triggers' values are not read back: the answer to the merchant never shows them
    processorAccountId: null,
    cardLastFour: null,
    createdOn,
    updatedOn: createdOn,
  });
}

/** A row of libs/db's plain charge reads as Prisma's `Charge`. */
function chargeOfRow(row: RowOf<typeof FIND_CHARGES.columns>): Charge {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    storeId: row.store_id,
    transactionTokenId: row.transaction_token_id,
    transactionTokenType: row.transaction_token_type,
    subscriptionId: row.subscription_id,
    scheduledPaymentId: row.scheduled_payment_id,
    paymentAttempt: row.payment_attempt,
    mode: row.mode,
    status: row.status,
    requestedAmount: row.requested_amount,
    requestedCurrency: row.requested_currency,
    chargedAmount: row.charged_amount,
    chargedCurrency: row.charged_currency,
    feeRatePpm: row.fee_rate_ppm,
    feeFlatAmount: row.fee_flat_amount,
    feeAmount: row.fee_amount,
    capture: row.capture,
    captureAt: row.capture_at,
    captureStatus: row.capture_status,
    pendingOperation: row.pending_operation,
    refundReservedAmount: row.refund_reserved_amount,
    refundedAmount: row.refunded_amount,
    descriptor: row.descriptor,
    onlyDirectCurrency: row.only_direct_currency,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorDetail: row.error_detail,
    processorReference: row.processor_reference,
    threeDs: row.three_ds,
    redirect: row.redirect,
    issuerToken: row.issuer_token,
    threeDsIssuerToken: row.three_ds_issuer_token,
    expiresOn: row.expires_on,
    matchAmount: row.match_amount,
    ledgerId: row.ledger_id,
    processorAccountId: row.processor_account_id,
    metadata: row.metadata,
    cardLastFour: row.card_last_four,
    createdOn: row.created_on,
    updatedOn: row.updated_on,
  };
}

/** A listed row as ChargeListItem (Prisma's shape, which the console and the presenter read). */
function chargeListItemOfRow(row: ChargeListRow): ChargeListItem {
  return Object.assign(chargeOfRow(row), {
    store: { name: row.store_name, merchant: { name: row.merchant_name } },
    transactionToken: { email: row.token_email, paymentType: row.token_payment_type },
  });
}

/** a metadata value that is also compared as a number (as a JSON number in the metadata) */
const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * The filtered statement's filters, or null when none is asked for (the plain statement then).
 * A filter given as an empty string is no filter, as before.
 */
function filterParams(filters: ChargeFilters): ChargeListFilterParams | null {
  const metadata = filters.metadata;
  const params: ChargeListFilterParams = {
    status: filters.status ?? null,
    mode: filters.mode ?? null,
    transactionTokenId: filters.transactionTokenId || null,
    subscriptionId: filters.subscriptionId || null,
    scheduledPaymentId: filters.scheduledPaymentId || null,
    currency: filters.currency || null,
    amountFrom: filters.amountFrom ?? null,
    amountTo: filters.amountTo ?? null,
    metadata: metadata ? { [metadata.key]: metadata.value } : null,
    metadataNumber:
      metadata && NUMERIC.test(metadata.value) ? { [metadata.key]: Number(metadata.value) } : null,
    paymentType: filters.paymentType ?? null,
    email: filters.email || null,
    cardLastFour: filters.cardLastFour || null,
  };
  for (const value of Object.values(params)) if (value !== null) return params;
  return null;
}
