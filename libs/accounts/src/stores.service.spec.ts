import type {
  AccessScope,
  Merchant,
  MerchantsRepository,
  NewStoreLogo,
  Prisma,
  Store,
  StoreChange,
  StoresRepository,
  StoreWithMerchant,
} from '@kessai/db';
import { LOGO_MAX_BYTES, NotFoundError, PermissionError, ValidationError } from '@kessai/domain';
import type { Logger } from '@kessai/observability';
import type { AppTokenChanges } from './app-token-changes';
import type { LogoUpload } from './store-inputs';
import { StoresService } from './stores.service';

// The store rules of StoresService on in-memory repositories: who may create and delete stores,
// what a logo must be, which configurations a store's layers may not combine into, and what a
// deletion announces. The transactions behind create, change and delete are the e2e suites'
// (test/stores-*.e2e-spec.ts, test/store-configuration.e2e-spec.ts), on real Postgres.

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const OTHER_STORE = '00000000-0000-4000-8000-000000000003';
const merchantWide: AccessScope = { merchantId: MERCHANT, storeId: null };
const correlation = { correlationId: 'req-1' };

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const logoOf = (bytes: Buffer, overrides: Partial<LogoUpload> = {}): LogoUpload => ({
  bytes,
  size: bytes.length,
  truncated: false,
  sha256: 'a'.repeat(64),
  ...overrides,
});

/** In-memory stand-ins for the repositories StoresService reads and writes. */
class FakeRepositories {
  /** the stored configuration layer of the one store, and its merchant's */
  storeConfiguration: Prisma.JsonValue = {};
  merchantConfiguration: Prisma.JsonValue = {};
  created: { name: string; configuration?: Prisma.InputJsonObject; logo?: NewStoreLogo }[] = [];
  changes: { configuration?: Prisma.InputJsonObject; logo?: NewStoreLogo | null; name?: string }[] = [];
  revokedOnDelete = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2'];
  announced: string[] = [];
  logged: unknown[] = [];

  readonly stores: Partial<StoresRepository> = {
    create: (input) => {
      this.created.push(input);
      return Promise.resolve({ id: STORE, merchantId: input.merchantId, name: input.name } as Store);
    },
    findVisible: (scope: AccessScope, id: string) =>
      Promise.resolve(this.#visible(scope, id) ? ({ id, merchantId: scope.merchantId } as Store) : null),
    findVisibleWithMerchant: (scope: AccessScope, id: string) =>
      Promise.resolve(this.#visible(scope, id) ? this.#row(id) : null),
    change: (scope: AccessScope, id: string, change: StoreChange) => {
      if (!this.#visible(scope, id)) return Promise.resolve(null);
      // as the repository does: the new layer is computed from the stored one, and may refuse
      const configuration = change.configuration?.(this.storeConfiguration, this.merchantConfiguration);
      this.changes.push({ name: change.name, configuration, logo: change.logo });
      return Promise.resolve(this.#row(id));
    },
    delete: (merchantId: string, id: string) =>
      Promise.resolve(
        merchantId === MERCHANT && id === STORE
          ? { revokedAppTokenIds: this.revokedOnDelete, subscriptionsCanceled: 2, tokensDeactivated: 3 }
          : null,
      ),
  };

  readonly merchants: Partial<MerchantsRepository> = {
    findById: (id: string) =>
      Promise.resolve(
        id === MERCHANT
          ? ({ id, name: 'Shop', configuration: this.merchantConfiguration } as Merchant)
          : null,
      ),
  };

  readonly changesChannel = {
    announce: (id: string) => {
      this.announced.push(id);
      return Promise.resolve();
    },
  } as AppTokenChanges;

  readonly logger = { info: (fields: unknown) => this.logged.push(fields) } as unknown as Logger;

  service(): StoresService {
    return new StoresService(
      this.stores as StoresRepository,
      this.merchants as MerchantsRepository,
      this.changesChannel,
      this.logger,
    );
  }

  #visible(scope: AccessScope, id: string): boolean {
    return scope.merchantId === MERCHANT && id !== OTHER_STORE && (scope.storeId ?? id) === id;
  }

  #row(id: string): StoreWithMerchant {
    return {
      id,
      merchantId: MERCHANT,
      configuration: this.storeConfiguration,
      merchant: { name: 'Shop', configuration: this.merchantConfiguration },
      logo: null,
    } as StoreWithMerchant;
  }
}

describe('StoresService', () => {
  let repositories: FakeRepositories;
  let stores: StoresService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    stores = repositories.service();
  });

  describe('who creates and deletes stores', () => {
    it('a merchant-wide scope; a store-scoped one is refused with INVALID_PERMISSIONS', () => {
      expect(stores.merchantOf(merchantWide)).toEqual({ merchantId: MERCHANT, storeId: null });
      expect(() => stores.merchantOf({ merchantId: MERCHANT, storeId: STORE })).toThrow(PermissionError);
    });
  });

  describe('creating a store', () => {
    it('keeps the merchant’s configuration keys as the store’s own layer and answers it with its merchant', async () => {
      const store = await stores.create(stores.merchantOf(merchantWide), {
        name: 'Second shop',
        configuration: { minimum_charge_amounts: [{ amount: 100, currency: 'JPY' }] },
      });
      expect(repositories.created).toEqual([
        expect.objectContaining({
          name: 'Second shop',
          configuration: { minimum_charge_amounts: [{ amount: 100, currency: 'JPY' }] },
          logo: undefined,
        }),
      ]);
      expect(store).toMatchObject({ name: 'Second shop', merchant: { name: 'Shop' }, logo: null });
    });

    it('with a logo: a PNG, JPEG or WebP by its bytes, its digest in the answer', async () => {
      const store = await stores.create(stores.merchantOf(merchantWide), { name: 'Shop', logo: logoOf(PNG) });
      expect(repositories.created[0]?.logo).toEqual({
        contentType: 'image/png',
        image: PNG,
        digest: 'a'.repeat(64),
      });
      expect(store.logo).toEqual({ digest: 'a'.repeat(64) });
    });

    it.each([
      ['not an image', logoOf(Buffer.from('GIF89a not allowed')), 'FILE_INVALID_TYPE'],
      ['cut at the parser’s bound', logoOf(PNG, { truncated: true }), 'FILE_MAX_SIZE_EXCEEDED'],
      ['larger than LOGO_MAX_BYTES', logoOf(PNG, { size: LOGO_MAX_BYTES + 1 }), 'FILE_MAX_SIZE_EXCEEDED'],
    ])('refuses a logo %s, writing nothing', async (_, logo, code) => {
      await expect(
        stores.create(stores.merchantOf(merchantWide), { name: 'Shop', logo }),
      ).rejects.toMatchObject({
        code,
        errors: [{ field: 'logo', reason: code }],
      });
      expect(repositories.created).toEqual([]);
    });

    it('refuses a minimum above the maximum, counting the merchant’s layer', async () => {
      repositories.merchantConfiguration = { maximum_charge_amounts: [{ amount: 500, currency: 'JPY' }] };
      await expect(
        stores.create(stores.merchantOf(merchantWide), {
          name: 'Shop',
          configuration: { minimum_charge_amounts: [{ amount: 1000, currency: 'JPY' }] },
        }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'configuration.minimum_charge_amounts', reason: 'NOT_WITHIN_BOUNDS' }],
      });
      expect(repositories.created).toEqual([]);
    });
  });

  describe('changing a store (the console’s Settings page, PATCH /stores/{id})', () => {
    it('applies the configuration’s keys over the stored layer: a value replaces, null returns it to the merchant’s', async () => {
      repositories.storeConfiguration = {
        minimum_charge_amounts: [{ amount: 100, currency: 'JPY' }],
        language: 'JA_JP',
      };
      await stores.update(merchantWide, STORE, {
        name: 'Renamed',
        configuration: { language: 'EN_US', minimum_charge_amounts: null },
      });
      expect(repositories.changes).toEqual([
        { name: 'Renamed', configuration: { language: 'EN_US' }, logo: undefined },
      ]);
    });

    it('refuses checkout colours whose text is unreadable on its background, naming the colour', async () => {
      await expect(
        stores.update(merchantWide, STORE, {
          configuration: { checkout_colors: { primary_text: '#ffffff', main_background: '#ffffff' } },
        }),
      ).rejects.toMatchObject({
        errors: [{ field: 'configuration.checkout_colors.primary_text', reason: 'INSUFFICIENT_CONTRAST' }],
      });
    });

    it('replaces the logo with a checked one, or removes it with null', async () => {
      await stores.update(merchantWide, STORE, { logo: logoOf(PNG) });
      await stores.update(merchantWide, STORE, { logo: null });
      expect(repositories.changes.map((change) => change.logo)).toEqual([
        { contentType: 'image/png', image: PNG, digest: 'a'.repeat(64) },
        null,
      ]);
    });

    it('answers a malformed, foreign or other store’s id as an unknown store', async () => {
      const storeToken = { merchantId: MERCHANT, storeId: STORE };
      for (const [scope, id] of [
        [merchantWide, 'not-a-uuid'],
        [merchantWide, OTHER_STORE],
        [storeToken, '00000000-0000-4000-8000-000000000009'],
      ] as const)
        await expect(stores.update(scope, id, { name: 'x' })).rejects.toThrow(NotFoundError);
      expect(repositories.changes).toEqual([]);
    });
  });

  describe('deleting a store', () => {
    it('announces every app token it revoked to all gateways and answers them', async () => {
      const deleted = await stores.delete(stores.merchantOf(merchantWide), STORE.toUpperCase(), correlation);
      expect(deleted.revokedAppTokenIds).toEqual(repositories.revokedOnDelete);
      expect(repositories.announced).toEqual(repositories.revokedOnDelete);
      expect(repositories.logged).toEqual([
        expect.objectContaining({ appTokensRevoked: 2, tokensDeactivated: 3 }),
      ]);
    });

    it('answers an unknown or malformed store as not found, announcing nothing', async () => {
      await expect(stores.delete(stores.merchantOf(merchantWide), OTHER_STORE, correlation)).rejects.toThrow(
        NotFoundError,
      );
      await expect(stores.delete(stores.merchantOf(merchantWide), 'x', correlation)).rejects.toThrow(
        NotFoundError,
      );
      expect(repositories.announced).toEqual([]);
    });
  });

  describe('a customer id', () => {
    it('is the same UUID for the same store and id, another for another id', async () => {
      const first = await stores.customerId(merchantWide, STORE, 'customer-42');
      expect(await stores.customerId(merchantWide, STORE.toUpperCase(), 'customer-42')).toBe(first);
      expect(await stores.customerId(merchantWide, STORE, 'customer-43')).not.toBe(first);
      expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('needs a store the scope may see', async () => {
      await expect(stores.customerId(merchantWide, OTHER_STORE, 'c')).rejects.toThrow(NotFoundError);
      await expect(stores.customerId(merchantWide, 'x', 'c')).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  it('refuses with domain errors only (the front end maps them)', async () => {
    await expect(
      stores.create(stores.merchantOf(merchantWide), { name: 'Shop', logo: logoOf(Buffer.from('x')) }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
