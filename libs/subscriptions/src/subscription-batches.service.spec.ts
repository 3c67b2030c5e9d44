import {
  BatchClockGoneError,
  type NewSubscription,
  type SubscriptionBatchesRepository,
  type SubscriptionBatchRow,
} from '@kessai/db';
import { BusinessRuleError, NotFoundError } from '@kessai/domain';
import type { ChargeInput, ChargesService, Checked, StoreActor } from '@kessai/payments';
import { SubscriptionBatchesService, subscriptionBatchStatus } from './subscription-batches.service';
import type { SubscriptionInput } from './subscription-inputs';
import type { SubscriptionsService } from './subscriptions.service';

// A batch's order of refusals and its status, on stand-ins for the single-subscription and
// single-charge rules (SubscriptionsService.prepare, ChargesService.prepareCreation: their own
// specs) and the repository (its one transaction: test/subscription-batches.e2e-spec.ts).

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const INACTIVE_TOKEN = '00000000-0000-4000-8000-00000000dead';
const actor: StoreActor = { merchantId: MERCHANT, storeId: STORE, mode: 'test' };
const correlation = { correlationId: 'req-1' };

const subscription = (tokenId = '00000000-0000-4000-8000-000000000003'): Checked<SubscriptionInput> => ({
  ok: true,
  value: { transaction_token_id: tokenId, amount: 1000, currency: 'JPY', period: 'monthly' },
});
const refusedAmount: Checked<SubscriptionInput> = {
  ok: false,
  errors: [{ field: 'amount', reason: 'CHARGE_AMOUNT_TOO_LOW' }],
};
const charge: Checked<ChargeInput> = {
  ok: true,
  value: {
    transaction_token_id: INACTIVE_TOKEN,
    amount: 500,
    currency: 'JPY',
    capture: true,
    only_direct_currency: false,
  },
};

/** what a single subscription's or charge's rules answer for the token (their own specs say when) */
const refusedToken = () =>
  new BusinessRuleError('INVALID_TOKEN', [{ field: 'transaction_token_id', reason: 'NOT_ACTIVE' }]);

function batchRow(overrides: Partial<SubscriptionBatchRow> = {}): SubscriptionBatchRow {
  return {
    id: 'b',
    subscription_ids: ['s1'],
    charge_id: null,
    charge_status: null,
    unverified: 0,
    unconfirmed: 0,
    ...overrides,
  };
}

class Fakes {
  prepared: string[] = [];
  written: { subscriptions: NewSubscription[] }[] = [];
  clockGone = false;

  readonly subscriptions = {
    prepare: (_actor: StoreActor, input: SubscriptionInput) => {
      if (input.transaction_token_id === INACTIVE_TOKEN) return Promise.reject(refusedToken());
      this.prepared.push(input.transaction_token_id);
      return Promise.resolve({ id: `s${this.prepared.length}` } as NewSubscription);
    },
  } as unknown as SubscriptionsService;

  readonly charges = {
    prepareCreation: (_actor: StoreActor, input: ChargeInput) =>
      input.transaction_token_id === INACTIVE_TOKEN
        ? Promise.reject(refusedToken())
        : Promise.resolve({ creation: {}, token: {} }),
  } as unknown as ChargesService;

  readonly batches: Partial<SubscriptionBatchesRepository> = {
    create: (batch) => {
      if (this.clockGone) return Promise.reject(new BatchClockGoneError('test_clock'));
      this.written.push(batch);
      return Promise.resolve(null);
    },
    find: () => Promise.resolve(batchRow()),
  };

  service(): SubscriptionBatchesService {
    return new SubscriptionBatchesService(
      this.batches as SubscriptionBatchesRepository,
      this.subscriptions,
      this.charges,
    );
  }
}

describe('SubscriptionBatchesService', () => {
  let fakes: Fakes;
  let batches: SubscriptionBatchesService;

  beforeEach(() => {
    fakes = new Fakes();
    batches = fakes.service();
  });

  it('checks the items one at a time: the first refused is answered, named by its place', async () => {
    // the second is refused by a rule before the third's own shape is looked at
    const request = {
      subscriptions: [subscription(), subscription(INACTIVE_TOKEN), refusedAmount],
      charge: null,
    };
    await expect(batches.create(actor, request, correlation)).rejects.toMatchObject({
      code: 'INVALID_TOKEN',
      errors: [{ field: 'subscriptions[1].transaction_token_id', reason: 'NOT_ACTIVE' }],
    });
    const shapeFirst = {
      subscriptions: [subscription(), refusedAmount, subscription(INACTIVE_TOKEN)],
      charge: null,
    };
    await expect(batches.create(actor, shapeFirst, correlation)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'subscriptions[1].amount', reason: 'CHARGE_AMOUNT_TOO_LOW' }],
    });
    expect(fakes.written).toEqual([]);
  });

  it('checks the charge after every subscription, under charges[0]', async () => {
    await expect(
      batches.create(actor, { subscriptions: [subscription(), subscription()], charge }, correlation),
    ).rejects.toMatchObject({ errors: [{ field: 'charges[0].transaction_token_id', reason: 'NOT_ACTIVE' }] });
    expect(fakes.prepared).toHaveLength(2);
  });

  it('writes the subscriptions prepared, in order, and answers the batch as read back', async () => {
    const batch = await batches.create(
      actor,
      { subscriptions: [subscription(), subscription()], charge: null },
      correlation,
    );
    expect(fakes.written[0]?.subscriptions.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(batch.id).toBe('b');
  });

  it('answers a test clock deleted meanwhile as not found', async () => {
    fakes.clockGone = true;
    await expect(
      batches.create(actor, { subscriptions: [subscription()], charge: null }, correlation),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', resource: 'test_clock' });
  });

  it('reads a batch the scope may see; a malformed id is not found', async () => {
    await expect(batches.find(actor, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    expect((await batches.find(actor, '00000000-0000-4000-8000-0000000000b1')).id).toBe('b');
  });

  it.each([
    [{}, 'successful'],
    [{ unverified: 1 }, 'awaiting'],
    [{ charge_id: 'c', charge_status: 'pending' }, 'awaiting'],
    [{ unconfirmed: 1, unverified: 1 }, 'failed'],
    [{ charge_id: 'c', charge_status: 'canceled' }, 'failed'],
    [{ charge_id: 'c', charge_status: 'successful' }, 'successful'],
  ] as const)('a batch of %j is %s', (parts, status) => {
    expect(subscriptionBatchStatus(batchRow(parts as Partial<SubscriptionBatchRow>))).toBe(status);
  });
});
