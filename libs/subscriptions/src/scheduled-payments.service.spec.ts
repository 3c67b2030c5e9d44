import type {
  AccessScope,
  ScheduledPayment,
  StoresRepository,
  SubscriptionWithNextPayment,
  SubscriptionsRepository,
  TestClocksRepository,
} from '@kessai/db';
import { DomainError } from '@kessai/domain';
import { ScheduledPaymentsService } from './scheduled-payments.service';

// A merchant's change of a pending scheduled payment, on in-memory repositories: what the store's
// subscription_configuration allows, the due date's bounds, and the write's refusals.

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const scope: AccessScope = { merchantId: MERCHANT, storeId: STORE };
const correlation = { correlationId: 'req-1' };
const subscription = {
  id: '00000000-0000-4000-8000-000000000006',
  merchantId: MERCHANT,
  storeId: STORE,
  status: 'current',
  testClockId: null,
} as unknown as SubscriptionWithNextPayment;
const payment = {
  id: '00000000-0000-4000-8000-0000000000a1',
  dueAt: new Date('2099-03-05T00:00:00Z'),
  zoneId: 'Asia/Tokyo',
  amount: 1000n,
  status: 'pending',
} as unknown as ScheduledPayment;

function serviceWith(allowed: { dueDate: boolean; amount: boolean }, moved = true, status = 'pending') {
  const writes: { changed: string[] }[] = [];
  const subscriptions: Partial<SubscriptionsRepository> = {
    updatePayment: (_scope, _subscriptionId, _id, _changes, changed) => {
      writes.push({ changed });
      return Promise.resolve(
        (moved ? { moved: true } : { moved: false, paymentStatus: status }) as Awaited<
          ReturnType<SubscriptionsRepository['updatePayment']>
        >,
      );
    },
    findPayment: () => Promise.resolve(payment),
  };
  const stores: Partial<StoresRepository> = {
    findVisibleWithMerchant: () =>
      Promise.resolve({
        configuration: {
          subscription_configuration: {
            allow_merchant_due_date_patch: allowed.dueDate,
            allow_merchant_amount_patch: allowed.amount,
          },
        },
        merchant: { configuration: {} },
      } as unknown as Awaited<ReturnType<StoresRepository['findVisibleWithMerchant']>>),
  };
  const service = new ScheduledPaymentsService(
    subscriptions as SubscriptionsRepository,
    stores as StoresRepository,
    {} as TestClocksRepository,
  );
  return { service, writes };
}

async function reasons(work: Promise<unknown>) {
  const error: unknown = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a domain error, got ${String(error)}`);
  return { code: error.code, errors: error.errors };
}

describe('ScheduledPaymentsService: a merchant’s change of a pending payment', () => {
  it('changes the due date and the amount when the store allows them, naming what changed', async () => {
    const { service, writes } = serviceWith({ dueDate: true, amount: true });
    await service.update(scope, subscription, payment, { due_date: '2099-03-10', amount: 1500 }, correlation);
    expect(writes).toEqual([{ changed: ['next_payment.due_date', 'next_payment.amount'] }]);
  });

  it('refuses what the store does not allow, and writes nothing for no change', async () => {
    const { service, writes } = serviceWith({ dueDate: false, amount: false });
    expect(
      (await reasons(service.update(scope, subscription, payment, { amount: 1500 }, correlation))).errors,
    ).toEqual([{ field: 'amount', reason: 'FORBIDDEN_PARAMETER' }]);
    expect(
      (await reasons(service.update(scope, subscription, payment, { due_date: '2099-03-10' }, correlation)))
        .errors,
    ).toEqual([{ field: 'due_date', reason: 'FORBIDDEN_PARAMETER' }]);
    await service.update(scope, subscription, payment, { amount: 1000, due_date: '2099-03-05' }, correlation);
    expect(writes).toHaveLength(0);
  });

  it('refuses a due date before today, or one that does not exist', async () => {
    const { service } = serviceWith({ dueDate: true, amount: true });
    expect(
      (await reasons(service.update(scope, subscription, payment, { due_date: '2000-01-01' }, correlation)))
        .errors,
    ).toEqual([{ field: 'due_date', reason: 'NOT_WITHIN_BOUNDS' }]);
    expect(
      (await reasons(service.update(scope, subscription, payment, { due_date: '2099-02-30' }, correlation)))
        .errors,
    ).toEqual([{ field: 'due_date', reason: 'INVALID_FORMAT_DATE' }]);
  });

  it('says a payment in flight is processing', async () => {
    const { service } = serviceWith({ dueDate: true, amount: true }, false, 'processing');
    expect(
      (await reasons(service.update(scope, subscription, payment, { amount: 1500 }, correlation))).code,
    ).toBe('SUBSCRIPTION_PROCESSING');
  });
});
