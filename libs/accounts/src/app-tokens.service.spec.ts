import type { AppConfig } from '@kessai/config';
import type { AccessScope, AppToken, AppTokensRepository, StoresRepository } from '@kessai/db';
import { DomainError, NotFoundError, PermissionError } from '@kessai/domain';
import { isAllowedTokenDomain } from './app-token-domains';
import type { AppTokenChanges } from './app-token-changes';
import { AppTokenService, type TokenManager } from './app-tokens.service';

// The app-token rules of AppTokenService on in-memory repositories: which credentials may manage
// whose tokens, the mode a test credential may issue, the domain rule, and the revocation's
// announcement. The active-token limit's SQL is the e2e suites' (test/app-jwts.e2e-spec.ts).

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const OTHER_STORE = '00000000-0000-4000-8000-000000000003';
const config = { JWT_SIGNING_KEY: 'k'.repeat(64) } as AppConfig;

class FakeRepositories {
  tokens: AppToken[] = [];
  announced: string[] = [];

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
      return Promise.resolve(token ?? null);
    },
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
      config,
      this.changes,
    );
  }
}

const merchantKey: TokenManager = { merchantId: MERCHANT, storeId: null, mode: 'live' };
const storeTestKey: TokenManager = { merchantId: MERCHANT, storeId: STORE, mode: 'test' };
const user: TokenManager = { merchantId: MERCHANT, storeId: null, mode: null };

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

  it('announces a revocation, so that every gateway drops its cached copy', async () => {
    const issued = await tokens.issue(user, STORE, { mode: 'test', domains: [] });
    await tokens.revoke(user, STORE, issued.token.id);
    expect(repositories.announced).toEqual([issued.token.id]);
    await expect(tokens.revoke(user, STORE, '00000000-0000-4000-8000-0000000000ff')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(repositories.announced).toHaveLength(1);
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
