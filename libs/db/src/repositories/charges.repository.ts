import { Injectable } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { CHARGE_FINISHED, CHARGE_REQUESTED, PROCESSOR_NOTICE_RECEIVED } from '@kessai/contracts';
import { utcDay, type PageRequest } from '@kessai/domain';
import {
  Prisma,
  type Charge,
  type ChargeStatus,
  type Merchant,
  type PaymentType,
  type Store,
} from '../generated/prisma/client';
import { listPage } from '../keyset';
import type { DailyQuota } from '../limits/daily-quotas';
import { limitScopeKey } from '../limits/limit-scope';
import { PrismaService } from '../prisma.service';
import type { AccessScope } from './scope';

export type { Charge, ChargeStatus };

export type ChargeListItem = Charge & {
  store: Pick<Store, 'name'> & { merchant: Pick<Merchant, 'name'> };
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
> & {
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
  | { outcome: 'quota_exhausted' };

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

/** What `kessai_refuse` raises (SQLSTATE KS001) with, when the create statement must not stand. */
const REFUSED_TOKEN = 'token_not_claimable';
const REFUSED_QUOTA = 'quota_exhausted';

/** `createMany`'s shared statement: some claim or quota of the batch was refused */
const REFUSED_BATCH = 'batch_refused';

function refusalOf(error: unknown): typeof REFUSED_TOKEN | typeof REFUSED_QUOTA | null {
  if (!(error instanceof Error) || (error as { code?: string }).code !== 'KS001') return null;
  const reasons = [REFUSED_TOKEN, REFUSED_QUOTA] as const;
  return reasons.find((reason) => reason === error.message) ?? null;
}

interface CreateRow {
  duplicate: boolean;
  created_on: Date | null;
}

const AGGREGATE = 'charge';
/** prepared once per connection: the create statement's text is the same for every charge */
const CREATE_STATEMENT = 'charges_create';
const CREATE_MANY_STATEMENT = 'charges_create_many';
/** what a create statement whose outcome is unknown was doing (WriteOutcomeUnknownError) */
const WRITE = 'charge creation';

/**
 * Charges. Every write appends its outbox event in the same transaction. `create` is the hot path
 * of POST /charges: plain SQL, one statement, no row read back.
 */
@Injectable()
export class ChargesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One statement, atomic on its own: it checks the duplicate rule, claims the token (a conditional
   * UPDATE: only while active and, for one_time, unused, which it deactivates, so concurrent charges
   * of one one_time token cannot both claim it), takes the quota, inserts the charge and its event —
   * and when the claim or the quota is refused, `kessai_refuse` raises, which undoes the whole
   * statement. For a duplicate-checked token it runs in a transaction after `pg_advisory_xact_lock`
   * on the token, so that the check and the insert are atomic across gateway replicas.
   *
   * The hot path of POST /charges: plain pg on Prisma's pool, one round trip (four with the lock).
   */
  async create(charge: NewCharge, options: CreateChargeOptions): Promise<CreateChargeResult> {
    const rule = options.duplicateRule;
    const quota = options.quota;
    const values: unknown[] = [];
    const $ = (value: unknown) => `$${values.push(value)}`;
    const json = (value: Prisma.InputJsonObject | null) => (value === null ? null : JSON.stringify(value));
    const requested = JSON.stringify({ charge_id: charge.id, store_id: charge.storeId });
    const finished = JSON.stringify({ charge_id: charge.id, store_id: charge.storeId, status: 'failed' });
    const sql = `
      WITH dup AS (
        SELECT ${$(rule !== null)}::boolean AND EXISTS (
          SELECT 1 FROM charges
           WHERE transaction_token_id = ${$(charge.transactionTokenId)}::uuid
             AND requested_amount = ${$(charge.requestedAmount.toString())}::bigint
             AND requested_currency = ${$(charge.requestedCurrency)}
             AND created_on > now() - make_interval(secs => ${$(rule?.windowSeconds ?? 0)})
             AND error_code IS DISTINCT FROM ${$(rule?.error.code ?? null)}::int
          -- a token that cannot be charged any more is refused as such below, never as a duplicate
          AND EXISTS (SELECT 1 FROM transaction_tokens WHERE id = ${$(charge.transactionTokenId)}::uuid AND active)
        ) AS duplicate
      ),
      claimed AS (
        UPDATE transaction_tokens
           SET used_count = used_count + 1,
               last_used_on = ${$(options.now)},
               active = (type <> 'one_time'),
               updated_on = ${$(options.now)}
         WHERE id = ${$(charge.transactionTokenId)}::uuid
           AND NOT (SELECT duplicate FROM dup)
           AND active
           AND (type <> 'one_time' OR used_count = 0)
        RETURNING id
      ),
      quota AS (
        INSERT INTO daily_quota_usage (resource, scope_key, day, count)
        SELECT ${$(quota?.resource ?? '')}, ${$(quota ? limitScopeKey(quota.scope) : '')}, ${$(utcDay(options.now))}::date, 1
         WHERE ${$(quota !== null)}::boolean AND NOT (SELECT duplicate FROM dup)
        ON CONFLICT (resource, scope_key, day)
        DO UPDATE SET count = daily_quota_usage.count + 1, updated_on = now()
        WHERE daily_quota_usage.count < ${$(quota?.max ?? 0)}
        RETURNING count
      ),
      outcome AS (
        SELECT duplicate,
               EXISTS (SELECT 1 FROM claimed) AS claimed,
               (${$(quota === null)}::boolean OR EXISTS (SELECT 1 FROM quota)) AS quota_ok
          FROM dup
      ),
      inserted AS (
        INSERT INTO charges (
          id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
          requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
          error_code, error_message, error_detail, three_ds, redirect, metadata)
        SELECT ${$(charge.id)}::uuid, ${$(charge.merchantId)}::uuid, ${$(charge.storeId)}::uuid,
               ${$(charge.transactionTokenId)}::uuid, ${$(charge.transactionTokenType)}::token_type,
               ${$(charge.mode)}::processing_mode,
               (CASE WHEN duplicate THEN 'failed' ELSE 'pending' END)::charge_status,
               ${$(charge.requestedAmount.toString())}::bigint, ${$(charge.requestedCurrency)}, ${$(charge.capture)},
               ${$(charge.captureAt)}::timestamptz, ${$(charge.descriptor)}, ${$(charge.onlyDirectCurrency)},
               CASE WHEN duplicate THEN ${$(rule?.error.code ?? null)}::int END,
               CASE WHEN duplicate THEN ${$(rule?.error.message ?? null)} END,
               CASE WHEN duplicate THEN ${$(rule?.error.detail ?? null)} END,
               ${$(json(charge.threeDs))}::jsonb, ${$(json(charge.redirect))}::jsonb, ${$(JSON.stringify(charge.metadata))}::jsonb
          FROM outcome
         WHERE duplicate OR (claimed AND quota_ok)
        RETURNING created_on
      ),
      event AS (
        INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
        SELECT ${$(charge.merchantId)}::uuid, ${$(charge.storeId)}::uuid, ${$(AGGREGATE)}, ${$(charge.id)}::uuid,
               CASE WHEN duplicate THEN ${$(CHARGE_FINISHED)} ELSE ${$(CHARGE_REQUESTED)} END,
               (CASE WHEN duplicate THEN ${$(finished)} ELSE ${$(requested)} END)::jsonb,
               ${$(options.correlationId)}
          FROM outcome
         WHERE EXISTS (SELECT 1 FROM inserted)
      ),
      -- a refused claim or quota raises here, undoing the claim, the quota and the inserts above
      guard AS (
        SELECT CASE WHEN duplicate OR (claimed AND quota_ok) THEN true
                    ELSE kessai_refuse(CASE WHEN NOT claimed THEN ${$(REFUSED_TOKEN)} ELSE ${$(REFUSED_QUOTA)} END)
               END AS ok
          FROM outcome
      )
      SELECT o.duplicate, i.created_on
        FROM outcome o CROSS JOIN guard g LEFT JOIN inserted i ON true
       WHERE g.ok`;

    let row: CreateRow;
    try {
      row = rule
        ? await this.prisma.inTransaction(async (client) => {
            await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
              `charge-duplicate:${charge.transactionTokenId}`,
            ]);
            return (await client.query<CreateRow>({ name: CREATE_STATEMENT, text: sql, values })).rows[0];
          })
        : (
            await this.prisma.write<CreateRow>(WRITE, { text: sql, values }, { prepareAs: CREATE_STATEMENT })
          )[0];
    } catch (error) {
      // a refusal is an outcome; anything else is thrown as it is (WriteOutcomeUnknownError when the
      // connection was lost once the statement, or the COMMIT, had been sent)
      const refused = refusalOf(error);
      if (refused) return { outcome: refused };
      throw error;
    }
    const createdOn = row.created_on ?? options.now;
    if (!row.duplicate) return { outcome: 'created', charge: storedCharge(charge, createdOn, null) };
    return { outcome: 'duplicate', charge: storedCharge(charge, createdOn, rule?.error ?? null) };
  }

  /**
   * `create` for several charges at once, one settled result per creation, in order: each charge
   * succeeds or fails on its own. Those that can share a statement (no duplicate rule, distinct
   * tokens, one quota maximum) are created by one statement, all or nothing: it claims every token
   * (locked in id order) and takes each quota (scope, day) once by its number of charges. When
   * Postgres refuses that statement — a claim or quota refused, a lost deadlock, any error it reports
   * — nothing was written, and each of them runs `create` on its own, which tells which one was
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
   * One statement creating every charge of `creations` as pending, with its claim, quota and
   * charge_requested event, or nothing: null when Postgres refused the statement (a claim or a
   * quota refused, a lost deadlock, or any other error it reports: the statement and its implicit
   * transaction were rolled back). Resolves to each charge's created_on, in order. Requires distinct tokens, no duplicate rule, and `quotaMax` as every
   * quota's maximum.
   */
  async #createBatch(creations: readonly ChargeCreation[], quotaMax: number): Promise<Date[] | null> {
    const input = creations.map(({ charge, options }) => ({
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
      three_ds: charge.threeDs,
      redirect: charge.redirect,
      metadata: charge.metadata,
      correlation_id: options.correlationId,
      now: options.now.toISOString(),
      quota_resource: options.quota?.resource ?? null,
      quota_scope_key: options.quota ? limitScopeKey(options.quota.scope) : null,
      quota_day: utcDay(options.now),
    }));
    const tokenIds = input.map((row) => row.transaction_token_id);
    try {
      const rows = await this.prisma.write<{ id: string; created_on: Date }>(
        WRITE,
        Prisma.sql`
        WITH input AS MATERIALIZED (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS i(
            id uuid, merchant_id uuid, store_id uuid, transaction_token_id uuid,
            transaction_token_type token_type, mode processing_mode, requested_amount bigint,
            requested_currency text, capture boolean, capture_at timestamptz, descriptor text,
            only_direct_currency boolean, three_ds jsonb, redirect jsonb, metadata jsonb,
            correlation_id text, now timestamptz, quota_resource text, quota_scope_key text, quota_day date)
        ),
        -- the tokens are locked in id order, so that statements sharing tokens cannot deadlock; they
        -- are named as an array too, which the planner always reaches through the primary key
        locked AS MATERIALIZED (
          SELECT t.id FROM transaction_tokens t
           WHERE t.id = ANY(${tokenIds}::uuid[])
           ORDER BY t.id
             FOR UPDATE
        ),
        claimed AS (
          UPDATE transaction_tokens t
             SET used_count = t.used_count + 1,
                 last_used_on = i.now,
                 active = (t.type <> 'one_time'),
                 updated_on = i.now
            FROM input i
           WHERE t.id = ANY(${tokenIds}::uuid[])
             AND t.id = i.transaction_token_id
             AND t.id IN (SELECT id FROM locked)
             AND t.active
             AND (t.type <> 'one_time' OR t.used_count = 0)
          RETURNING t.id
        ),
        all_claimed AS MATERIALIZED (
          SELECT count(*) = (SELECT count(*) FROM input) AS ok FROM claimed
        ),
        wanted AS (
          SELECT quota_resource AS resource, quota_scope_key AS scope_key, quota_day AS day, count(*)::int AS n
            FROM input
           WHERE quota_resource IS NOT NULL
           GROUP BY 1, 2, 3
        ),
        -- taken after the claims (it reads all_claimed), each (scope, day) once, in key order
        quota AS (
          INSERT INTO daily_quota_usage (resource, scope_key, day, count)
          SELECT resource, scope_key, day, n FROM wanted
           WHERE n <= ${quotaMax}::int AND (SELECT ok FROM all_claimed)
           ORDER BY resource, scope_key, day
          ON CONFLICT (resource, scope_key, day)
          DO UPDATE SET count = daily_quota_usage.count + excluded.count, updated_on = now()
          WHERE daily_quota_usage.count + excluded.count <= ${quotaMax}::int
          RETURNING 1
        ),
        outcome AS MATERIALIZED (
          SELECT (SELECT ok FROM all_claimed)
                 AND (SELECT count(*) FROM quota) = (SELECT count(*) FROM wanted) AS ok
        ),
        inserted AS (
          INSERT INTO charges (
            id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
            requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
            three_ds, redirect, metadata)
          SELECT id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                 'pending', requested_amount, requested_currency, capture, capture_at, descriptor,
                 only_direct_currency, three_ds, redirect, metadata
            FROM input
           WHERE (SELECT ok FROM outcome)
          RETURNING id, created_on
        ),
        event AS (
          INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
          SELECT merchant_id, store_id, ${AGGREGATE}, id, ${CHARGE_REQUESTED},
                 jsonb_build_object('charge_id', id, 'store_id', store_id), correlation_id
            FROM input
           WHERE (SELECT ok FROM outcome)
        ),
        -- a refused claim or quota raises here, undoing the claims, the quotas and the inserts above
        guard AS (
          SELECT CASE WHEN ok THEN true ELSE kessai_refuse(${REFUSED_BATCH}) END AS ok FROM outcome
        )
        SELECT i.id::text AS id, i.created_on FROM inserted i CROSS JOIN guard g WHERE g.ok`,
        { prepareAs: CREATE_MANY_STATEMENT },
      );
      const createdOn = new Map(rows.map((row) => [row.id, row.created_on]));
      return creations.map(({ charge, options }) => createdOn.get(charge.id) ?? options.now);
    } catch (error) {
      // an error Postgres answered with means nothing was written; a connection lost is thrown
      // (WriteOutcomeUnknownError), since the statement may have committed before it
      if (error instanceof DatabaseError) return null;
      throw error;
    }
  }

  /** The charge if the scope may see it; null for missing and foreign charges alike. */
  findInScope(scope: AccessScope, id: string): Promise<Charge | null> {
    return this.prisma.charge.findFirst({ where: { id, ...whereScope(scope) } });
  }

  /** The status alone (what polling re-reads), or null when the charge is gone. */
  async findStatus(id: string): Promise<ChargeStatus | null> {
    const row = await this.prisma.charge.findUnique({ where: { id }, select: { status: true } });
    return row?.status ?? null;
  }

  findIssuerTokens(scope: AccessScope, id: string): Promise<ChargeIssuerTokens | null> {
    return this.prisma.charge
      .findFirst({
        where: { id, ...whereScope(scope) },
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

  list(merchantId: string, filters: ChargeFilters, page: PageRequest): Promise<ChargeListItem[]> {
    return listPage(page, whereOf(merchantId, filters), {
      findCursor: (where) => this.prisma.charge.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) =>
        this.prisma.charge.findMany({
          ...args,
          include: { store: { select: { name: true, merchant: { select: { name: true } } } } },
        }) as Promise<ChargeListItem[]>,
    });
  }

  count(merchantId: string, filters: ChargeFilters): Promise<number> {
    return this.prisma.charge.count({ where: whereOf(merchantId, filters) });
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
    const rows = await this.prisma.charge.updateManyAndReturn({
      where: { id, ...whereScope(scope) },
      data: { metadata },
    });
    return rows[0] ?? null;
  }

  /**
   * Records a processor notice about a charge as a processor_notice_received command, in one
   * statement; false when no charge has this id. The payload names the notice, never its content
   * beyond event and status: charge-service asks the processor itself.
   */
  async recordProcessorNotice(
    chargeId: string,
    notice: { noticeId: string; event: string; status: string },
    correlationId: string | null,
  ): Promise<boolean> {
    const payload = JSON.stringify({
      charge_id: chargeId,
      notice_id: notice.noticeId,
      event: notice.event,
      status: notice.status,
    });
    const inserted = await this.prisma.$executeRaw`
      INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
      SELECT merchant_id, store_id, ${AGGREGATE}, id, ${PROCESSOR_NOTICE_RECEIVED}, ${payload}::jsonb, ${correlationId}
        FROM charges
       WHERE id = ${chargeId}::uuid`;
    return inserted > 0;
  }
}

/** The charge as `create` stored it: pending, or failed with `error` (the duplicate rule). */
function storedCharge(charge: NewCharge, createdOn: Date, error: DuplicateRuleError | null): Charge {
  // every field spelled out: `{ ...charge, threeDs: … }` (a spread whose keys are then redefined)
  // took V8 ~35 µs per call, a few per cent of the gateway's CPU on POST /charges
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
    threeDs: charge.threeDs as Prisma.JsonValue,
    redirect: charge.redirect as Prisma.JsonValue,
    metadata: charge.metadata as Prisma.JsonValue,
    subscriptionId: null,
    status: error ? 'failed' : 'pending',
    chargedAmount: null,
    chargedCurrency: null,
    captureStatus: null,
    errorCode: error?.code ?? null,
    errorMessage: error?.message ?? null,
    errorDetail: error?.detail ?? null,
    processorReference: null,
    issuerToken: null,
    threeDsIssuerToken: null,
    expiresOn: null,
    createdOn,
    updatedOn: createdOn,
  };
}

function whereScope(scope: AccessScope): Prisma.ChargeWhereInput {
  return { merchantId: scope.merchantId, ...(scope.storeId ? { storeId: scope.storeId } : {}) };
}

function whereOf(merchantId: string, filters: ChargeFilters): Prisma.ChargeWhereInput {
  const amount = {
    ...(filters.amountFrom !== undefined ? { gte: filters.amountFrom } : {}),
    ...(filters.amountTo !== undefined ? { lt: filters.amountTo } : {}),
  };
  const created = {
    ...(filters.from ? { gte: filters.from } : {}),
    ...(filters.to ? { lt: filters.to } : {}),
  };
  const metadata = filters.metadata;
  return {
    ...whereScope({ merchantId, storeId: filters.storeId }),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.mode ? { mode: filters.mode } : {}),
    ...(filters.transactionTokenId ? { transactionTokenId: filters.transactionTokenId } : {}),
    ...(filters.subscriptionId ? { subscriptionId: filters.subscriptionId } : {}),
    ...(filters.currency ? { requestedCurrency: filters.currency } : {}),
    ...(Object.keys(amount).length > 0 ? { requestedAmount: amount } : {}),
    ...(Object.keys(created).length > 0 ? { createdOn: created } : {}),
    ...(metadata
      ? {
          OR: [
            { metadata: { path: [metadata.key], equals: metadata.value } },
            ...(/^-?\d+(\.\d+)?$/.test(metadata.value)
              ? [{ metadata: { path: [metadata.key], equals: Number(metadata.value) } }]
              : []),
          ],
        }
      : {}),
  };
}
