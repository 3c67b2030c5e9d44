import { randomUUID } from 'node:crypto';
import type { AppConfig } from '@kessai/config';
import { APP_TOKEN_VERSION, generateSecret, hashSecret, signAppToken } from '@kessai/auth';
import {
  AppTokensRepository,
  MerchantsRepository,
  type PrismaService,
  StoresRepository,
  type AppToken,
  type Merchant,
  type Store,
} from '@kessai/db';

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

export function describeStore(store: Store) {
  return {
    id: store.id,
    merchant_id: store.merchantId,
    name: store.name,
    created_on: store.createdOn.toISOString(),
  };
}

/** The operator's use cases: the admin CLI and `npm start`'s bootstrap go through these. */
export class AdminService {
  readonly merchants: MerchantsRepository;
  readonly stores: StoresRepository;
  readonly appTokens: AppTokensRepository;

  constructor(
    prisma: PrismaService,
    private readonly config: AppConfig,
  ) {
    this.merchants = new MerchantsRepository(prisma);
    this.stores = new StoresRepository(prisma);
    this.appTokens = new AppTokensRepository(prisma);
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

  async issueAppToken(input: {
    merchantId: string;
    storeId?: string | null;
    mode: 'test' | 'live';
    domains?: string[];
  }): Promise<IssuedAppToken> {
    await this.requireMerchant(input.merchantId);
    const storeId = input.storeId ?? null;
    if (storeId) {
      const store = await this.stores.findById(storeId);
      if (!store || store.merchantId !== input.merchantId) {
        throw new AdminError(`store ${storeId} does not belong to merchant ${input.merchantId}`);
      }
    }
    const secret = generateSecret();
    const token = await this.appTokens.create({
      id: randomUUID(),
      merchantId: input.merchantId,
      storeId,
      scope: storeId ? 'store' : 'merchant',
      mode: input.mode,
      domains: input.domains ?? [],
      secretHash: hashSecret(secret),
      version: APP_TOKEN_VERSION,
    });
    const jwt = signAppToken(
      {
        id: token.id,
        merchantId: token.merchantId,
        storeId: token.storeId,
        mode: input.mode,
        domains: token.domains,
        version: token.version,
      },
      this.config.JWT_SIGNING_KEY,
      token.createdOn,
    );
    return { ...describeAppToken(token), mode: input.mode, scope: token.scope, secret, jwt };
  }

  async listAppTokens(merchantId: string, storeId?: string) {
    await this.requireMerchant(merchantId);
    return (await this.appTokens.listForMerchant(merchantId, storeId)).map(describeAppToken);
  }

  async revokeAppToken(id: string) {
    const token = await this.appTokens.revoke(id);
    if (!token) throw new AdminError(`no app token ${id}`);
    return describeAppToken(token);
  }

  private async requireMerchant(id: string): Promise<Merchant> {
    const merchant = await this.merchants.findById(id);
    if (!merchant) throw new AdminError(`no merchant ${id}`);
    return merchant;
  }
}
