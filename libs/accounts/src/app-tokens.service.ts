import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import { APP_TOKEN_VERSION, generateSecret, hashSecret, signAppToken } from '@kessai/auth';
import {
  AppTokensRepository,
  MerchantsRepository,
  StoresRepository,
  type AccessScope,
  type AppToken,
  type AppTokenRevocation,
  type AuditedWrite,
} from '@kessai/db';
import {
  ACTIVE_LIMITS,
  BusinessRuleError,
  NotFoundError,
  PermissionError,
  ValidationError,
  type PageRequest,
} from '@kessai/domain';
import { isAllowedTokenDomain } from './app-token-domains';
import { AppTokenChanges } from './app-token-changes';

/**
 * Who manages app tokens (docs/decisions/0028): an app token (`tokenId`, bound to its mode), a
 * merchant user (login), or the operator (CLI), who also decides which merchant is verified.
 */
export type TokenManager = AccessScope &
  (
    | { kind: 'app_token'; tokenId: string; mode: 'test' | 'live' }
    | { kind: 'user'; mode: null }
    | { kind: 'operator'; mode: null }
  );

export interface NewAppTokenRequest {
  mode: 'test' | 'live';
  domains: string[];
}

export interface IssuedCredentials {
  token: AppToken;
  /** shown once: only its hash is stored */
  secret: string;
  jwt: string;
}

/**
 * App tokens (the API's `app_jwts`): issued, listed and revoked for one owner, either the merchant
 * itself (`storeId` null) or one of its stores. The gateway, the admin CLI and any other front end
 * go through here, so the active-token limit and the domain rule hold whichever way a token is made,
 * and a revocation reaches every gateway's cache (AppTokenChanges; the CLI announces its own).
 */
@Injectable()
export class AppTokenService {
  readonly #signingKey: string;

  constructor(
    private readonly appTokens: AppTokensRepository,
    private readonly stores: StoresRepository,
    private readonly merchants: MerchantsRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    // absent where no Redis is wired (the admin CLI announces its own revocations)
    @Optional() @Inject(AppTokenChanges) private readonly changes: AppTokenChanges | null = null,
  ) {
    this.#signingKey = requireSecrets(config, ['JWT_SIGNING_KEY'], 'AppTokenService').JWT_SIGNING_KEY;
  }

  async issue(
    manager: TokenManager,
    storeId: string | null,
    request: NewAppTokenRequest,
    options: AuditedWrite = {},
  ): Promise<IssuedCredentials> {
    const owner = await this.ownerFor(manager, storeId);
    // a test credential (often handled loosely: CI, sandboxes) must not mint live credentials
    if (manager.mode === 'test' && request.mode === 'live') throw new PermissionError('INVALID_PERMISSIONS');
    // the origins its public use may come from: hosts or origins, never a wildcard over a public suffix
    const refused = request.domains.flatMap((domain, i) =>
      isAllowedTokenDomain(domain) ? [] : [{ field: `domains.${i}`, reason: 'INVALID_FORMAT' }],
    );
    if (refused.length > 0) throw new ValidationError(refused);
    // live credentials move real money: only for a merchant the operator has verified (the
    // operator itself may issue them before, e.g. for its own checks)
    if (request.mode === 'live' && manager.kind !== 'operator') {
      const merchant = await this.merchants.findById(owner.merchantId);
      if (!merchant?.verified) throw new BusinessRuleError('LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED');
    }
    const secret = generateSecret();
    const token = await this.appTokens.createWithinLimit(
      {
        id: randomUUID(),
        merchantId: owner.merchantId,
        storeId: owner.storeId,
        scope: owner.storeId ? 'store' : 'merchant',
        mode: request.mode,
        domains: request.domains,
        secretHash: hashSecret(secret),
        version: APP_TOKEN_VERSION,
        // an app token's issue dies with it (revokeActive): a leaked token leaves nothing behind
        issuedBy: manager.kind === 'app_token' ? manager.tokenId : null,
      },
      ACTIVE_LIMITS.app_token,
      options.audit,
    );
    const jwt = signAppToken(
      {
        id: token.id,
        merchantId: token.merchantId,
        storeId: token.storeId,
        mode: request.mode,
        domains: token.domains,
        version: token.version,
      },
      this.#signingKey,
      token.createdOn,
    );
    return { token, secret, jwt };
  }

  async list(manager: TokenManager, storeId: string | null, page: PageRequest): Promise<AppToken[]> {
    return this.appTokens.listActive(await this.ownerFor(manager, storeId), page);
  }

  async get(manager: TokenManager, storeId: string | null, id: string): Promise<AppToken> {
    const token = await this.appTokens.findActive(await this.ownerFor(manager, storeId), id);
    if (!token) throw new NotFoundError('app_token');
    return token;
  }

  /**
   * Revokes the token and every token it issued, transitively: they stop authenticating at once
   * (the caller tells the gateways' caches every id of `revokedIds`) and no longer count against
   * the limit.
   */
  async revoke(
    manager: TokenManager,
    storeId: string | null,
    id: string,
    options: AuditedWrite & { now?: Date } = {},
  ): Promise<AppTokenRevocation> {
    const owner = await this.ownerFor(manager, storeId);
    const revocation = await this.appTokens.revokeActive(owner, id, options.now, options.audit);
    if (!revocation) throw new NotFoundError('app_token');
    // every gateway forgets each of them at once (the token and what it issued)
    for (const revokedId of revocation.revokedIds) await this.changes?.announce(revokedId);
    return revocation;
  }

  /**
   * The owner a request addresses. The merchant's own tokens (`storeId` null) are managed with
   * merchant-scope credentials only; a store's tokens by the merchant or by that store itself. A
   * store the caller may not see answers like a missing one.
   */
  private async ownerFor(manager: TokenManager, storeId: string | null): Promise<AccessScope> {
    if (storeId === null) {
      if (manager.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
      return { merchantId: manager.merchantId, storeId: null };
    }
    const store = await this.stores.findVisible(manager, storeId);
    if (!store) throw new NotFoundError('store');
    return { merchantId: store.merchantId, storeId: store.id };
  }
}
