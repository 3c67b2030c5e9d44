import { CHARGES_QUEUE, PROCESS_CHARGES_BATCH } from './charges.queue';
import { EVENT_CATALOGUE, eventRoutes, QUEUES, WEBHOOK_EVENT_TYPES, type EventType } from './events';
import { InvalidJobError, jobId, parseJob, sweepBucket } from './queues';
import { PROCESS_REFUNDS_BATCH, REFUNDS_CANCELS_QUEUE } from './refunds-cancels.queue';
import { SETTLE_PAYMENTS_BATCH, SUBSCRIPTIONS_QUEUE } from './subscriptions.queue';
import { DISPATCH_EVENTS_BATCH, WEBHOOK_DELIVERIES_QUEUE } from './webhooks.queue';

const CHARGE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
/** where every webhook event goes: webhook-service, batched per relay batch */
const DISPATCH = {
  queue: WEBHOOK_DELIVERIES_QUEUE,
  job: 'dispatch_events',
  batch: { maxEvents: DISPATCH_EVENTS_BATCH },
};

describe('queue contracts', () => {
  it('validates a job against its queue: name and payload', () => {
    expect(
      parseJob(CHARGES_QUEUE, 'capture_charge', { aggregateId: CHARGE_ID, eventType: 'capture_requested' }),
    ).toEqual({ name: 'capture_charge', data: { aggregateId: CHARGE_ID, eventType: 'capture_requested' } });
    expect(() => parseJob(CHARGES_QUEUE, 'capture_charge', { aggregateId: 'nope', eventType: 'x' })).toThrow(
      new InvalidJobError('charges', 'capture_charge', 'aggregateId: Invalid uuid'),
    );
    expect(() => parseJob(CHARGES_QUEUE, 'process_charges', { events: [] })).toThrow(InvalidJobError);
    expect(() => parseJob(CHARGES_QUEUE, 'toString', {})).toThrow(/unknown job name/);
  });

  it('bounds the retention of every queue', () => {
    for (const queue of QUEUES) {
      for (const keep of [queue.jobOptions.removeOnComplete, queue.jobOptions.removeOnFail]) {
        const count = 'count' in keep ? keep.count : undefined;
        const age = 'age' in keep ? keep.age : undefined;
        // a count caps the keys outright; an age alone caps them by the traffic of that window
        expect(Number.isFinite(count ?? age)).toBe(true);
        expect(count ?? 0).toBeLessThanOrEqual(100_000);
      }
    }
  });

  it('refuses a job id with a colon (BullMQ reserves it)', () => {
    expect(jobId('process_charge', CHARGE_ID, 'retry')).toBe(`process_charge.${CHARGE_ID}.retry`);
    expect(() => jobId('x', 'a:b')).toThrow(/must not contain ':'/);
  });

  it('gives a sweeper’s job ids one bucket per window', () => {
    expect(sweepBucket(60, 60_000)).toBe('1');
    expect(sweepBucket(60, 119_999)).toBe('1');
    expect(sweepBucket(60, 120_000)).toBe('2');
  });
});

describe('event catalogue', () => {
  it('routes every command to the queue that executes it, and only there', () => {
    const commands = (Object.keys(EVENT_CATALOGUE) as EventType[]).filter(
      (type) => EVENT_CATALOGUE[type].kind === 'command',
    );
    expect(commands.sort()).toEqual([
      'cancel_requested',
      'capture_requested',
      'charge_reconcile_requested',
      'charge_requested',
      'processor_notice_received',
      'refund_requested',
      'token_cvv_auth_requested',
      'token_three_ds_notice_received',
      'token_three_ds_requested',
      'webhook_replay_requested',
    ]);
    expect(eventRoutes('token_three_ds_requested')).toEqual([
      { queue: CHARGES_QUEUE, job: 'authenticate_token' },
    ]);
    expect(eventRoutes('token_three_ds_notice_received')).toEqual([
      { queue: CHARGES_QUEUE, job: 'authenticate_token' },
    ]);
    expect(eventRoutes('token_cvv_auth_requested')).toEqual([
      { queue: CHARGES_QUEUE, job: 'authorize_token_cvv' },
    ]);
    expect(eventRoutes('charge_requested')).toEqual([
      { queue: CHARGES_QUEUE, job: 'process_charges', batch: { maxEvents: PROCESS_CHARGES_BATCH } },
    ]);
    expect(eventRoutes('capture_requested')).toEqual([{ queue: CHARGES_QUEUE, job: 'capture_charge' }]);
    expect(eventRoutes('processor_notice_received')).toEqual([
      { queue: CHARGES_QUEUE, job: 'reconcile_charge' },
    ]);
    expect(eventRoutes('charge_reconcile_requested')).toEqual([
      { queue: CHARGES_QUEUE, job: 'reconcile_charge' },
    ]);
    expect(eventRoutes('refund_requested')).toEqual([
      { queue: REFUNDS_CANCELS_QUEUE, job: 'process_refunds', batch: { maxEvents: PROCESS_REFUNDS_BATCH } },
    ]);
    expect(eventRoutes('webhook_replay_requested')).toEqual([
      { queue: WEBHOOK_DELIVERIES_QUEUE, job: 'replay_delivery' },
    ]);
    expect(eventRoutes('cancel_requested')).toEqual([
      { queue: REFUNDS_CANCELS_QUEUE, job: 'process_cancel' },
    ]);
  });

  it('routes every webhook event to webhook-service’s dispatch_events, batched', () => {
    expect(WEBHOOK_EVENT_TYPES.sort()).toEqual([
      'bank_transfer_status_updated',
      'cancel_finished',
      'charge_finished',
      'charge_updated',
      'recurring_token_deleted',
      'refund_finished',
      'subscription_canceled',
      'subscription_completed',
      'subscription_created',
      'subscription_failure',
      'subscription_payment',
      'subscription_suspended',
      'token_created',
      'token_cvv_auth_updated',
      'token_replaced',
      'token_three_ds_updated',
      'token_updated',
      'transfer_created',
      'transfer_finalized',
      'transfer_updated',
    ]);
    expect(WEBHOOK_DELIVERIES_QUEUE.consumer).toBe('webhook-service');
    for (const type of WEBHOOK_EVENT_TYPES.filter((t) => t !== 'charge_finished' && t !== 'charge_updated'))
      expect(eventRoutes(type)).toEqual([DISPATCH]);
    // a finished (or authorized) charge also settles its scheduled payment, if it has one
    expect(eventRoutes('charge_updated')).toEqual(eventRoutes('charge_finished'));
    expect(eventRoutes('charge_finished')).toEqual([
      { queue: SUBSCRIPTIONS_QUEUE, job: 'settle_payments', batch: { maxEvents: SETTLE_PAYMENTS_BATCH } },
      DISPATCH,
    ]);
  });

  it('publishes nothing to a queue no service consumes', () => {
    const unconsumed = { ...WEBHOOK_DELIVERIES_QUEUE, consumer: null };
    expect(
      eventRoutes('password_reset_requested', {
        password_reset_requested: [{ queue: unconsumed, job: 'dispatch_event' }],
      }),
    ).toEqual([]);
  });

  it('routes internal events nowhere', () => {
    expect(eventRoutes('password_reset_requested')).toEqual([]);
    expect(eventRoutes('password_reset_completed')).toEqual([]);
    expect(eventRoutes('subscription_updated')).toEqual([]);
  });

  it('gives an unknown event type no route', () => {
    expect(eventRoutes('no_such_event')).toEqual([]);
    expect(eventRoutes('__proto__')).toEqual([]);
  });

  it('names only job schemas that exist on each route’s queue', () => {
    for (const definition of Object.values(EVENT_CATALOGUE)) {
      for (const route of 'routes' in definition ? definition.routes : []) {
        expect(Object.keys(route.queue.jobs)).toContain(route.job);
      }
    }
  });
});
