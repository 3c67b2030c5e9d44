import type {
  NewCardVaultEntry,
  NewTransactionToken,
  Prisma,
  StoresRepository,
  StoreTokenSettings,
  TransactionToken,
  TransactionTokensRepository,
  TokenCvvAuthorizeRepository,
} from '@kessai/db';
import { BusinessRuleError, ServiceUnavailableError } from '@kessai/domain';
import type { Logger } from '@kessai/observability';
import { processorLimitsOf, type LiveProcessorLimits } from '@kessai/payments';
import type { CardVault, PendingCvvStore } from '@kessai/vault';
import { TokenCheckRouting } from './token-check-routing';
import type { TokenConfirmationDelivery } from './token-confirmation';
import type { TokenCreator, TokenInput } from './token-inputs';
import { TransactionTokensService } from './transaction-tokens.service';

// The token rules of TransactionTokensService on in-memory repositories: which payment types, token
// types and usage limits a store accepts, who may send card data, what a checkout link's
// credentials may make, and in which order the refusals come. The statements behind create are the
// e2e suites' (test/transaction-tokens.e2e-spec.ts), on real Postgres and Redis.

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const LINK = '00000000-0000-4000-8000-000000000003';
const correlation = { correlationId: 'req-1' };
/** a merchant's server: secret-bearing, test mode */
const server: TokenCreator = { merchantId: MERCHANT, storeId: STORE, mode: 'test', hasSecret: true };
/** the hosted checkout's page: a public token */
const page: TokenCreator = { ...server, hasSecret: false };

const card = {
  cardholder: 'TARO YAMADA',
  card_number: '4242424242424242',
  exp_month: 12,
  exp_year: new Date().getUTCFullYear() + 3,
  cvv: '123',
};

/** A VALIDATION_ERROR naming these fields. */
const invalid = (errors: { field: string; reason: string }[]) => ({ code: 'VALIDATION_ERROR', errors });

function cardToken(overrides: Partial<TokenInput> = {}): TokenInput {
  return {
    payment_type: 'card',
    type: 'one_time',
    data: { card, billing: { ok: true, value: { city: 'Tokyo' } } },
    ...overrides,
  } as TokenInput;
}

function onlineToken(overrides: Partial<TokenInput> = {}): TokenInput {
  return {
    payment_type: 'online',
    type: 'one_time',
    data: { ok: true, value: { brand: 'pay_pay_online', call_method: 'http_post' } },
    ...overrides,
  } as TokenInput;
}

/** In-memory stand-ins for what TransactionTokensService reads and writes. */
class Fakes {
  settings: StoreTokenSettings | null = {
    pciDssCompliant: true,
    storeConfiguration: {},
    merchantConfiguration: {},
  };
  created: NewTransactionToken[] = [];
  vaultEntries: (NewCardVaultEntry | null)[] = [];
  keptCvvs = new Map<string, string>();
  discarded: string[] = [];
  delivered: { tokenId: string; to: string; code: string }[] = [];
  redisDown = false;

  readonly tokens: Partial<TransactionTokensRepository> = {
    create: (token: NewTransactionToken, vault: NewCardVaultEntry | null) => {
      this.created.push(token);
      this.vaultEntries.push(vault);
      return Promise.resolve({ ...token, active: true } as unknown as TransactionToken);
    },
    findInStore: () => Promise.resolve(null),
  };

  readonly stores: Partial<StoresRepository> = {
    findTokenSettings: () => Promise.resolve(this.settings),
  };

  readonly vault = {
    encrypt: () => ({
      keyId: 'k1',
      iv: new Uint8Array(12),
      ciphertext: new Uint8Array(16),
      fingerprint: 'f',
    }),
  } as unknown as CardVault;

  readonly pendingCvvs = {
    put: (id: string, cvv: string) => {
      if (this.redisDown) return Promise.reject(new Error('ECONNREFUSED'));
      this.keptCvvs.set(id, cvv);
      return Promise.resolve();
    },
    discard: (id: string) => {
      this.discarded.push(id);
      return Promise.resolve();
    },
    read: (id: string) => Promise.resolve(this.keptCvvs.get(id) ?? null),
  } as unknown as PendingCvvStore;

  readonly confirmations = {
    deliver: (message: { tokenId: string; to: string; code: string }) => {
      this.delivered.push(message);
      return Promise.resolve();
    },
  } as TokenConfirmationDelivery;

  readonly logger = { warn: () => undefined } as unknown as Logger;

  /** CVV authorization switches written (PATCH data.cvv_authorize) */
  readonly cvvSwitches: { id: string; next: unknown; requested: boolean }[] = [];
  readonly cvvAuthorizations = {
    update: (id: string, _read: unknown, next: unknown, context: { requested: boolean }) => {
      this.cvvSwitches.push({ id, next, requested: context.requested });
      return Promise.resolve(true);
    },
  };

  /** the store's card routes, by `<mode>:<currency>` (or `*`), to an account of a provider */
  readonly cardRoutes = new Map<string, { id: string; provider: 'simulator' | 'komoju' | 'stripe' }>();
  /** PROCESSOR_LIVE's limits (null: the simulator's protocol) */
  liveDefault: LiveProcessorLimits | null = null;
  readonly processorAccounts = {
    findCardRoute: (_store: string, mode: string, currency: string) =>
      Promise.resolve(this.cardRoutes.get(`${mode}:${currency}`) ?? this.cardRoutes.get(`${mode}:*`) ?? null),
  };

  /** the store's configuration layer (the merchant's stays empty) */
  configure(configuration: Prisma.JsonValue): void {
    if (this.settings) this.settings = { ...this.settings, storeConfiguration: configuration };
  }

  service(): TransactionTokensService {
    return new TransactionTokensService(
      this.tokens as TransactionTokensRepository,
      this.stores as StoresRepository,
      this.vault,
      this.pendingCvvs,
      this.confirmations,
      this.logger,
      this.cvvAuthorizations as unknown as TokenCvvAuthorizeRepository,
      new TokenCheckRouting(this.processorAccounts as never, this.liveDefault),
    );
  }
}

/** Apple Pay payment data as the gateway passes it on (snake_case keys; the values are not opened here). */
const applePayData = {
  payment_data: {
    version: 'EC_v1',
    data: 'ZW5jcnlwdGVk',
    signature: 'c2lnbmVk',
    header: { ephemeral_public_key: 'ZXBoZW1lcmFs', public_key_hash: 'aGFzaA==', transaction_id: 'ab12' },
  },
};

describe('TransactionTokensService: creating a token', () => {
  let fakes: Fakes;
  let tokens: TransactionTokensService;

  beforeEach(() => {
    fakes = new Fakes();
    tokens = fakes.service();
  });

  const create = (request: TokenInput, actor: TokenCreator = server) =>
    tokens.create(actor, request, correlation);

  it('keeps a card token’s summary and billing, seals its number and keeps its CVV for the first charge', async () => {
    const token = await create(cardToken({ metadata: { order: 7 } }));
    const [row] = fakes.created;
    expect(row).toMatchObject({
      merchantId: MERCHANT,
      storeId: STORE,
      mode: 'test',
      type: 'one_time',
      paymentType: 'card',
      metadata: { order: 7 },
      data: { card: { last_four: '4242', brand: 'visa' }, billing: { city: 'Tokyo' }, three_ds: null },
    });
    expect(JSON.stringify(row)).not.toContain(card.card_number);
    expect(fakes.vaultEntries[0]).not.toBeNull();
    expect(fakes.keptCvvs.get(token.id)).toBe('123');
  });

  describe('which token types and usage limits a store accepts', () => {
    it.each([
      [
        'a usage limit on a one-time token',
        { type: 'one_time', usage_limit: 'monthly' },
        'USAGE_LIMIT_NOT_APPLICABLE',
      ],
      [
        'a usage limit on a subscription token',
        { type: 'subscription', usage_limit: 'daily' },
        'USAGE_LIMIT_NOT_APPLICABLE',
      ],
    ] as const)('refuses %s', async (_, overrides, code) => {
      await expect(create(cardToken(overrides))).rejects.toMatchObject({
        code,
        errors: [{ field: 'usage_limit', reason: code }],
      });
      expect(fakes.created).toEqual([]);
    });

    it('recurring tokens as the store’s recurring_type says: none, bounded (with a limit), infinite', async () => {
      fakes.configure({ recurring_token_configuration: { recurring_type: 'none' } });
      await expect(create(cardToken({ type: 'recurring' }))).rejects.toMatchObject({
        code: 'RECURRING_TOKEN_NOT_ALLOWED',
        errors: [{ field: 'type', reason: 'RECURRING_TOKEN_NOT_ALLOWED' }],
      });
      fakes.configure({ recurring_token_configuration: { recurring_type: 'bounded' } });
      await expect(create(cardToken({ type: 'recurring' }))).rejects.toMatchObject({
        code: 'RECURRING_USAGE_LIMIT_REQUIRED',
      });
      await create(cardToken({ type: 'recurring', usage_limit: 'monthly' }));
      fakes.configure({});
      await create(cardToken({ type: 'recurring' }));
      expect(fakes.created.map((row) => [row.type, row.usageLimit])).toEqual([
        ['recurring', 'monthly'],
        ['recurring', null],
      ]);
    });

    it.each([
      ['qr_scan', { ok: true, value: { scanned_qr: '134567890123456789' } }],
      ['bank_transfer', { ok: true, value: { brand: 'aozora_bank' } }],
      [
        'konbini',
        {
          ok: true,
          value: {
            customer_name: 'Taro',
            convenience_store: 'lawson',
            phone_number: { country_code: '81', local_number: '0312345678' },
          },
        },
      ],
      ['qr_merchant', { ok: true, value: { brand: 'pay_pay_merchant' } }],
      ['apple_pay', { ok: true, value: applePayData }],
    ])('a %s token is one-time only', async (paymentType, data) => {
      const request = { payment_type: paymentType, data, type: 'recurring' } as TokenInput;
      await expect(create(request)).rejects.toMatchObject(
        invalid([{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }]),
      );
      await create({ ...request, type: 'one_time' });
      expect(fakes.created.map((row) => row.paymentType)).toEqual([paymentType]);
    });

    it('3-D Secure is for card tokens only', async () => {
      await expect(create(onlineToken({ three_ds: { mode: 'normal' } }))).rejects.toMatchObject(
        invalid([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]),
      );
      await create(
        cardToken({ three_ds: { mode: 'force', redirect_endpoint: 'https://shop.example/back' } }),
      );
      expect(fakes.created[0]?.data).toMatchObject({
        three_ds: { enabled: true, status: 'pending', mode: 'force', attempt: 1, processor_account_id: null },
      });
    });
  });

  describe('Apple Pay', () => {
    const applePayToken = {
      payment_type: 'apple_pay',
      type: 'one_time',
      data: { ok: true, value: applePayData },
    } as TokenInput;

    it('keeps the payment data as Apple made it (Apple’s field names), for the processor', async () => {
      await create(applePayToken);
      expect(fakes.created.map((row, i) => [row.data, fakes.vaultEntries[i]])).toEqual([
        [
          {
            payment_data: {
              version: 'EC_v1',
              data: 'ZW5jcnlwdGVk',
              signature: 'c2lnbmVk',
              header: {
                ephemeralPublicKey: 'ZXBoZW1lcmFs',
                publicKeyHash: 'aGFzaA==',
                transactionId: 'ab12',
              },
            },
          },
          null,
        ],
      ]);
    });

    it('is refused in live mode, which no processor adapter of Kessai’s takes it in', async () => {
      await expect(create(applePayToken, { ...server, mode: 'live' })).rejects.toMatchObject({
        code: 'NOT_SUPPORTED_BY_PROCESSOR',
        errors: [{ field: 'payment_type', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
      });
      expect(fakes.created).toEqual([]);
    });

    it('is a card payment to the store: switched off with card processing', async () => {
      fakes.configure({ card_configuration: { enabled: false } });
      await expect(create(applePayToken)).rejects.toMatchObject({ code: 'CARD_PROCESSING_DISABLED' });
    });
  });

  describe('Paidy', () => {
    const paidyData = {
      paidy_token: 'tok_abc',
      shipping_address: { line1: 'Roppongi 4-22-1', zip: '106-2004' },
    };
    const paidyToken = (type: string) =>
      ({ payment_type: 'paidy', type, data: { ok: true, value: paidyData } }) as TokenInput;

    it('keeps the consumer’s Paidy token and shipping address; a standing consent, recurring too', async () => {
      await create(paidyToken('one_time'));
      await create(paidyToken('recurring'));
      expect(fakes.created.map((row) => [row.type, row.data])).toEqual([
        ['one_time', { ...paidyData, phone_number: null }],
        ['recurring', { ...paidyData, phone_number: null }],
      ]);
    });

    it('is refused in live mode, and by a store that switched Paidy off', async () => {
      await expect(create(paidyToken('one_time'), { ...server, mode: 'live' })).rejects.toMatchObject({
        code: 'NOT_SUPPORTED_BY_PROCESSOR',
      });
      fakes.configure({ paidy_configuration: { enabled: false } });
      await expect(create(paidyToken('one_time'))).rejects.toMatchObject({
        code: 'PAIDY_PROCESSING_DISABLED',
      });
      expect(fakes.created).toEqual([]);
    });
  });

  describe('which payment types a store accepts', () => {
    it.each([
      ['card', cardToken(), { card_configuration: { enabled: false } }, 'CARD_PROCESSING_DISABLED'],
      ['online', onlineToken(), { online_configuration: { enabled: false } }, 'ONLINE_PROCESSING_DISABLED'],
    ] as const)(
      'refuses a %s token when the store switched the type off',
      async (_, request, configuration, code) => {
        fakes.configure(configuration);
        await expect(create(request)).rejects.toMatchObject({
          code,
          errors: [{ field: 'payment_type', reason: code }],
        });
      },
    );

    it('refuses a switched-off type before looking at its data', async () => {
      fakes.configure({ online_configuration: { enabled: false } });
      const badData = onlineToken({
        data: { ok: false, errors: [{ field: 'data.brand', reason: 'INVALID_FORMAT' }] },
      });
      await expect(create(badData)).rejects.toMatchObject({ code: 'ONLINE_PROCESSING_DISABLED' });
      fakes.configure({});
      await expect(create(badData)).rejects.toMatchObject(
        invalid([{ field: 'data.brand', reason: 'INVALID_FORMAT' }]),
      );
    });
  });

  describe('card data', () => {
    it('through a secret-bearing credential needs a PCI DSS compliant merchant; the hosted page’s public token may always send it', async () => {
      fakes.settings = { pciDssCompliant: false, storeConfiguration: {}, merchantConfiguration: {} };
      await expect(create(cardToken())).rejects.toMatchObject({
        code: 'DIRECT_CARD_TOKEN_CREATION_DISABLED',
      });
      await create(cardToken(), page);
      await create(onlineToken());
      expect(fakes.created.map((row) => row.paymentType)).toEqual(['card', 'online']);
    });

    it('reports the other fields’ errors and the card’s together', async () => {
      const request = cardToken({
        data: {
          card: { ...card, card_number: '4242424242424241' },
          billing: { ok: false, errors: [{ field: 'data.zip', reason: 'INVALID_FORMAT' }] },
        },
      });
      await expect(create(request)).rejects.toMatchObject(
        invalid([
          { field: 'data.zip', reason: 'INVALID_FORMAT' },
          { field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' },
        ]),
      );
    });

    it('refuses a test card in live mode', async () => {
      await expect(create(cardToken(), { ...server, mode: 'live' })).rejects.toMatchObject({
        code: 'NO_TEST_CARD_IN_LIVE_MODE',
      });
    });

    it('without Redis to keep the CVV in, refuses with 503 rather than store the token without it', async () => {
      fakes.redisDown = true;
      await expect(create(cardToken())).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(fakes.created).toEqual([]);
    });
  });

  describe('CVV authorization', () => {
    const withCvvAuthorize = (cvvAuthorize: { enabled: boolean; currency?: string }) =>
      cardToken({
        type: 'recurring',
        data: { card, billing: { ok: true, value: {} }, cvv_authorize: cvvAuthorize },
      });

    it('enabled: the token starts pending, attempt 1, in its currency (yen unless named)', async () => {
      await create(withCvvAuthorize({ enabled: true }));
      await create(withCvvAuthorize({ enabled: true, currency: 'USD' }));
      await create(withCvvAuthorize({ enabled: false }));
      expect(fakes.created.map((row) => (row.data as { cvv_authorize: unknown }).cvv_authorize)).toEqual([
        { enabled: true, status: 'pending', currency: 'JPY', attempt: 1, processor_account_id: null },
        { enabled: true, status: 'pending', currency: 'USD', attempt: 1, processor_account_id: null },
        { enabled: false, status: 'inactive' },
      ]);
    });

    const liveCard = { ...card, card_number: '4532015112830366' };
    const live: TokenCreator = { ...server, mode: 'live' };
    const checksOf = (row: NewTransactionToken | undefined) =>
      row?.data as { cvv_authorize: unknown; three_ds: unknown } | undefined;
    const refused = (field: string) => ({
      code: 'NOT_SUPPORTED_BY_PROCESSOR',
      errors: [{ field, reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });

    it('records the account of the store’s card route in the check’s currency, the currency’s before `*` (decision 0079)', async () => {
      fakes.cardRoutes.set('test:*', { id: 'acct_any', provider: 'simulator' });
      fakes.cardRoutes.set('test:USD', { id: 'acct_usd', provider: 'simulator' });
      tokens = fakes.service();
      await create(withCvvAuthorize({ enabled: true, currency: 'USD' }));
      await create(withCvvAuthorize({ enabled: true }));
      await create(cardToken({ three_ds: { mode: 'normal' } }));
      await create(cardToken({ three_ds: { mode: 'skip' } }));
      expect(fakes.created.map((row) => checksOf(row))).toEqual([
        expect.objectContaining({
          cvv_authorize: expect.objectContaining({ processor_account_id: 'acct_usd' }),
        }),
        expect.objectContaining({
          cvv_authorize: expect.objectContaining({ processor_account_id: 'acct_any' }),
        }),
        // 3-D Secure holds yen: the `*` route
        expect.objectContaining({ three_ds: expect.objectContaining({ processor_account_id: 'acct_any' }) }),
        // skipped: nothing is held, nothing routed
        expect.objectContaining({ three_ds: expect.objectContaining({ processor_account_id: null }) }),
      ]);
    });

    it('is refused when the account it would go to cannot do it: KOMOJU, Stripe (decision 0079)', async () => {
      for (const provider of ['komoju', 'stripe'] as const) {
        fakes.cardRoutes.set('test:*', { id: `acct_${provider}`, provider });
        tokens = fakes.service();
        await expect(create(withCvvAuthorize({ enabled: true }))).rejects.toMatchObject(
          refused('data.cvv_authorize'),
        );
        await expect(create(cardToken({ three_ds: { mode: 'normal' } }))).rejects.toMatchObject(
          refused('three_ds'),
        );
        // a token asking for neither is made as ever
        await create(cardToken({ three_ds: { mode: 'skip' } }));
      }
      expect(fakes.created).toHaveLength(2);
    });

    it('in live mode, goes by the route’s account, else the live default (PROCESSOR_LIVE)', async () => {
      const request = (threeDs?: { mode: string }) =>
        cardToken({
          type: 'recurring',
          data: { card: liveCard, billing: { ok: true, value: {} }, cvv_authorize: { enabled: true } },
          ...(threeDs ? { three_ds: threeDs } : {}),
        });
      // the simulator's protocol as the live default takes it
      await create(request({ mode: 'normal' }), live);
      expect(checksOf(fakes.created[0])).toMatchObject({
        cvv_authorize: { status: 'pending', processor_account_id: null },
        three_ds: { status: 'pending', processor_account_id: null },
      });
      // KOMOJU as the live default cannot
      fakes.liveDefault = processorLimitsOf('komoju');
      tokens = fakes.service();
      await expect(create(request(), live)).rejects.toMatchObject(refused('data.cvv_authorize'));
      // ...but a store routed to a simulator-protocol account of its own takes it there
      fakes.cardRoutes.set('live:*', { id: 'acct_live', provider: 'simulator' });
      await create(request(), live);
      expect(checksOf(fakes.created[1])).toMatchObject({
        cvv_authorize: { processor_account_id: 'acct_live' },
      });
      // and a store routed to Stripe refuses it whatever the default
      fakes.liveDefault = null;
      fakes.cardRoutes.set('live:*', { id: 'acct_stripe', provider: 'stripe' });
      tokens = fakes.service();
      await expect(create(request(), live)).rejects.toMatchObject(refused('data.cvv_authorize'));
      expect(fakes.created).toHaveLength(2);
    });

    const stored = {
      id: '00000000-0000-4000-8000-0000000000aa',
      merchantId: MERCHANT,
      storeId: STORE,
      mode: 'test',
      paymentType: 'card',
      type: 'recurring',
      active: true,
      data: { card: { brand: 'visa' }, cvv_authorize: { enabled: false, status: 'inactive' } },
    } as unknown as TransactionToken;

    it('enabled by PATCH needs a CVV: the one sent, or the token’s still pending', async () => {
      await expect(
        tokens.update(server, stored, { data: { cvv_authorize: { enabled: true } } }, correlation),
      ).rejects.toMatchObject(invalid([{ field: 'data.cvv', reason: 'CVV_REQUIRED' }]));
      expect(fakes.cvvSwitches).toEqual([]);
      fakes.keptCvvs.set(stored.id, '123');
      await tokens.update(server, stored, { data: { cvv_authorize: { enabled: true } } }, correlation);
      expect(fakes.cvvSwitches).toEqual([
        {
          id: stored.id,
          next: { enabled: true, status: 'pending', currency: 'JPY', attempt: 1, processor_account_id: null },
          requested: true,
        },
      ]);
    });

    it('enabled by PATCH is routed again, and refused before anything is written where it cannot go', async () => {
      fakes.keptCvvs.set(stored.id, '123');
      fakes.cardRoutes.set('test:JPY', { id: 'acct_komoju', provider: 'komoju' });
      tokens = fakes.service();
      await expect(
        tokens.update(server, stored, { data: { cvv_authorize: { enabled: true } } }, correlation),
      ).rejects.toMatchObject(refused('data.cvv_authorize'));
      expect(fakes.cvvSwitches).toEqual([]);
      fakes.cardRoutes.set('test:JPY', { id: 'acct_sim', provider: 'simulator' });
      await tokens.update(server, stored, { data: { cvv_authorize: { enabled: true } } }, correlation);
      expect(fakes.cvvSwitches[0]?.next).toMatchObject({
        status: 'pending',
        processor_account_id: 'acct_sim',
      });
    });
  });

  describe('a checkout link’s own credentials', () => {
    const link: TokenCreator = { ...page, checkoutLink: { id: LINK, tokenType: 'subscription' } };

    it('make a card, online, bank-transfer or konbini token of the link’s type, marked with the link', async () => {
      await create(cardToken({ type: 'subscription' }), link);
      expect(fakes.created[0]?.metadata).toEqual({ checkout_link_id: LINK });
      await expect(create(cardToken({ type: 'one_time' }), link)).rejects.toMatchObject(
        invalid([{ field: 'type', reason: 'INVALID_TOKEN_TYPE' }]),
      );
      // the link page pays by card, online, bank transfer or konbini; any other type is refused
      const qr = {
        payment_type: 'qr_scan',
        type: 'subscription',
        data: { ok: true, value: {} },
      } as TokenInput;
      await expect(create(qr, link)).rejects.toMatchObject(
        invalid([{ field: 'payment_type', reason: 'PAYMENT_TYPE_NOT_SUPPORTED' }]),
      );
    });
  });

  describe('use_confirmation', () => {
    it('needs an email, where the code goes (and nowhere else)', async () => {
      await expect(create(onlineToken({ use_confirmation: true }))).rejects.toBeInstanceOf(BusinessRuleError);
      const token = await create(onlineToken({ use_confirmation: true, email: 'taro@example.com' }));
      const [message] = fakes.delivered;
      expect(message).toMatchObject({
        tokenId: token.id,
        to: 'taro@example.com',
        code: expect.stringMatching(/^\d{6}$/),
      });
      expect(fakes.created[0]?.confirmationCodeHash).toMatch(/^sha256\$/);
      expect(JSON.stringify(fakes.created[0])).not.toContain(message?.code);
    });
  });
});
