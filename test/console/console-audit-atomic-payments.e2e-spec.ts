// The payments' and subscriptions' console writes and their audit rows share one transaction
// (docs/console.md, "The audit log"): a refund, a capture, a cancel, a suspend, an unsuspend and a
// cancel of a subscription whose audit row cannot be inserted (it names a user that does not exist:
// the row's foreign key breaks inside the write's transaction) leave no trace: no refund, capture or
// cancel row, no command in the outbox, the charge and the subscription as they were. With a good
// row both stand. The use cases are the console's own (its Nest container), against real Postgres.
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@kessai/config';
import type { AuditEntry } from '@kessai/db';
import { CancelsService, ChargesService, RefundsService } from '@kessai/payments';
import { SubscriptionsService } from '@kessai/subscriptions';
import {
  auditEntryOf,
  createConsoleUser,
  insertCardToken,
  insertPendingCharge,
  insertSubscription,
  outboxEventsOf,
  updateChargeRow,
  useSuite,
  type SeededMerchant,
} from '@kessai/testing';
import { createConsoleApp } from '../../apps/console/src/app.factory';

const suite = useSuite({ merchants: { shop: { pci: true } } });
let shop: SeededMerchant;
let app: NestFastifyApplication;
let userId: string;
const correlation = { correlationId: 'audit-atomic' };

beforeAll(async () => {
  shop = suite.merchants.shop;
  app = await createConsoleApp(loadConfig({ ...suite.env.variables }, 'console'));
  await app.init();
  suite.cleanup(() => app.close());
  userId = await createConsoleUser(suite.env, shop, 'admin', 'atomic');
});

/** An audit entry of a console session; `user` a user that exists, or not. */
const auditBy = (user: string, action: string, targetId: string = randomUUID()): AuditEntry =>
  auditEntryOf(shop, user, action, { type: 'test', id: targetId });
const broken = (action: string) => ({ audit: auditBy(randomUUID(), action) });
const scope = () => ({ merchantId: shop.merchant.id, storeId: shop.store.id });

/** A test charge of the shop in the state `set` (SQL) puts it in. */
async function chargeIn(set: string, capture = true): Promise<string> {
  const token = await insertCardToken(suite.env, shop, { cardNumber: '4242424242424242' });
  const id = await insertPendingCharge(suite.env, shop, token, { amount: 5000, capture, requested: false });
  await updateChargeRow(suite.env, id, set);
  return id;
}
const successful = () => chargeIn("status = 'successful', charged_amount = 5000, charged_currency = 'JPY'");
const authorized = () =>
  chargeIn(
    `status = 'authorized', capture_status = 'authorized', processor_reference = 'sim-${randomUUID()}'`,
    false,
  );

/** What a write on a charge could leave: its row, its refunds, cancels and capture, its events. */
async function traceOf(chargeId: string) {
  const prisma = suite.env.prisma;
  return {
    charge: await prisma.charge.findUniqueOrThrow({ where: { id: chargeId } }),
    refunds: await prisma.refund.count({ where: { chargeId } }),
    cancels: await prisma.cancel.count({ where: { chargeId } }),
    captures: await prisma.capture.count({ where: { chargeId } }),
    events: (await outboxEventsOf(suite.env, chargeId)).length,
  };
}

const auditRows = (targetId: string) => suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId } });

it('a refund whose audit row fails is not made; with a good row both stand', async () => {
  const refunds = app.get(RefundsService);
  const chargeId = await successful();
  const before = await traceOf(chargeId);
  const input = { amount: 1000, currency: 'JPY', reason: null, message: null };
  await expect(
    refunds.create(scope(), chargeId, input, correlation, { id: randomUUID(), ...broken('refund.create') }),
  ).rejects.toThrow();
  expect(await traceOf(chargeId)).toEqual(before);

  const id = randomUUID();
  await refunds.create(scope(), chargeId, input, correlation, {
    id,
    audit: auditBy(userId, 'refund.create', id),
  });
  expect((await traceOf(chargeId)).refunds).toBe(1);
  expect((await auditRows(id)).map((row) => row.action)).toEqual(['refund.create']);
});

it('a capture whose audit row fails is not requested; with a good row both stand', async () => {
  const charges = app.get(ChargesService);
  const chargeId = await authorized();
  const before = await traceOf(chargeId);
  const charge = await charges.find(scope(), chargeId);
  await expect(
    charges.capture(charge, { amount: 3000, currency: 'JPY' }, correlation, broken('charge.capture')),
  ).rejects.toThrow();
  expect(await traceOf(chargeId)).toEqual(before);

  await charges.capture(charge, { amount: 3000, currency: 'JPY' }, correlation, {
    audit: auditBy(userId, 'charge.capture', chargeId),
  });
  const capture = await suite.env.prisma.capture.findUniqueOrThrow({ where: { chargeId } });
  // the capture's row names it, the write's own id
  expect((await auditRows(capture.id)).map((row) => row.action)).toEqual(['charge.capture']);
});

it('a cancel whose audit row fails is not requested; with a good row both stand', async () => {
  const cancels = app.get(CancelsService);
  const chargeId = await authorized();
  const before = await traceOf(chargeId);
  await expect(
    cancels.create(scope(), chargeId, {}, correlation, { id: randomUUID(), ...broken('charge.cancel') }),
  ).rejects.toThrow();
  expect(await traceOf(chargeId)).toEqual(before);

  const id = randomUUID();
  await cancels.create(scope(), chargeId, {}, correlation, {
    id,
    audit: auditBy(userId, 'charge.cancel', id),
  });
  expect((await traceOf(chargeId)).cancels).toBe(1);
  expect((await auditRows(id)).map((row) => row.action)).toEqual(['charge.cancel']);
});

it('a subscription’s suspend, unsuspend and cancel whose audit row fails leave it as it was', async () => {
  const subscriptions = app.get(SubscriptionsService);
  const token = await insertCardToken(suite.env, shop, { cardNumber: '4242424242424242', type: 'recurring' });
  const id = await insertSubscription(suite.env, shop, token, { amount: 1000 });
  await suite.env.prisma.subscription.update({ where: { id }, data: { status: 'current' } });
  const state = async () => ({
    subscription: await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id } }),
    events: (await outboxEventsOf(suite.env, id)).length,
  });

  const current = await state();
  await expect(
    subscriptions.suspend(scope(), id, {}, correlation, broken('subscription.suspend')),
  ).rejects.toThrow();
  await expect(
    subscriptions.cancel(scope(), id, correlation, broken('subscription.cancel')),
  ).rejects.toThrow();
  expect(await state()).toEqual(current);

  const audit = (action: string) => ({ audit: auditBy(userId, action, id) });
  await subscriptions.suspend(scope(), id, {}, correlation, audit('subscription.suspend'));
  const suspended = await state();
  expect(suspended.subscription.status).toBe('suspended');
  await expect(
    subscriptions.unsuspend(scope(), id, correlation, broken('subscription.unsuspend')),
  ).rejects.toThrow();
  expect(await state()).toEqual(suspended);

  await subscriptions.unsuspend(scope(), id, correlation, audit('subscription.unsuspend'));
  await subscriptions.cancel(scope(), id, correlation, audit('subscription.cancel'));
  expect((await state()).subscription.status).toBe('canceled');
  expect((await auditRows(id)).map((row) => row.action).sort()).toEqual([
    'subscription.cancel',
    'subscription.suspend',
    'subscription.unsuspend',
  ]);
});
