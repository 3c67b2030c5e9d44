// A refund that ended `error` (the processor unreachable through every retry) is re-driven: the
// sweeper sends it to the processor again under its own key on a bounded, doubling schedule, and an
// operator may do so at once with `refund:retry` (issue 34). The money is never refunded twice (the
// processor executes each key once) and never stuck (the refund ends with its true outcome). Real
// charges (gateway in process, charge-service with its outbox relay), the simulator in process, two
// refund-cancel-service processes.
import { AdminError, runCli } from '@kessai/admin';
import { REFUND_FINISHED, REFUND_REQUESTED } from '@kessai/contracts';
import { HttpPaymentProcessor } from '@kessai/processor';
import { eventually, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const BASE_SECONDS = 60;
const MAX_REDRIVES = 3;

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  variables: {
    REFUND_REDRIVE_BASE_SECONDS: String(BASE_SECONDS),
    REFUND_REDRIVE_MAX: String(MAX_REDRIVES),
    REFUND_CANCEL_SWEEP_INTERVAL_MS: '200',
  },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'refund-redrive' } },
  workers: ['charge-service'],
});

interface PaidCharge {
  id: string;
  processorReference: string;
}

async function successfulCharge(amount: number): Promise<PaidCharge> {
  const { id } = (await suite.api.shop.charge(await suite.api.shop.cardToken(), { amount })) as {
    id: string;
  };
  const charge = await eventually(
    async () => {
      const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id } });
      return row.status === 'successful' ? row : null;
    },
    { timeoutMs: 30_000, what: `charge ${id} to succeed` },
  );
  return { id, processorReference: charge.processorReference! };
}

/**
 * A refund as refund-cancel-service leaves one whose processor never answered: `error`, its amount
 * still reserved on the charge, last changed `secondsAgo` ago, re-driven `redrives` times so far.
 */
async function erroredRefund(charge: PaidCharge, amount: number, secondsAgo: number, redrives = 0) {
  const changed = new Date(Date.now() - secondsAgo * 1000);
  const refund = await suite.env.prisma.refund.create({
    data: {
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
      chargeId: charge.id,
      mode: 'test',
      status: 'error',
      amount: BigInt(amount),
      currency: 'JPY',
      errorCode: 309,
      errorMessage: 'PROCESSING_ERROR',
      redrives,
      createdOn: changed,
      updatedOn: changed,
    },
  });
  await suite.env.prisma.$executeRaw`
    UPDATE charges SET refund_reserved_amount = refund_reserved_amount + ${amount} WHERE id = ${charge.id}::uuid`;
  return refund.id;
}

const refundOf = (id: string) => suite.env.prisma.refund.findUniqueOrThrow({ where: { id } });
const eventsOf = (id: string, eventType: string) =>
  suite.env.prisma.outboxEvent.count({ where: { aggregateId: id, eventType } });

async function cli(...argv: string[]): Promise<unknown> {
  return runCli(argv, { env: suite.env.variables, credentialsFile: '/dev/null', print: () => undefined });
}

describe('re-driving refunds in error', () => {
  it('re-drives the due ones once each, on its schedule, without refunding twice; the operator the rest', async () => {
    const charge = await successfulCharge(10_000);
    // executed at the processor, its answer lost: the processor must answer it again, not refund again
    const executed = await erroredRefund(charge, 1_000, BASE_SECONDS + 30);
    await new HttpPaymentProcessor({ baseUrl: suite.simulator.url }).refund({
      processorReference: charge.processorReference,
      idempotencyKey: executed,
      amount: 1_000,
      currency: 'JPY',
    });
    // never reached the processor
    const unreached = await erroredRefund(charge, 2_000, BASE_SECONDS + 30);
    // re-driven once already, 90 s ago: the next is due after 120 s
    const notYetDue = await erroredRefund(charge, 300, 90, 1);
    // re-driven as often as the sweeper may
    const exhausted = await erroredRefund(charge, 400, 24 * 3_600, MAX_REDRIVES);

    for (let i = 0; i < 2; i++) {
      await suite.startWorker('refund-cancel-service');
    }
    await eventually(
      async () =>
        (await refundOf(executed)).status === 'successful' &&
        (await refundOf(unreached)).status === 'successful',
      { timeoutMs: 60_000, what: 'the two due refunds to succeed' },
    );

    const stats = suite.simulator.stats();
    // each executed once at the processor; the executed one asked twice (before, and re-driven)
    expect(operationStats(stats, 'refund', executed)).toMatchObject({ requests: 2, executions: 1 });
    expect(operationStats(stats, 'refund', unreached)).toMatchObject({ requests: 1, executions: 1 });
    for (const id of [executed, unreached]) {
      expect(await refundOf(id)).toMatchObject({ id, redrives: 1, errorCode: null });
      // one re-drive each, though two sweepers ran: one command, one outcome
      expect({ id, requested: await eventsOf(id, REFUND_REQUESTED) }).toEqual({ id, requested: 1 });
      expect({ id, finished: await eventsOf(id, REFUND_FINISHED) }).toEqual({ id, finished: 1 });
    }
    // the sweeper's passes that took the due ones left these alone: not due yet, and past the bound
    expect(await refundOf(notYetDue)).toMatchObject({ status: 'error', redrives: 1 });
    expect(await refundOf(exhausted)).toMatchObject({ status: 'error', redrives: MAX_REDRIVES });
    expect(await eventsOf(notYetDue, REFUND_REQUESTED)).toBe(0);
    expect(await eventsOf(exhausted, REFUND_REQUESTED)).toBe(0);
    expect(
      (
        (await cli('refunds:errored', '--merchant', suite.merchants.shop.merchant.id)) as { id: string }[]
      ).map((r) => r.id),
    ).toEqual([exhausted, notYetDue]);

    // the operator re-drives the exhausted one now
    expect(await cli('refund:retry', '--id', exhausted)).toEqual({
      id: exhausted,
      status: 'pending',
      redrives: MAX_REDRIVES + 1,
    });
    await expect(cli('refund:retry', '--id', exhausted)).rejects.toThrow(AdminError);
    await eventually(async () => (await refundOf(exhausted)).status === 'successful', {
      timeoutMs: 30_000,
      what: 'the operator’s re-drive to succeed',
    });
    expect(operationStats(suite.simulator.stats(), 'refund', exhausted)).toMatchObject({ executions: 1 });

    // the charge: what succeeded refunded once, what is still in error still reserved
    expect(await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: charge.id } })).toMatchObject({
      refundedAmount: 1_000n + 2_000n + 400n,
      refundReservedAmount: 1_000n + 2_000n + 400n + 300n,
    });
  }, 180_000);
});
