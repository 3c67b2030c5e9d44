import { CHARGES_QUEUE, PROCESS_CHARGES_BATCH } from './charges.queue';
import { EVENT_CATALOGUE, eventRoutes, QUEUES, WEBHOOK_EVENT_TYPES, type EventType } from './events';
import { InvalidJobError, jobId, parseJob } from './queues';
import { WEBHOOK_EVENTS_QUEUE } from './webhooks.queue';

const CHARGE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

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
});

describe('event catalogue', () => {
  it('routes every command to the queue that executes it, and only there', () => {
    const commands = (Object.keys(EVENT_CATALOGUE) as EventType[]).filter(
      (type) => EVENT_CATALOGUE[type].kind === 'command',
    );
    expect(commands.sort()).toEqual(['capture_requested', 'charge_requested', 'processor_notice_received']);
    expect(eventRoutes('charge_requested')).toEqual([
      { queue: CHARGES_QUEUE, job: 'process_charges', batch: { maxEvents: PROCESS_CHARGES_BATCH } },
    ]);
    expect(eventRoutes('capture_requested')).toEqual([{ queue: CHARGES_QUEUE, job: 'capture_charge' }]);
    expect(eventRoutes('processor_notice_received')).toEqual([
      { queue: CHARGES_QUEUE, job: 'reconcile_charge' },
    ]);
  });

  it('publishes nothing to a queue no service consumes: webhook events are held until webhook-service consumes them', () => {
    expect(WEBHOOK_EVENT_TYPES.sort()).toEqual([
      'charge_finished',
      'charge_updated',
      'token_created',
      'token_updated',
    ]);
    expect(WEBHOOK_EVENTS_QUEUE.consumer).toBeNull();
    for (const type of WEBHOOK_EVENT_TYPES) expect(eventRoutes(type)).toEqual([]);
    const consumed = { ...WEBHOOK_EVENTS_QUEUE, consumer: 'webhook-service' };
    expect(
      eventRoutes('token_created', { token_created: [{ queue: consumed, job: 'dispatch_event' }] }),
    ).toEqual([{ queue: consumed, job: 'dispatch_event' }]);
  });

  it('routes internal events nowhere', () => {
    expect(eventRoutes('password_reset_requested')).toEqual([]);
    expect(eventRoutes('password_reset_completed')).toEqual([]);
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
