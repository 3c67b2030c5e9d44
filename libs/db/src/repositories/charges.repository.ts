import { Injectable } from '@nestjs/common';
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

export interface CreateChargeOptions {
  /**
   * Refuse a charge on the same token with the same amount and currency as one created within
   * `windowSeconds` (charges refused by this rule do not count): the new charge is recorded as failed
   * with `error`. Checked under a transaction-scoped advisory lock on the token.
   */
  duplicateRule: {
    windowSeconds: number;
    error: { code: number; message: string; detail: string | null };
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

function refusalOf(error: unknown): 'token_not_claimable' | 'quota_exhausted' | null {
  if (!(error instanceof Error) || (error as { code?: string }).code !== 'KS001') return null;
  return error.message === REFUSED_TOKEN
    ? REFUSED_TOKEN
    : error.message === REFUSED_QUOTA
      ? REFUSED_QUOTA
      : null;
}

interface CreateRow {
  duplicate: boolean;
  created_on: Date | null;
}

const AGGREGATE = 'charge';
/** prepared once per connection: the create statement's text is the same for every charge */
const CREATE_STATEMENT = 'charges_create';

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
        : (await this.prisma.pool.query<CreateRow>({ name: CREATE_STATEMENT, text: sql, values })).rows[0];
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return { outcome: refused };
      throw error;
    }
    const createdOn = row.created_on ?? options.now;
    const stored: Charge = {
      ...charge,
      threeDs: charge.threeDs as Prisma.JsonValue,
      redirect: charge.redirect as Prisma.JsonValue,
      metadata: charge.metadata as Prisma.JsonValue,
      subscriptionId: null,
      status: row.duplicate ? 'failed' : 'pending',
      chargedAmount: null,
      chargedCurrency: null,
      captureStatus: null,
      errorCode: row.duplicate ? (rule?.error.code ?? null) : null,
      errorMessage: row.duplicate ? (rule?.error.message ?? null) : null,
      errorDetail: row.duplicate ? (rule?.error.detail ?? null) : null,
      processorReference: null,
      issuerToken: null,
      threeDsIssuerToken: null,
      expiresOn: null,
      createdOn,
      updatedOn: createdOn,
    };
    return { outcome: row.duplicate ? 'duplicate' : 'created', charge: stored };
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
