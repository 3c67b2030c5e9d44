import { Injectable } from '@nestjs/common';
import type { TokenThreeDsStatus } from '@kessai/domain';
import { PrismaService } from '../prisma.service';
import { storedTokenCheck, tokenToCheck, type TokenToCheck } from './token-check';
import {
  FIND_EXPIRED_TOKEN_THREE_DS,
  FIND_STALE_TOKEN_THREE_DS,
  FIND_TOKEN_THREE_DS,
  RECORD_TOKEN_THREE_DS_NOTICE,
  UPDATE_TOKEN_THREE_DS,
} from './token-three-ds.sql';

/**
 * A card token's `data.three_ds` as stored. The API shows enabled, status, mode, redirect_endpoint,
 * redirect_id and error; `attempt`, `issuer_token`, `processor_account_id` and `processor_reference`
 * are for Kessai only.
 */
export interface StoredTokenThreeDs {
  enabled: boolean;
  status: TokenThreeDsStatus;
  mode: string;
  redirect_endpoint: string | null;
  redirect_id: string | null;
  /** 1 at creation, one more each time authentication starts again (enableThreeDs) */
  attempt: number;
  /** the payment error of a failed authentication: {code, message, detail} */
  error?: { code: number; message: string; detail: string | null } | null;
  /** while awaiting: the issuer page (ThreeDsIssuerToken, snake_case, as for charges) */
  issuer_token?: Record<string, unknown> | null;
  /**
   * the processor account the attempt's hold goes to, chosen by the store's card route in yen when
   * the attempt started and kept for its lookups and voids (decision 0079); null or absent: the
   * mode's default processor
   */
  processor_account_id?: string | null;
  /** the processor's payment id of the attempt */
  processor_reference?: string | null;
  /** while awaiting: when an authentication nobody completed is voided and failed (ISO 8601) */
  expires_on?: string | null;
  /**
   * while awaiting: its expiry's void was asked for (written before the void), so that a voided
   * payment reads as expired, not as authenticated and released
   */
  expiring?: boolean | null;
}

/** What charge-service needs to authenticate a card token. */
export interface TokenToAuthenticate extends TokenToCheck {
  /** an awaiting 3-D Secure past its deadline, by Postgres' clock (FIND_TOKEN_THREE_DS) */
  threeDsExpired: boolean;
  threeDs: StoredTokenThreeDs | null;
}

/**
 * The status, attempt, expiry marker and `enabled` a change is conditional on (what was read).
 * `enabled` null: not compared, and the stored one kept (charge-service records what the processor
 * did whatever the merchant switched meanwhile; UPDATE_TOKEN_THREE_DS).
 */
export interface TokenThreeDsRead {
  status: TokenThreeDsStatus | null;
  attempt: number;
  expiring: boolean;
  enabled: boolean | null;
}

/** What a change of `threeDs` (as read) is conditional on. */
export function threeDsRead(threeDs: StoredTokenThreeDs | null): TokenThreeDsRead {
  return {
    status: threeDs?.status ?? null,
    attempt: threeDs?.attempt ?? 0,
    expiring: threeDs?.expiring === true,
    enabled: threeDs?.enabled === true,
  };
}

/** A token's `data.three_ds`, read leniently (tokens made before attempts existed count as attempt 1). */
export function storedTokenThreeDs(data: unknown): StoredTokenThreeDs | null {
  return storedTokenCheck<StoredTokenThreeDs>(data, 'three_ds');
}

/**
 * Card tokens' 3-D Secure (docs/transaction-tokens.md, "3-D Secure"): every change is one statement,
 * conditional on what was read (status, attempt, expiry marker, enabled), with its events (token_three_ds_updated, and
 * token_three_ds_requested when authentication is to start).
 */
@Injectable()
export class TokenThreeDsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The token as charge-service authenticates it; `expirySeconds` dates an awaiting one without a stored deadline. */
  async findToAuthenticate(id: string, expirySeconds: number): Promise<TokenToAuthenticate | null> {
    const [row] = await this.prisma.run(FIND_TOKEN_THREE_DS, { id, expirySeconds });
    if (!row) return null;
    return { ...tokenToCheck(row), threeDsExpired: row.expired, threeDs: storedTokenThreeDs(row.data) };
  }

  /**
   * Replaces the token's 3-D Secure with `next` if it is still as read; false when it moved
   * meanwhile (nothing written). `requested`: authentication is to start (charge-service's job).
   */
  async update(
    id: string,
    read: TokenThreeDsRead,
    next: StoredTokenThreeDs,
    context: { requested: boolean; correlationId?: string | null; causeEventId?: string | null },
  ): Promise<boolean> {
    const rows = await this.prisma.run(UPDATE_TOKEN_THREE_DS, {
      id,
      fromStatus: read.status,
      fromAttempt: read.attempt,
      fromExpiring: read.expiring,
      fromEnabled: read.enabled,
      threeDs: next,
      requested: context.requested,
      correlationId: context.correlationId ?? null,
      causeEventId: context.causeEventId ?? null,
    });
    return rows.length > 0;
  }

  /** Tokens whose awaiting 3-D Secure is past its deadline (FIND_EXPIRED_TOKEN_THREE_DS), oldest deadline first. */
  async findExpiredAwaiting(
    expirySeconds: number,
    limit: number,
  ): Promise<{ id: string; expiresOn: Date }[]> {
    const rows = await this.prisma.run(FIND_EXPIRED_TOKEN_THREE_DS, { expirySeconds, limit });
    return rows.map((row) => ({ id: row.id, expiresOn: row.expires_on }));
  }

  /** Tokens whose 3-D Secure has been pending `staleSeconds` or more (their job lost), oldest first. */
  async findStalePending(staleSeconds: number, limit: number): Promise<{ id: string; attempt: number }[]> {
    return this.prisma.run(FIND_STALE_TOKEN_THREE_DS, { staleSeconds, limit });
  }

  /** The processor's notice about the token's authentication, as a command; false when the token is not ours. */
  async recordNotice(
    id: string,
    notice: { noticeId: string; status: string },
    correlationId: string | null,
  ): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_TOKEN_THREE_DS_NOTICE, { id, ...notice, correlationId });
    return rows.length > 0;
  }
}
