import type { Queue } from 'bullmq';
import { CHARGES_QUEUE, WEBHOOK_DELIVERIES_QUEUE } from '@kessai/contracts';
import { ContractQueue, type ContractJob } from './contract-queue';

const CHARGE_ID = '7f0c6c3e-3c1f-4a53-9d0e-2f8f8b9b6a01';
const DELIVERY_ID = '0d5a4f2e-9b8c-4e7d-a6f5-1c2b3a4d5e6f';

/** A BullMQ queue that records what it is given. */
function recordingQueue() {
  const added: { name: string; data: unknown; opts: unknown }[] = [];
  const queue = {
    name: 'recorded',
    add: (name: string, data: unknown, opts: unknown) => {
      added.push({ name, data, opts });
      return Promise.resolve({ id: 'x' });
    },
    addBulk: (jobs: { name: string; data: unknown; opts: unknown }[]) => {
      added.push(...jobs);
      return Promise.resolve(jobs.map(() => ({ id: 'x' })));
    },
  } as unknown as Queue;
  return { queue, added };
}

describe('ContractQueue', () => {
  it('passes a job of the contract through to BullMQ, with its options', async () => {
    const { queue, added } = recordingQueue();
    const charges = new ContractQueue(CHARGES_QUEUE, queue);
    await charges.add('process_charge', { aggregateId: CHARGE_ID, eventType: 'charge_sweep' }, { delay: 5 });
    await charges.addBulk([
      { name: 'capture_charge', data: { aggregateId: CHARGE_ID, eventType: 'charge_sweep' } },
      {
        name: 'process_charges',
        data: { events: [{ eventId: CHARGE_ID, eventType: 'charge_requested', aggregateId: CHARGE_ID }] },
        opts: { jobId: 'process_charges.1' },
      },
    ]);
    expect(added).toEqual([
      {
        name: 'process_charge',
        data: { aggregateId: CHARGE_ID, eventType: 'charge_sweep' },
        opts: { delay: 5 },
      },
      {
        name: 'capture_charge',
        data: { aggregateId: CHARGE_ID, eventType: 'charge_sweep' },
        opts: undefined,
      },
      {
        name: 'process_charges',
        data: { events: [{ eventId: CHARGE_ID, eventType: 'charge_requested', aggregateId: CHARGE_ID }] },
        opts: { jobId: 'process_charges.1' },
      },
    ]);
  });

  it('adds nothing for an empty bulk', async () => {
    const { queue, added } = recordingQueue();
    await expect(new ContractQueue(CHARGES_QUEUE, queue).addBulk([])).resolves.toEqual([]);
    expect(added).toEqual([]);
  });

  // The lines below are the test, checked by `npm run typecheck` (tsc fails on an expected error
  // that does not occur; jest transpiles without types): each must fail to compile, so that a
  // producer with a wrong job name or payload does not build. They are never called.
  it('refuses, at compile time, a job name or payload its contract does not have', () => {
    const { queue } = recordingQueue();
    const charges = new ContractQueue(CHARGES_QUEUE, queue);
    const webhooks = new ContractQueue(WEBHOOK_DELIVERIES_QUEUE, queue);
    const neverCalled = () => {
      // @ts-expect-error: no such job on the charges queue
      void charges.add('process_refund', { aggregateId: CHARGE_ID, eventType: 'x' });
      // @ts-expect-error: a job of another queue
      void charges.add('deliver_webhook', { deliveryId: DELIVERY_ID, attempt: 1 });
      // @ts-expect-error: the payload misses aggregateId
      void charges.add('process_charge', { eventType: 'charge_sweep' });
      // @ts-expect-error: attempt is a number
      void webhooks.add('deliver_webhook', { deliveryId: DELIVERY_ID, attempt: '1' });
      void webhooks.addBulk([
        // @ts-expect-error: the payload of deliver_webhook under the name deliver_webhooks
        { name: 'deliver_webhooks', data: { deliveryId: DELIVERY_ID, attempt: 1 } },
      ]);
      // @ts-expect-error: a free string is not a job name
      const job: ContractJob<typeof CHARGES_QUEUE> = { name: 'anything', data: {} };
      return job;
    };
    expect(typeof neverCalled).toBe('function');
  });
});
