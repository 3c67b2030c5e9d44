import type {
  CapturesRepository,
  Charge,
  ChargeCreation,
  ChargeableToken,
  ChargeableTokenKey,
  ChargeListItem,
  ChargesRepository,
  CreateChargeResult,
  RequestCaptureResult,
  StoresRepository,
  TransactionTokensRepository,
} from '@kessai/db';
import {
  BusinessRuleError,
  DomainError,
  NotFoundError,
  ResourceLimitError,
  type PageRequest,
} from '@kessai/domain';
import type { StoreActor } from '../actor';
import type { ChargeInput } from './charge-inputs';
import { ChargesService, MAX_CAPTURE_DELAY_MS } from './charges.service';
import { liveProcessorLimitsOf, type LiveProcessorLimits } from './live-processor-limits';

// The acceptance and capture rules of ChargesService, on in-memory repositories: what a front end
// (the gateway, the console) gets for each token and request. The SQL behind createMany and
// requestCapture is the e2e suites' (test/charges-*.e2e-spec.ts), on real Postgres.

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const TOKEN = '00000000-0000-4000-8000-000000000003';
const actor: StoreActor = { merchantId: MERCHANT, storeId: STORE, mode: 'test' };
const correlation = { correlationId: 'req-1' };

function tokenOf(overrides: Partial<ChargeableToken> = {}): ChargeableToken {
  return {
    id: TOKEN,
    type: 'one_time',
    paymentType: 'card',
    mode: 'test',
    active: true,
    usedCount: 0,
    usageLimit: null,
    confirmed: null,
    cardBrand: 'visa',
    qrGateway: null,
    threeDs: null,
    cvvAuthorize: null,
    expirationPeriod: null,
    expirationTimeShift: null,
    storeConfiguration: {},
    merchantConfiguration: {},
    konbiniStore: null,
    onlineBrand: null,
    processorRoutes: [],
    ...overrides,
  };
}

function requestOf(overrides: Partial<ChargeInput> = {}): ChargeInput {
  return {
    transaction_token_id: TOKEN,
    amount: 1000,
    currency: 'JPY',
    capture: true,
    only_direct_currency: false,
    ...overrides,
  };
}

/** In-memory stand-ins for the repositories ChargesService reads and writes. */
class FakeRepositories {
  tokens = new Map<string, ChargeableToken>();
  created: ChargeCreation[] = [];
  /** what createMany answers for the next creation (the SQL's own decision in production) */
  creationOutcome: CreateChargeResult['outcome'] = 'created';
  captureRequests: { chargeId: string; amount: bigint; currency: string }[] = [];
  captureOutcome: RequestCaptureResult = { outcome: 'created' } as RequestCaptureResult;
  tokenReads = 0;

  readonly transactionTokens: Pick<TransactionTokensRepository, 'findChargeableMany' | 'findInStore'> = {
    findChargeableMany: (keys: readonly ChargeableTokenKey[]) => {
      this.tokenReads += keys.length;
      return Promise.resolve(keys.map((key) => this.tokens.get(key.id) ?? null));
    },
    findInStore: (_merchantId: string, _storeId: string, id: string) =>
      Promise.resolve(
        (this.tokens.get(id) ?? null) as Awaited<ReturnType<TransactionTokensRepository['findInStore']>>,
      ),
  };

  readonly charges: Pick<ChargesRepository, 'createMany'> = {
    createMany: (creations: ChargeCreation[]) => {
      this.created.push(...creations);
      return Promise.resolve(
        creations.map((creation): PromiseSettledResult<CreateChargeResult> => {
          const outcome = this.creationOutcome;
          const charge = { id: creation.charge.id, status: 'pending' } as Charge;
          const value: CreateChargeResult =
            outcome === 'created' || outcome === 'duplicate' ? { outcome, charge } : { outcome };
          return { status: 'fulfilled', value };
        }),
      );
    },
  };

  readonly captures: Pick<CapturesRepository, 'requestCapture'> = {
    requestCapture: (request) => {
      this.captureRequests.push(request);
      return Promise.resolve(this.captureOutcome);
    },
  };

  service(liveLimits: LiveProcessorLimits | null = null): ChargesService {
    return new ChargesService(
      this.charges as ChargesRepository,
      this.captures as CapturesRepository,
      this.transactionTokens as TransactionTokensRepository,
      {} as StoresRepository,
      liveLimits,
    );
  }
}

async function refusal(work: Promise<unknown>): Promise<{ code: string; errors: unknown[] }> {
  const error: unknown = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a domain error, got ${String(error)}`);
  return { code: error.code, errors: error.errors };
}

describe('ChargesService: accepting a charge', () => {
  let repositories: FakeRepositories;
  let charges: ChargesService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    charges = repositories.service();
  });

  it('creates a pending charge with the token, amount, fee terms and correlation id', async () => {
    repositories.tokens.set(TOKEN, tokenOf());
    const charge = await charges.create(actor, requestOf({ metadata: { order: 7 } }), correlation);

    expect(charge.status).toBe('pending');
    expect(repositories.created).toHaveLength(1);
    const [{ charge: row, options }] = repositories.created as [ChargeCreation];
    expect(row).toMatchObject({
      id: charge.id,
      merchantId: MERCHANT,
      storeId: STORE,
      transactionTokenId: TOKEN,
      mode: 'test',
      requestedAmount: 1000n,
      requestedCurrency: 'JPY',
      capture: true,
      captureAt: null,
      expiresOn: null,
      metadata: { order: 7 },
    });
    expect(options.correlationId).toBe('req-1');
  });

  it('takes the caller-chosen id (the hosted link page claims it first)', async () => {
    repositories.tokens.set(TOKEN, tokenOf());
    const id = '00000000-0000-4000-8000-0000000000aa';
    await charges.create(actor, requestOf(), correlation, id);
    expect(repositories.created[0]?.charge.id).toBe(id);
  });

  it('applies the duplicate rule to recurring card tokens only', async () => {
    repositories.tokens.set(TOKEN, tokenOf({ type: 'recurring' }));
    const recurring = await charges.prepareCreation(actor, requestOf(), correlation);
    expect(recurring.creation.options.duplicateRule).toMatchObject({ windowSeconds: 30 });
    expect(recurring.creation.options.duplicateRule?.error).toMatchObject({
      message: 'TOO_MANY_CHARGE_REQUESTS',
    });

    repositories.tokens.set(TOKEN, tokenOf({ type: 'one_time' }));
    const oneTime = await charges.prepareCreation(actor, requestOf(), correlation);
    expect(oneTime.creation.options.duplicateRule).toBeNull();

    repositories.tokens.set(TOKEN, tokenOf({ type: 'recurring', paymentType: 'online', cardBrand: null }));
    const online = await charges.prepareCreation(actor, requestOf(), correlation);
    expect(online.creation.options.duplicateRule).toBeNull();
  });

  it('takes the daily test-charge quota in test mode, none in live mode', async () => {
    repositories.tokens.set(TOKEN, tokenOf());
    const test = await charges.prepareCreation(actor, requestOf(), correlation);
    expect(test.creation.options.quota).toMatchObject({
      resource: 'test_charge',
      scope: { merchantId: MERCHANT, storeId: STORE },
    });

    repositories.tokens.set(TOKEN, tokenOf({ mode: 'live' }));
    const live = await charges.prepareCreation({ ...actor, mode: 'live' }, requestOf(), correlation);
    expect(live.creation.options.quota).toBeNull();
  });

  it('puts a batch’s initial_charge_metadata over the charge’s own', async () => {
    repositories.tokens.set(TOKEN, tokenOf());
    const prepared = await charges.prepareCreation(
      actor,
      requestOf({ metadata: { a: 1, b: 1 } }),
      correlation,
      { b: 2 },
    );
    expect(prepared.creation.charge.metadata).toEqual({ a: 1, b: 2 });
  });

  describe('token checks', () => {
    it.each([
      ['another mode', tokenOf({ mode: 'live' }), 'PROCESSING_MODE_MISMATCH', 'PROCESSING_MODE_MISMATCH'],
      [
        'a payment type not chargeable',
        tokenOf({ paymentType: 'cash' } as never),
        'PAYMENT_TYPE_NOT_ALLOWED',
        'PAYMENT_TYPE_NOT_ALLOWED',
      ],
      ['a subscription token', tokenOf({ type: 'subscription' }), 'INVALID_TOKEN_TYPE', 'INVALID_TOKEN_TYPE'],
      ['an inactive token', tokenOf({ active: false }), 'INVALID_TOKEN', 'NOT_ACTIVE'],
      [
        'a used one-time token',
        tokenOf({ active: false, usedCount: 1 }),
        'TRANSACTION_ALREADY_PROCESSED',
        'TRANSACTION_ALREADY_PROCESSED',
      ],
      [
        'an unconfirmed token',
        tokenOf({ confirmed: false }),
        'TOKEN_MUST_BE_CONFIRMED',
        'TOKEN_MUST_BE_CONFIRMED',
      ],
      [
        'a failed 3-D Secure',
        tokenOf({ threeDs: { enabled: true, status: 'failed' } }),
        'THREE_DS_COULD_NOT_BE_COMPLETED',
        'THREE_DS_COULD_NOT_BE_COMPLETED',
      ],
      [
        'a CVV authorization still pending',
        tokenOf({ cvvAuthorize: { enabled: true, status: 'pending' } }),
        'CVV_AUTHORIZATION_NOT_COMPLETED',
        'CVV_AUTHORIZATION_NOT_COMPLETED',
      ],
      [
        'a failed CVV authorization',
        tokenOf({ cvvAuthorize: { enabled: true, status: 'failed' } }),
        'CVV_AUTHORIZATION_NOT_COMPLETED',
        'CVV_AUTHORIZATION_NOT_COMPLETED',
      ],
    ])('refuses %s, naming transaction_token_id', async (_label, token, code, reason) => {
      repositories.tokens.set(TOKEN, token);
      const refused = await refusal(charges.create(actor, requestOf(), correlation));
      expect(refused).toEqual({ code, errors: [{ field: 'transaction_token_id', reason }] });
      expect(repositories.created).toHaveLength(0);
    });

    it('answers an unknown token as not found', async () => {
      await expect(charges.create(actor, requestOf(), correlation)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('refuses three_ds and capture=false on a payment that is not a card', async () => {
      repositories.tokens.set(TOKEN, tokenOf({ paymentType: 'online', cardBrand: null }));
      expect(
        await refusal(charges.create(actor, requestOf({ three_ds: { mode: 'normal' } }), correlation)),
      ).toEqual({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }],
      });
      expect(await refusal(charges.create(actor, requestOf({ capture: false }), correlation))).toEqual({
        code: 'CAPTURE_ONLY_FOR_CARD_PAYMENT',
        errors: [{ field: 'capture', reason: 'CAPTURE_ONLY_FOR_CARD_PAYMENT' }],
      });
    });
  });

  describe('capture_at', () => {
    const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000);

    it('refuses a time that is not ahead before reading the token', async () => {
      repositories.tokens.set(TOKEN, tokenOf());
      const refused = await refusal(
        charges.create(actor, requestOf({ capture: false, capture_at: inHours(-1) }), correlation),
      );
      expect(refused.errors).toEqual([{ field: 'capture_at', reason: 'INVALID_SCHEDULED_CAPTURE_DATE' }]);
      expect(repositories.tokenReads).toBe(0);
    });

    it('schedules a card capture only with capture=false and at most a week ahead', async () => {
      repositories.tokens.set(TOKEN, tokenOf());
      const at = inHours(24);
      const prepared = await charges.prepareCreation(
        actor,
        requestOf({ capture: false, capture_at: at }),
        correlation,
      );
      expect(prepared.creation.charge.captureAt).toEqual(at);

      const withCapture = await refusal(charges.create(actor, requestOf({ capture_at: at }), correlation));
      expect(withCapture.errors).toEqual([{ field: 'capture_at', reason: 'INVALID_SCHEDULED_CAPTURE_DATE' }]);

      const tooFar = new Date(Date.now() + MAX_CAPTURE_DELAY_MS + 60_000);
      const late = await refusal(
        charges.create(actor, requestOf({ capture: false, capture_at: tooFar }), correlation),
      );
      expect(late.errors).toEqual([{ field: 'capture_at', reason: 'INVALID_SCHEDULED_CAPTURE_DATE' }]);
    });

    it('is a bank transfer’s payment deadline, in yen only', async () => {
      repositories.tokens.set(TOKEN, tokenOf({ paymentType: 'bank_transfer', cardBrand: null }));
      const at = inHours(48);
      const prepared = await charges.prepareCreation(actor, requestOf({ capture_at: at }), correlation);
      expect(prepared.creation.charge.expiresOn).toEqual(at);

      const dollars = await refusal(charges.create(actor, requestOf({ currency: 'USD' }), correlation));
      expect(dollars.errors).toEqual([{ field: 'currency', reason: 'CURRENCY_NOT_SUPPORTED' }]);
    });

    it('gives a bank transfer without one the store’s deadline', async () => {
      repositories.tokens.set(TOKEN, tokenOf({ paymentType: 'konbini', cardBrand: null }));
      const prepared = await charges.prepareCreation(actor, requestOf(), correlation);
      expect(prepared.creation.charge.expiresOn).toBeInstanceOf(Date);
      expect(prepared.creation.charge.expiresOn!.getTime()).toBeGreaterThan(Date.now());
    });
  });

  describe('descriptor', () => {
    it('is carried for cards, refused for online payments unless ignore_descriptor_on_error', async () => {
      repositories.tokens.set(TOKEN, tokenOf());
      const card = await charges.prepareCreation(actor, requestOf({ descriptor: 'SHOP' }), correlation);
      expect(card.creation.charge.descriptor).toBe('SHOP');

      repositories.tokens.set(TOKEN, tokenOf({ paymentType: 'online', cardBrand: null }));
      const refused = await refusal(charges.create(actor, requestOf({ descriptor: 'SHOP' }), correlation));
      expect(refused).toEqual({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
      });
      const dropped = await charges.prepareCreation(
        actor,
        requestOf({ descriptor: 'SHOP', ignore_descriptor_on_error: true }),
        correlation,
      );
      expect(dropped.creation.charge.descriptor).toBeNull();
    });
  });

  describe('the write’s refusals', () => {
    it('answers an exhausted test quota as a resource limit', async () => {
      repositories.tokens.set(TOKEN, tokenOf());
      repositories.creationOutcome = 'quota_exhausted';
      await expect(charges.create(actor, requestOf(), correlation)).rejects.toBeInstanceOf(
        ResourceLimitError,
      );
    });

    it('says why a token lost its race: used by another charge meanwhile', async () => {
      repositories.tokens.set(TOKEN, tokenOf());
      repositories.creationOutcome = 'token_not_claimable';
      const creating = charges.create(actor, requestOf(), correlation);
      // the token the write found used, as a re-read sees it
      repositories.tokens.set(TOKEN, tokenOf({ active: false, usedCount: 1 }));
      expect(await refusal(creating)).toEqual({
        code: 'TRANSACTION_ALREADY_PROCESSED',
        errors: [{ field: 'transaction_token_id', reason: 'TRANSACTION_ALREADY_PROCESSED' }],
      });
    });
  });
});

describe('ChargesService: capture', () => {
  const authorized = {
    id: '00000000-0000-4000-8000-0000000000c1',
    status: 'authorized',
    captureStatus: null,
    requestedAmount: 1000n,
    requestedCurrency: 'JPY',
  } as unknown as Charge;
  let repositories: FakeRepositories;
  let charges: ChargesService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    charges = repositories.service();
  });

  it('asks for a partial capture of an authorized charge', async () => {
    await charges.capture(authorized, { amount: 600, currency: 'JPY' }, correlation);
    expect(repositories.captureRequests).toEqual([
      { chargeId: authorized.id, amount: 600n, currency: 'JPY', correlationId: 'req-1' },
    ]);
  });

  it.each([
    [
      'a charge not authorized',
      { ...authorized, status: 'successful' },
      { amount: 600, currency: 'JPY' },
      'INVALID_CHARGE_STATUS',
    ],
    [
      'a captured charge',
      { ...authorized, status: 'successful', captureStatus: 'captured' },
      { amount: 600, currency: 'JPY' },
      'ALREADY_CAPTURED',
    ],
    ['another currency', authorized, { amount: 600, currency: 'USD' }, 'CURRENCY_MUST_MATCH_CHARGE'],
    ['more than authorized', authorized, { amount: 1001, currency: 'JPY' }, 'CAPTURE_AMOUNT_TOO_LARGE'],
  ])('refuses %s without a write', async (_label, charge, input, code) => {
    const refused = await refusal(charges.capture(charge as Charge, input, correlation));
    expect(refused.code).toBe(code);
    expect(repositories.captureRequests).toHaveLength(0);
  });

  it.each([
    ['already_captured', 'ALREADY_CAPTURED'],
    ['cancel_pending', 'INVALID_CHARGE_STATUS'],
  ] as const)('turns the write’s %s into %s', async (outcome, code) => {
    repositories.captureOutcome = { outcome };
    const error: unknown = await charges
      .capture(authorized, { amount: 600, currency: 'JPY' }, correlation)
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(BusinessRuleError);
    expect((error as BusinessRuleError).code).toBe(code);
  });

  it('refuses a live partial capture on a processor that captures whole authorizations, for every front end', async () => {
    const komoju = repositories.service(liveProcessorLimitsOf({ PROCESSOR_LIVE: 'komoju' }));
    const live = { ...authorized, mode: 'live' } as Charge;
    expect(await refusal(komoju.capture(live, { amount: 600, currency: 'JPY' }, correlation))).toEqual({
      code: 'PARTIAL_CAPTURE_NOT_SUPPORTED',
      errors: [{ field: 'amount', reason: 'PARTIAL_CAPTURE_NOT_SUPPORTED' }],
    });
    expect(repositories.captureRequests).toHaveLength(0);
    // the whole authorization, and a test charge of any amount, are captured
    await komoju.capture(live, { amount: 1000, currency: 'JPY' }, correlation);
    await komoju.capture({ ...authorized, mode: 'test' }, { amount: 600, currency: 'JPY' }, correlation);
    expect(repositories.captureRequests.map((r) => r.amount)).toEqual([1000n, 600n]);
  });

  it('answers a charge gone meanwhile as not found', async () => {
    repositories.captureOutcome = { outcome: 'charge_not_found' };
    await expect(
      charges.capture(authorized, { amount: 600, currency: 'JPY' }, correlation),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('ChargesService: pages (the export’s keyset loop)', () => {
  const rows = Array.from({ length: 7 }, (_, i) => ({ id: `c${i}` }) as ChargeListItem);
  const reads: (string | null)[] = [];
  const charges = {
    // newest first: the rows after the cursor, one more than the page when there are more
    list: (_merchantId: string, _filters: unknown, page: PageRequest) => {
      reads.push(page.cursor);
      const start = page.cursor === null ? 0 : rows.findIndex((r) => r.id === page.cursor) + 1;
      return Promise.resolve(rows.slice(start, start + page.limit + 1));
    },
  } as unknown as ChargesRepository;
  const stores = {
    findVisible: (_scope: unknown, id: string) => Promise.resolve(id === STORE ? { id } : null),
  } as unknown as StoresRepository;
  const service = new ChargesService(
    charges,
    {} as CapturesRepository,
    {} as TransactionTokensRepository,
    stores,
  );
  const scope = { merchantId: MERCHANT, storeId: null };

  beforeEach(() => reads.splice(0));

  it('reads one page at a time, as the consumer asks, until the last', async () => {
    const pages = service.pages(scope, null, {}, 3);
    expect((await pages.next()).value).toEqual(rows.slice(0, 3));
    // nothing read ahead of the consumer
    expect(reads).toEqual([null]);
    const rest: ChargeListItem[][] = [];
    for await (const page of pages) rest.push(page);
    expect(rest).toEqual([rows.slice(3, 6), rows.slice(6)]);
    expect(reads).toEqual([null, 'c2', 'c5']);
  });

  it('refuses a store the scope cannot see before any row', async () => {
    const pages = service.pages(scope, '00000000-0000-4000-8000-00000000ffff', {}, 3);
    await expect(pages.next()).rejects.toBeInstanceOf(NotFoundError);
    expect(reads).toEqual([]);
    expect((await service.pages(scope, STORE, {}, 10).next()).value).toEqual(rows);
  });
});
