// refund-cancel-service's safety net: a refund or cancel whose job was lost from Redis (here: one
// written with no command at all) is queued again once it has been pending
// REFUND_CANCEL_STALE_SECONDS, and ends. A real refund-cancel-service process, Postgres, Redis.
import {
  APPROVED_TEST_CARD,
  eventually,
  insertCardToken,
  insertPendingCharge,
  updateChargeRow,
  useSuite,
} from '@kessai/testing';

const suite = useSuite({
  variables: { REFUND_CANCEL_STALE_SECONDS: '1', REFUND_CANCEL_SWEEP_INTERVAL_MS: '200' },
});

describe('refund-cancel-service sweeper', () => {
  it('ends a refund and a cancel that were never queued, and leaves a fresh one alone', async () => {
    const shop = await suite.env.seedMerchant('sweeper');
    const tokenId = await insertCardToken(suite.env, shop, { cardNumber: APPROVED_TEST_CARD });
    // a successful charge the processor never knew (no processor reference): its refund fails at once
    const paid = await insertPendingCharge(suite.env, shop, tokenId, { amount: 1000 });
    await updateChargeRow(
      suite.env,
      paid,
      `status = 'successful', charged_amount = 1000, charged_currency = 'JPY', refund_reserved_amount = 600`,
    );
    const held = await insertPendingCharge(suite.env, shop, tokenId, { amount: 1000 });
    await updateChargeRow(suite.env, held, `status = 'authorized', pending_operation = 'cancel'`);
    const old = new Date(Date.now() - 60_000);
    const common = { merchantId: shop.merchant.id, storeId: shop.store.id, mode: 'test' as const };
    const stale = await suite.env.prisma.refund.create({
      data: { ...common, chargeId: paid, amount: 500n, currency: 'JPY', updatedOn: old, createdOn: old },
    });
    const fresh = await suite.env.prisma.refund.create({
      data: {
        ...common,
        chargeId: paid,
        amount: 100n,
        currency: 'JPY',
        updatedOn: new Date(Date.now() + 3_600_000),
      },
    });
    const cancel = await suite.env.prisma.cancel.create({
      data: { ...common, chargeId: held, updatedOn: old, createdOn: old },
    });

    await suite.startWorker('refund-cancel-service');
    await eventually(
      async () =>
        (await suite.env.prisma.refund.findUniqueOrThrow({ where: { id: stale.id } })).status !== 'pending' &&
        (await suite.env.prisma.cancel.findUniqueOrThrow({ where: { id: cancel.id } })).status !== 'pending',
      { timeoutMs: 30_000, what: 'the stale refund and cancel to end' },
    );
    expect(await suite.env.prisma.refund.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({
      status: 'failed',
      errorCode: 329,
    });
    expect(await suite.env.prisma.cancel.findUniqueOrThrow({ where: { id: cancel.id } })).toMatchObject({
      status: 'failed',
      errorCode: 312,
    });
    // the failed refund's 500 is free again; the charge left as it was otherwise
    expect(await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: paid } })).toMatchObject({
      status: 'successful',
      refundReservedAmount: 100n,
      refundedAmount: 0n,
    });
    expect(await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: held } })).toMatchObject({
      status: 'authorized',
      pendingOperation: null,
    });
    expect((await suite.env.prisma.refund.findUniqueOrThrow({ where: { id: fresh.id } })).status).toBe(
      'pending',
    );
    expect(
      await suite.env.prisma.outboxEvent.count({
        where: { aggregateId: stale.id, eventType: 'refund_finished' },
      }),
    ).toBe(1);
  }, 60_000);
});
