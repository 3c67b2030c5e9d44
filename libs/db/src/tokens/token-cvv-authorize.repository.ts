import { Injectable } from '@nestjs/common';
import type { TokenCvvAuthorizeStatus } from '@kessai/domain';
import { PrismaService } from '../prisma.service';
import { storedTokenCheck, tokenToCheck, type TokenToCheck } from './token-check';
import {
  FIND_STALE_TOKEN_CVV_AUTHORIZE,
  FIND_TOKEN_CVV_AUTHORIZE,
  UPDATE_TOKEN_CVV_AUTHORIZE,
} from './token-cvv-authorize.sql';

/**
 * A card token's `data.cvv_authorize` as stored. The API shows enabled, status, credentials_id,
 * charge_id and currency; `attempt`, `processor_account_id`, `processor_reference` and `error` are
 * for Kessai only.
 */
export interface StoredTokenCvvAuthorize {
  enabled: boolean;
  status: TokenCvvAuthorizeStatus;
  /** the currency the smallest amount is authorized in */
  currency?: string | null;
  /** 1 at creation, one more each time the authorization starts again (PATCH enabled: true) */
  attempt?: number;
  /** shown to the API, always null: the account is the operator's to see, not the merchant's clients' (decision 0079) */
  credentials_id?: string | null;
  /**
   * the processor account the attempt's hold goes to, chosen by the store's card route when the
   * attempt started and kept for its lookups and void (decision 0079); null or absent: the mode's
   * default processor. Never shown.
   */
  processor_account_id?: string | null;
  /** the processor's payment id of the attempt */
  processor_reference?: string | null;
  /** the payment error of a failed authorization: {code, message, detail} */
  error?: { code: number; message: string; detail: string | null } | null;
  /** when the authorization last moved (ISO 8601) */
  date?: string | null;
}

/** What charge-service needs to authorize a card token's CVV. */
export interface TokenToCvvAuthorize extends TokenToCheck {
  cvvAuthorize: StoredTokenCvvAuthorize | null;
}

/** The status and attempt a change is conditional on (what was read). */
export interface TokenCvvAuthorizeRead {
  status: TokenCvvAuthorizeStatus | null;
  attempt: number;
}

/** A token's `data.cvv_authorize`, read leniently (none, or the `inactive` one shown by default). */
export function storedTokenCvvAuthorize(data: unknown): StoredTokenCvvAuthorize | null {
  return storedTokenCheck<StoredTokenCvvAuthorize>(data, 'cvv_authorize');
}

/** What a change of `cvvAuthorize` (as read) is conditional on. */
export function cvvAuthorizeRead(cvvAuthorize: StoredTokenCvvAuthorize | null): TokenCvvAuthorizeRead {
  return { status: cvvAuthorize?.status ?? null, attempt: cvvAuthorize?.attempt ?? 0 };
}

/**
 * Card tokens' CVV authorization (docs/transaction-tokens.md, "CVV authorization"): every change is
 * one statement, conditional on the status and attempt read, with its events (token_cvv_auth_updated,
 * and token_cvv_auth_requested when the authorization is to start).
 */
@Injectable()
export class TokenCvvAuthorizeRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findToAuthorize(id: string): Promise<TokenToCvvAuthorize | null> {
    const [row] = await this.prisma.run(FIND_TOKEN_CVV_AUTHORIZE, { id });
    if (!row) return null;
    return { ...tokenToCheck(row), cvvAuthorize: storedTokenCvvAuthorize(row.data) };
  }

  /**
   * Replaces the token's CVV authorization with `next` if it is still as read; false when it moved
   * meanwhile (nothing written). `requested`: the authorization is to start (charge-service's job).
   */
  async update(
    id: string,
    read: TokenCvvAuthorizeRead,
    next: StoredTokenCvvAuthorize,
    context: { requested: boolean; correlationId?: string | null; causeEventId?: string | null },
  ): Promise<boolean> {
    const rows = await this.prisma.run(UPDATE_TOKEN_CVV_AUTHORIZE, {
      id,
      fromStatus: read.status,
      fromAttempt: read.attempt,
      cvvAuthorize: next,
      requested: context.requested,
      correlationId: context.correlationId ?? null,
      causeEventId: context.causeEventId ?? null,
    });
    return rows.length > 0;
  }

  /** Tokens whose CVV authorization has been pending `staleSeconds` or more (their job lost), oldest first. */
  async findStalePending(staleSeconds: number, limit: number): Promise<{ id: string; attempt: number }[]> {
    return this.prisma.run(FIND_STALE_TOKEN_CVV_AUTHORIZE, { staleSeconds, limit });
  }
}
