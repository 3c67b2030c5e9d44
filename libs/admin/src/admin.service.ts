import type { AppConfig } from '@kessai/config';
import {
  AppTokenService,
  MerchantUsersService,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '@kessai/accounts';
import type {
  Prisma,
  AppTokensRepository,
  MerchantsRepository,
  MerchantUsersRepository,
  StoresRepository,
  AppToken,
  Merchant,
  MerchantUser,
  Store,
} from '@kessai/db';
import {
  ACTIVE_LIMITS,
  ConflictError,
  NotFoundError,
  ResourceLimitError,
  ValidationError,
} from '@kessai/domain';
import { announceAppTokenChange } from '@kessai/redis';
import {
  applyPatch,
  contradictoryLimit,
  effectiveConfiguration,
  MERCHANT_ONLY_KEYS,
  MIN_TEXT_CONTRAST,
  operatorConfigurationPatchSchema,
  unreadableColorPair,
  type StoreConfiguration,
} from '@kessai/store-configuration';

export interface IssuedAppToken {
  id: string;
  merchant_id: string;
  store_id: string | null;
  scope: 'merchant' | 'store';
  mode: 'test' | 'live';
  domains: string[];
  created_on: string;
  /** shown once: only its hash is stored */
  secret: string;
  jwt: string;
}

export class AdminError extends Error {}

export function describeAppToken(token: AppToken) {
  return {
    id: token.id,
    merchant_id: token.merchantId,
    store_id: token.storeId,
    scope: token.scope,
    mode: token.mode,
    domains: token.domains,
    revoked_on: token.revokedOn?.toISOString() ?? null,
    created_on: token.createdOn.toISOString(),
  };
}

export function describeMerchant(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    verified: merchant.verified,
    pci_dss_compliant: merchant.pciDssCompliant,
    created_on: merchant.createdOn.toISOString(),
  };
}

export function describeUser(user: MerchantUser) {
  return {
    id: user.id,
    merchant_id: user.merchantId,
    email: user.email,
    name: user.name,
    role: user.role,
    created_on: user.createdOn.toISOString(),
  };
}

export function describeStore(store: Store) {
  return {
    id: store.id,
    merchant_id: store.merchantId,
    name: store.name,
    created_on: store.createdOn.toISOString(),
  };
}

/** What the operator's use cases read and write (libs/db's StandaloneDatabase has them all). */
export interface AdminRepositories {
  merchants: MerchantsRepository;
  stores: StoresRepository;
  appTokens: AppTokensRepository;
  merchantUsers: MerchantUsersRepository;
}

/** The operator's use cases: the admin CLI and `npm start`'s bootstrap go through these. */
export class AdminService {
  readonly merchants: MerchantsRepository;
  readonly stores: StoresRepository;
  readonly appTokens: AppTokensRepository;
  readonly users: MerchantUsersService;
  private readonly tokens: AppTokenService;

  constructor(
    repositories: AdminRepositories,
    private readonly config: AppConfig,
  ) {
    this.merchants = repositories.merchants;
    this.stores = repositories.stores;
    this.appTokens = repositories.appTokens;
    this.users = new MerchantUsersService(repositories.merchantUsers);
    this.tokens = new AppTokenService(this.appTokens, this.stores, this.merchants, config);
  }

  async createMerchant(input: { name: string; email: string; verified?: boolean }): Promise<Merchant> {
    if (await this.merchants.findByEmail(input.email))
      throw new AdminError(`a merchant with email ${input.email} exists`);
    return this.merchants.create(input);
  }

  async createStore(input: { merchantId: string; name: string }): Promise<Store> {
    await this.requireMerchant(input.merchantId);
    if (await this.stores.findByName(input.merchantId, input.name)) {
      throw new AdminError(`merchant ${input.merchantId} already has a store named ${input.name}`);
    }
    return this.stores.create(input);
  }

  async setPciDssCompliant(merchantId: string, compliant: boolean): Promise<Merchant> {
    await this.requireMerchant(merchantId);
    return this.merchants.setPciDssCompliant(merchantId, compliant);
  }

  /**
   * Marks a merchant verified (or not): only a verified merchant's users and app tokens may issue
   * live app tokens (docs/decisions/0028), and live mode answers only a verified merchant's live
   * tokens (decision 0049): an unverification closes it at once, without revoking them.
   */
  async setVerified(merchantId: string, verified: boolean): Promise<Merchant> {
    await this.requireMerchant(merchantId);
    const merchant = await this.merchants.setVerified(merchantId, verified);
    await this.announceLiveTokens(merchantId);
    return merchant;
  }

  /**
   * Tells every gateway that the merchant's live tokens changed (its verification did): they cache
   * token rows, with the merchant's verification, for APP_TOKEN_CACHE_TTL_MS otherwise.
   */
  async announceLiveTokens(merchantId: string): Promise<void> {
    for (const token of await this.appTokens.listForMerchant(merchantId))
      if (token.mode === 'live' && token.revokedOn === null)
        await announceAppTokenChange(this.config, token.id);
  }

  /** Issues through the same use case as the API (POST /app_jwts), so the active-token limit holds. */
  async issueAppToken(input: {
    merchantId: string;
    storeId?: string | null;
    mode: 'test' | 'live';
    domains?: string[];
  }): Promise<IssuedAppToken> {
    await this.requireMerchant(input.merchantId);
    const storeId = input.storeId ?? null;
    try {
      // the operator acts as the merchant, and may issue either mode
      const { token, secret, jwt } = await this.tokens.issue(
        { kind: 'operator', merchantId: input.merchantId, storeId: null, mode: null },
        storeId,
        { mode: input.mode, domains: input.domains ?? [] },
      );
      return { ...describeAppToken(token), mode: input.mode, scope: token.scope, secret, jwt };
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new AdminError(`store ${storeId} does not belong to merchant ${input.merchantId}`);
      }
      if (error instanceof ValidationError) {
        // the domain rule of every app token (libs/accounts' isAllowedTokenDomain)
        const named = error.errors.map((e) => input.domains?.[Number(e.field?.split('.')[1])]);
        throw new AdminError(`not an allowed app-token domain: ${named.join(', ')}`);
      }
      if (error instanceof ResourceLimitError) {
        throw new AdminError(
          `${storeId ? `store ${storeId}` : `merchant ${input.merchantId}`} already has ` +
            `${ACTIVE_LIMITS.app_token} active app tokens; revoke one first`,
        );
      }
      throw error;
    }
  }

  async listAppTokens(merchantId: string, storeId?: string) {
    await this.requireMerchant(merchantId);
    return (await this.appTokens.listForMerchant(merchantId, storeId)).map(describeAppToken);
  }

  /** Revokes the token and every token it issued, transitively (docs/decisions/0028). */
  async revokeAppToken(id: string) {
    const revocation = await this.appTokens.revoke(id);
    if (!revocation) throw new AdminError(`no app token ${id}`);
    // gateways cache token rows briefly: tell them now (otherwise they notice within APP_TOKEN_CACHE_TTL_MS)
    for (const revokedId of revocation.revokedIds) await announceAppTokenChange(this.config, revokedId);
    return { ...describeAppToken(revocation.token), revoked_with_it: revocation.revokedIds.slice(1) };
  }

  async createUser(input: {
    merchantId: string;
    email: string;
    password: string;
    name?: string;
    role?: MerchantUser['role'];
  }): Promise<MerchantUser> {
    await this.requireMerchant(input.merchantId);
    requireUsablePassword(input.password);
    try {
      return await this.users.create({ ...input, name: input.name ?? input.email.trim() });
    } catch (error) {
      if (error instanceof ConflictError) throw new AdminError(`a user with email ${input.email} exists`);
      throw error;
    }
  }

  async setUserPassword(userId: string, password: string): Promise<void> {
    requireUsablePassword(password);
    await this.users.setPassword(userId, password);
  }

  /**
   * Changes a merchant's own configuration layer (every key, fees included: the operator's terms).
   * Answers the layer as stored and what the merchant's stores inherit from it.
   */
  async configureMerchant(merchantId: string, change: unknown) {
    const patch = parseConfigurationChange(change);
    const merchant = await this.merchants.updateConfiguration(merchantId, (stored) => {
      const next = applyPatch(stored, patch);
      requireCoherent(effectiveConfiguration(next));
      return next as Prisma.InputJsonObject;
    });
    if (!merchant) throw new AdminError(`no merchant ${merchantId}`);
    return {
      merchant_id: merchant.id,
      configuration: merchant.configuration,
      effective_configuration: effectiveConfiguration(merchant.configuration),
    };
  }

  /**
   * Changes a store's own configuration layer (every key, fees included). Answers the layer as
   * stored and what the store is held to (defaults, its merchant's layer, its own).
   */
  async configureStore(storeId: string, change: unknown) {
    const patch = parseConfigurationChange(change);
    const merchantOnly = MERCHANT_ONLY_KEYS.filter((key) => patch[key] !== undefined);
    if (merchantOnly.length > 0)
      throw new AdminError(
        `invalid configuration: ${merchantOnly.join(', ')} is the merchant's (payouts are per merchant): merchant:configure`,
      );
    const existing = await this.stores.findById(storeId);
    if (!existing) throw new AdminError(`no store ${storeId}`);
    const store = await this.stores.updateConfiguration(
      { merchantId: existing.merchantId, storeId },
      storeId,
      (stored, merchantConfiguration) => {
        const next = applyPatch(stored, patch);
        requireCoherent(effectiveConfiguration(merchantConfiguration, next));
        return next as Prisma.InputJsonObject;
      },
    );
    if (!store) throw new AdminError(`no store ${storeId}`);
    return {
      store_id: store.id,
      configuration: store.configuration,
      effective_configuration: effectiveConfiguration(store.merchant.configuration, store.configuration),
    };
  }

  private async requireMerchant(id: string): Promise<Merchant> {
    const merchant = await this.merchants.findById(id);
    if (!merchant) throw new AdminError(`no merchant ${id}`);
    return merchant;
  }
}

/** The operator's configuration change, or an AdminError naming each refused field. */
function parseConfigurationChange(change: unknown) {
  const result = operatorConfigurationPatchSchema.safeParse(change);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => {
    const path = issue.path.join('.');
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    return `${path || 'configuration'}${keys}: ${issue.message}`;
  });
  throw new AdminError(`invalid configuration: ${fields.join('; ')}`);
}

function requireCoherent(configuration: StoreConfiguration) {
  const currency = contradictoryLimit(configuration);
  if (currency !== null) {
    throw new AdminError(`invalid configuration: the minimum charge in ${currency} is above its maximum`);
  }
  const unreadable = unreadableColorPair(configuration.checkout_colors);
  if (unreadable !== null) {
    throw new AdminError(
      `invalid configuration: checkout_colors.${unreadable.text} on ${unreadable.background} has a ` +
        `contrast of ${unreadable.ratio.toFixed(2)}:1, below ${MIN_TEXT_CONTRAST}:1 (docs/hosted-checkout.md)`,
    );
  }
}

function requireUsablePassword(password: string) {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new AdminError(`a password has ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}
