import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import { APP_TOKEN_VERSION, generateSecret, hashSecret, signAppToken } from '@kessai/auth';
import { AppTokensRepository, StoresRepository, type AccessScope, type AppToken } from '@kessai/db';
import { ACTIVE_LIMITS, NotFoundError, PermissionError, type PageRequest } from '@kessai/domain';

/** Who manages app tokens: an app token's principal, a merchant user, or the operator (CLI). */
export interface TokenManager extends AccessScope {
  /** the processing mode the caller is bound to; null when it may issue either (users, operators) */
  mode: 'test' | 'live' | null;
}

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
 * itself (`storeId` null) or one of its stores. The gateway and the admin CLI both go through here,
 * so the active-token limit holds whichever way a token is made.
 */
@Injectable()
export class AppTokenService {
  readonly #signingKey: string;

  constructor(
    private readonly appTokens: AppTokensRepository,
    private readonly stores: StoresRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#signingKey = requireSecrets(config, ['JWT_SIGNING_KEY'], 'AppTokenService').JWT_SIGNING_KEY;
  }

  async issue(
    manager: TokenManager,
    storeId: string | null,
    request: NewAppTokenRequest,
  ): Promise<IssuedCredentials> {
    const owner = await this.ownerFor(manager, storeId);
    // a test credential (often handled loosely: CI, sandboxes) must not mint live credentials
    if (manager.mode === 'test' && request.mode === 'live') throw new PermissionError('INVALID_PERMISSIONS');
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
      },
      ACTIVE_LIMITS.app_token,
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

  /** Revokes the token: it stops authenticating at once and no longer counts against the limit. */
  async revoke(
    manager: TokenManager,
    storeId: string | null,
    id: string,
    now = new Date(),
  ): Promise<AppToken> {
    const token = await this.appTokens.revokeActive(await this.ownerFor(manager, storeId), id, now);
    if (!token) throw new NotFoundError('app_token');
    return token;
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
