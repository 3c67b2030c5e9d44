import { SdkAnswerChecker } from './check';
import { sdkConformanceReport, type SdkException } from './report';
import { loadSdkSchemas } from './schemas';

/** A charge as univapay-node's ChargeItem types it: every required key, no null, enums in range. */
function charge(): Record<string, unknown> {
  return {
    id: 'charge-1',
    merchantId: 'merchant-1',
    storeId: 'store-1',
    mode: 'test',
    transactionTokenType: 'one_time',
    status: 'successful',
    createdOn: '2026-01-01T00:00:00.000Z',
    descriptor: 'KESSAI',
    onlyDirectCurrency: false,
    requestedAmount: 1000,
    requestedCurrency: 'JPY',
    requestedAmountFormatted: 1000,
    chargedAmount: 1000,
    chargedCurrency: 'JPY',
    chargedAmountFormatted: 1000,
  };
}

describe('the SDK answer checker (schemas generated from univapay-node’s declarations)', () => {
  const schemas = loadSdkSchemas();
  const checker = new SdkAnswerChecker(schemas);

  it('knows every method of the SDK, with the void ones as answering nothing', () => {
    expect(checker.typed('charges.create')).toBe(true);
    expect(checker.typed('merchants.me')).toBe(true);
    expect(schemas.methods['stores.delete']).toBeNull();
    expect(Object.keys(schemas.methods).length).toBeGreaterThan(80);
  });

  it('passes an answer that matches its type', () => {
    expect(checker.checkAnswer('charges.create', charge())).toEqual([]);
    expect(checker.checkAnswer('charges.list', { items: [], hasMore: false })).toEqual([]);
  });

  it('fails a missing required field', () => {
    const answer = charge();
    delete answer.descriptor;
    expect(checker.checkAnswer('charges.get', answer)).toEqual([{ path: '/descriptor', kind: 'missing' }]);
  });

  it('fails a null where the type has none, and a wrong JSON type', () => {
    const answer = { ...charge(), chargedAmount: null, feeAmountFormatted: 12 };
    expect(checker.checkAnswer('charges.poll', answer)).toEqual(
      expect.arrayContaining([
        { path: '/chargedAmount', kind: 'null' },
        { path: '/feeAmountFormatted', kind: 'type' },
      ]),
    );
  });

  it('fails a value outside the SDK’s enum, naming the value', () => {
    expect(checker.checkAnswer('charges.get', { ...charge(), status: 'settled' })).toEqual([
      { path: '/status', kind: 'enum', value: 'settled' },
    ]);
  });

  it('names list items by a wildcard index, and reports a break in an item once', () => {
    const items = [charge(), { ...charge(), chargedAmount: null }, { ...charge(), chargedAmount: null }];
    expect(checker.checkAnswer('charges.list', { items, hasMore: false })).toEqual(
      expect.arrayContaining([{ path: '/items/*/chargedAmount', kind: 'null' }]),
    );
    const violations = checker.checkAnswer('charges.list', { items, hasMore: false });
    expect(violations.filter((v) => v.path === '/items/*/chargedAmount')).toHaveLength(1);
  });

  it('judges an object against the member of `T | null` that is not null, naming the field inside', () => {
    const subscription = checker.checkAnswer('subscriptions.get', {
      scheduleSettings: { startOn: null, zoneId: 'Asia/Tokyo', retryInterval: null },
    });
    expect(subscription).toEqual(
      expect.arrayContaining([{ path: '/scheduleSettings/retryInterval', kind: 'null' }]),
    );
    expect(subscription).not.toContainEqual({ path: '/scheduleSettings', kind: 'type' });
  });

  it('fails an error code or a reason outside ResponseErrorCode, through the union of codes', () => {
    expect(
      checker.checkError({
        status: 'error',
        code: 'MADE_UP_CODE',
        httpCode: 400,
        errors: [{ field: 'amount', reason: 'MADE_UP_REASON' }],
      }),
    ).toEqual([
      { path: '/code', kind: 'enum', value: 'MADE_UP_CODE' },
      { path: '/errors/*/reason', kind: 'enum', value: 'MADE_UP_REASON' },
    ]);
    expect(
      checker.checkError({
        status: 'error',
        code: 'VALIDATION_ERROR',
        httpCode: 400,
        errors: [{ field: 'amount', reason: 'REQUIRED_VALUE' }],
      }),
    ).toEqual([]);
  });
});

describe('the SDK conformance report', () => {
  const exceptions: SdkException[] = [
    { method: 'charges.*', path: '/descriptor', kind: 'null', reason: 'listed' },
    { method: 'stores.get', path: '/name', kind: 'missing', reason: 'never met' },
  ];

  it('counts a method clean, clean but for listed exceptions, or broken by an unlisted violation', () => {
    const report = sdkConformanceReport(
      [
        { file: 'a', method: 'merchants.me', outcome: 'answer', violations: [] },
        {
          file: 'a',
          method: 'charges.get',
          outcome: 'answer',
          violations: [{ path: '/descriptor', kind: 'null' }],
        },
        {
          file: 'b',
          method: 'refunds.get',
          outcome: 'answer',
          violations: [{ path: '/descriptor', kind: 'null' }],
        },
      ],
      exceptions,
    );
    expect(report.methods).toEqual(['charges.get', 'merchants.me', 'refunds.get']);
    expect(report.typeClean).toEqual(['merchants.me']);
    expect(report.cleanButForExceptions).toEqual(['charges.get']);
    expect(report.unlisted).toEqual([
      { method: 'refunds.get', violation: { path: '/descriptor', kind: 'null' }, files: ['b'] },
    ]);
    expect(report.used).toEqual([0]);
    // an exception that no longer occurs is reported, so the list shrinks
    expect(report.unused).toEqual([1]);
  });
});
