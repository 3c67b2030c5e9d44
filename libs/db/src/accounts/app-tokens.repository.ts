import { Injectable } from '@nestjs/common';
import { AuthenticationError, isUuid, type PageRequest } from '@kessai/domain';
import type { AppToken, AppTokenScope, ProcessingMode } from '../generated/prisma/client';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import { listPage } from '../keyset';
import { createWithinActiveLimit } from '../limits/active-limit';
import { PrismaService } from '../prisma.service';
import { FIND_APP_TOKEN, LOCK_APP_TOKEN_TREE, LOCK_ISSUER, REVOKE_APP_TOKEN_TREE } from './app-tokens.sql';
import type { AccessScope } from '../scope';

export interface NewAppToken {
  id: string;
  merchantId: string;
  storeId: string | null;
  scope: AppTokenScope;
  mode: ProcessingMode;
  domains: string[];
  secretHash: string;
  version: number;
  /** the app token issuing it; null when a merchant user or the operator does */
  issuedBy: string | null;
}

/** A token as authentication reads it: its row, and whether its merchant is verified (decision 0049). */
export type AuthenticatedAppToken = AppToken & { merchantVerified: boolean };

/** A revocation: the named token, and every id it revoked (the token's own first, then those it issued). */
export interface AppTokenRevocation {
  token: AppToken;
  revokedIds: string[];
}

@Injectable()
export class AppTokensRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /**
   * The row by id, in one plain prepared query: authentication reads it for every credential once
   * per cache period, and Prisma's per-query cost was a tenth of the gateway's CPU under load.
   */
  async findById(id: string): Promise<AuthenticatedAppToken | null> {
    if (!isUuid(id)) return null;
    const row = (await this.prisma.run(FIND_APP_TOKEN, { id }))[0];
    if (!row) return null;
    return {
      id: row.id,
      merchantId: row.merchant_id,
      storeId: row.store_id,
      scope: row.scope,
      mode: row.mode,
      domains: [...row.domains],
      secretHash: row.secret_hash,
      version: row.version,
      issuedBy: row.issued_by,
      revokedOn: row.revoked_on,
      createdOn: row.created_on,
      updatedOn: row.updated_on,
      merchantVerified: row.merchant_verified,
    };
  }

  /**
   * Inserts the token unless its owner (the store, or the merchant itself) already has `max` active
   * ones. `audit` (a console write): its row is inserted in the same transaction, naming the token.
   */
  createWithinLimit(token: NewAppToken, max: number, audit?: AuditEntry): Promise<AppToken> {
    return createWithinActiveLimit(
      this.prisma,
      { resource: 'app_token', scope: token, max },
      {
        countActive: (tx) => tx.appToken.count({ where: activeOf(token) }),
        create: async (tx) => {
          // the issuer held until this token is committed: a revocation running now waits, then
          // revokes this one too; a revoked issuer issues nothing (decision 0028)
          if (token.issuedBy !== null) {
            const issuer = (await this.prisma.run(LOCK_ISSUER, { id: token.issuedBy }, { db: tx }))[0];
            if (!issuer || issuer.revoked) throw new AuthenticationError('INVALID_APP_TOKEN');
          }
          const created = await tx.appToken.create({ data: token });
          if (audit) await this.audit.record({ ...audit, targetId: created.id }, tx);
          return created;
        },
      },
    );
  }

  /** One page of the owner's unrevoked tokens: a store's, or the merchant's own (store_id null). */
  listActive(owner: AccessScope, page: PageRequest): Promise<AppToken[]> {
    return listPage(page, activeOf(owner), {
      findCursor: (where) => this.prisma.appToken.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.appToken.findMany(args),
    });
  }

  findActive(owner: AccessScope, id: string): Promise<AppToken | null> {
    return this.prisma.appToken.findFirst({ where: { id, ...activeOf(owner) } });
  }

  /**
   * Revokes an active token of the owner and the tokens it issued, transitively; null when the
   * owner has no such active token. `audit` (a console write): its row is inserted in the
   * revocation's transaction, only when something was revoked.
   */
  async revokeActive(
    owner: AccessScope,
    id: string,
    at = new Date(),
    audit?: AuditEntry,
  ): Promise<AppTokenRevocation | null> {
    return this.revokeTree(id, owner, at, audit);
  }

  listForMerchant(merchantId: string, storeId?: string | null): Promise<AppToken[]> {
    return this.prisma.appToken.findMany({
      where: { merchantId, ...(storeId !== undefined ? { storeId } : {}) },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  /**
   * The operator's revocation, of any token, with the tokens it issued. Revoking again keeps the
   * first revocation time (and revokes what the token issued since, which it no longer can); null
   * for an unknown id.
   */
  async revoke(id: string, at = new Date()): Promise<AppTokenRevocation | null> {
    if (!isUuid(id)) return null;
    const revocation = await this.revokeTree(id, null, at);
    if (revocation) return revocation;
    const token = await this.findById(id);
    return token && { token, revokedIds: [] };
  }

  private async revokeTree(
    id: string,
    owner: AccessScope | null,
    at: Date,
    audit?: AuditEntry,
  ): Promise<AppTokenRevocation | null> {
    if (!isUuid(id)) return null;
    const root = {
      id,
      owned: owner !== null,
      merchantId: owner?.merchantId ?? null,
      storeId: owner?.storeId ?? null,
    };
    const rows = await this.prisma.inTransaction(async (client) => {
      // the whole tree locked first, until a walk finds nothing new: an issuance under it commits
      // before the walk that revokes (it held its issuer), or starts after and finds it revoked
      let locked = new Set<string>();
      for (;;) {
        const tree = await this.prisma.run(LOCK_APP_TOKEN_TREE, root, { db: client });
        if (tree.length === locked.size && tree.every((row) => locked.has(row.id))) break;
        locked = new Set(tree.map((row) => row.id));
      }
      if (locked.size === 0) return [];
      const revoked = await this.prisma.run(REVOKE_APP_TOKEN_TREE, { ...root, at }, { db: client });
      if (audit && revoked.length > 0) await this.audit.record({ ...audit, targetId: id }, client);
      return revoked;
    });
    if (rows.length === 0) return null;
    const token = await this.findById(id);
    return token && { token, revokedIds: rows.map((row) => row.id) };
  }
}

/** The unrevoked tokens of exactly one owner: a store's, or the merchant's own (store_id null). */
function activeOf(owner: AccessScope) {
  return { merchantId: owner.merchantId, storeId: owner.storeId, revokedOn: null };
}
