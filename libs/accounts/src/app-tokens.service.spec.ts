import type { AppConfig } from '@kessai/config';
import type {
  AccessScope,
  AppToken,
  AppTokensRepository,
  Merchant,
  MerchantsRepository,
  StoresRepository,
} from '@kessai/db';
import { BusinessRuleError, DomainError, NotFoundError, PermissionError } from '@kessai/domain';
import { isAllowedTokenDomain } from './app-token-domains';
import type { AppTokenChanges } from './app-token-changes';
import { AppTokenService, type TokenManager } from './app-tokens.service';

// The app-token rules of AppTokenService on in-memory repositories: which credentials may manage
// whose tokens, the mode a test credential may issue, live ones for a verified merchant only, the
// domain rule, and the revocation's announcement (the token and what it issued: decision 0028). The active-token limit's SQL is the e2e suites' (test/app-jwts.e2e-spec.ts).

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const OTHER_STORE = '00000000-0000-4000-8000-000000000003';
const config = { JWT_SIGNING_KEY: 'k'.repeat(64) } as AppConfig;

class FakeRepositories {
  tokens: AppToken[] = [];
  announced: string[] = [];
  verified = true;

  readonly appTokens: Partial<AppTokensRepository> = {
    createWithinLimit: (token) => {
      const row = { ...token, createdOn: new Date(), revokedOn: null } as unknown as AppToken;
      this.tokens.push(row);
      return Promise.resolve(row);
    },
    revokeActive: (owner: AccessScope, id: string) => {
      const token = this.tokens.find(
        (t) => t.id === id && t.merchantId === owner.merchantId && t.storeId === owner.storeId,
      );
      if (!token) return Promise.resolve(null);
      // the token, then what it issued, transitively (the SQL's recursive walk)
      const revokedIds = [token.id];
      for (let i = 0; i < revokedIds.length; i++)
        revokedIds.push(...this.tokens.filter((t) => t.issuedBy === revokedIds[i]).map((t) => t.id));
      return Promise.resolve({ token, revokedIds });
    },
  };

  readonly merchants: Partial<MerchantsRepository> = {
    findById: (id: string) => Promise.resolve({ id, verified: this.verified } as Merchant),
  };

  readonly stores: Partial<StoresRepository> = {
    findVisible: (scope: AccessScope, storeId: string) =>
      Promise.resolve(
        (scope.storeId === null || scope.storeId === storeId) && storeId !== OTHER_STORE
          ? ({ id: storeId, merchantId: scope.merchantId } as Awaited<
              ReturnType<StoresRepository['findVisible']>
            >)
          : null,
      ),
  };

  readonly changes = {
    announce: (id: string) => {
      this.announced.push(id);
      return Promise.resolve();
    },
  } as AppTokenChanges;

  service(): AppTokenService {
    return new AppTokenService(
      this.appTokens as AppTokensRepository,
      this.stores as StoresRepository,
      this.merchants as MerchantsRepository,
      config,
      this.changes,
    );
  }
}

const merchantKey: TokenManager = {
  kind: 'app_token',
  tokenId: '00000000-0000-4000-8000-0000000000a1',
  merchantId: MERCHANT,
  storeId: null,
  mode: 'live',
};
const storeTestKey: TokenManager = {
  kind: 'app_token',
  tokenId: '00000000-0000-4000-8000-0000000000a2',
  merchantId: MERCHANT,
  storeId: STORE,
  mode: 'test',
};
const user: TokenManager = { kind: 'user', merchantId: MERCHANT, storeId: null, mode: null };
const operator: TokenManager = { kind: 'operator', merchantId: MERCHANT, storeId: null, mode: null };

describe('AppTokenService', () => {
  let repositories: FakeRepositories;
  let tokens: AppTokenService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    tokens = repositories.service();
  });

  it('issues a store token with its secret shown once and only its hash stored', async () => {
    const issued = await tokens.issue(merchantKey, STORE, { mode: 'live', domains: ['shop.example.test'] });
    expect(issued.token).toMatchObject({
      merchantId: MERCHANT,
      storeId: STORE,
      scope: 'store',
      mode: 'live',
    });
    expect(issued.token.secretHash).not.toContain(issued.secret);
    expect(issued.jwt.split('.')).toHaveLength(3);
  });

  it('lets a test credential issue test tokens only; a user (no mode) either', async () => {
    await expect(tokens.issue(storeTestKey, STORE, { mode: 'live', domains: [] })).rejects.toBeInstanceOf(
      PermissionError,
    );
    await tokens.issue(storeTestKey, STORE, { mode: 'test', domains: [] });
    await tokens.issue(user, null, { mode: 'live', domains: [] });
  });

  it('issues live tokens for a verified merchant only, except to the operator', async () => {
    repositories.verified = false;
    for (const manager of [user, merchantKey]) {
      const error: unknown = await tokens
        .issue(manager, STORE, { mode: 'live', domains: [] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BusinessRuleError);
      expect((error as DomainError).code).toBe('LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED');
    }
    await tokens.issue(user, STORE, { mode: 'test', domains: [] });
    await tokens.issue(operator, STORE, { mode: 'live', domains: [] });
  });

  it('records the app token that issued a token; a user or the operator issues tokens of no one', async () => {
    expect((await tokens.issue(storeTestKey, STORE, { mode: 'test', domains: [] })).token.issuedBy).toBe(
      storeTestKey.kind === 'app_token' ? storeTestKey.tokenId : null,
    );
    expect((await tokens.issue(user, STORE, { mode: 'test', domains: [] })).token.issuedBy).toBeNull();
    expect((await tokens.issue(operator, STORE, { mode: 'test', domains: [] })).token.issuedBy).toBeNull();
  });

  it('manages the merchant’s own tokens with merchant credentials only', async () => {
    await expect(tokens.issue(storeTestKey, null, { mode: 'test', domains: [] })).rejects.toBeInstanceOf(
      PermissionError,
    );
    const issued = await tokens.issue(user, null, { mode: 'test', domains: [] });
    expect(issued.token).toMatchObject({ storeId: null, scope: 'merchant' });
  });

  it('answers a store the caller may not see as not found', async () => {
    await expect(
      tokens.issue(merchantKey, OTHER_STORE, { mode: 'live', domains: [] }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a domain that is not a host or origin, or a wildcard over a public suffix', async () => {
    const error: unknown = await tokens
      .issue(user, STORE, { mode: 'test', domains: ['shop.example.test', '*.co.jp', 'a b'] })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).errors).toEqual([
      { field: 'domains.1', reason: 'INVALID_FORMAT' },
      { field: 'domains.2', reason: 'INVALID_FORMAT' },
    ]);
    expect(repositories.tokens).toHaveLength(0);
  });

  it('announces a revocation, of the token and what it issued, so that every gateway drops them', async () => {
    const issued = await tokens.issue(user, STORE, { mode: 'test', domains: [] });
    const manager: TokenManager = { ...storeTestKey, tokenId: issued.token.id };
    const child = await tokens.issue(manager, STORE, { mode: 'test', domains: [] });
    await tokens.revoke(user, STORE, issued.token.id);
    expect(repositories.announced).toEqual([issued.token.id, child.token.id]);
    await expect(tokens.revoke(user, STORE, '00000000-0000-4000-8000-0000000000ff')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(repositories.announced).toHaveLength(2);
  });
});

describe('isAllowedTokenDomain', () => {
  it.each([
    ['shop.example.test', true],
    ['localhost', true],
    ['https://shop.example.test:8443', true],
    ['*.example.test', true],
    ['*.com', false],
    ['https://*.co.jp', false],
    ['*.github.io:443', false],
    ['shop example', false],
    ['', false],
  ])('%s: %s', (domain, allowed) => {
    expect(isAllowedTokenDomain(domain)).toBe(allowed);
  });
});
