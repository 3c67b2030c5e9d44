// A console test clock write and its audit row share one transaction (docs/console.md, "The audit
// log"), as console-audit-atomic shows for the other writes: an audit row that cannot be inserted
// (an entry naming a user that does not exist breaks its foreign key) undoes the clock's creation
// move or deletion; a move refused (not later) writes no row; a good row stands with its write. Real
// Postgres, the use case the console and the gateway call.
import { randomUUID } from 'node:crypto';
import { ConsoleAuditRepository, TestClocksRepository, type AuditEntry } from '@kessai/db';
import { NotFoundError } from '@kessai/domain';
import { TestClocksService } from '@kessai/subscriptions';
import { auditEntryOf, createConsoleUser, useSuite, type SeededMerchant } from '@kessai/testing';

const suite = useSuite({ merchants: { shop: {} } });
let shop: SeededMerchant;
let clocks: TestClocksService;
let userId: string;
const FROZEN = new Date('2025-01-31T03:00:00.000Z');

beforeAll(async () => {
  shop = suite.merchants.shop;
  const { prisma } = suite.env;
  clocks = new TestClocksService(new TestClocksRepository(prisma, new ConsoleAuditRepository(prisma)));
  userId = await createConsoleUser(suite.env, shop, 'admin', 'clock-audit');
});

const auditBy = (user: string, action: string, targetId = ''): AuditEntry =>
  auditEntryOf(shop, user, action, { type: 'test_clock', id: targetId });

const owner = () => ({ merchantId: shop.merchant.id, mode: 'test' as const });
const clockCount = () => suite.env.prisma.testClock.count({ where: { merchantId: shop.merchant.id } });
const auditRows = (targetId: string) => suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId } });

it('a clock whose audit row fails is not created; with a good row both stand, the row naming the clock', async () => {
  const before = await clockCount();
  await expect(
    clocks.create(owner(), { frozen_time: FROZEN }, { audit: auditBy(randomUUID(), 'test_clock.create') }),
  ).rejects.toThrow();
  expect(await clockCount()).toBe(before);
  const clock = await clocks.create(
    owner(),
    { frozen_time: FROZEN },
    { audit: auditBy(userId, 'test_clock.create') },
  );
  expect(await clockCount()).toBe(before + 1);
  expect((await auditRows(clock.id)).map((row) => row.action)).toEqual(['test_clock.create']);
});

it('a move whose audit row fails does not move the clock; a refused move writes no row', async () => {
  const clock = await clocks.create(owner(), { frozen_time: FROZEN });
  const later = { frozen_time: new Date('2025-03-01T00:00:00.000Z') };
  await expect(
    clocks.advance(owner(), clock, later, { audit: auditBy(randomUUID(), 'test_clock.advance', clock.id) }),
  ).rejects.toThrow();
  const row = () => suite.env.prisma.testClock.findUniqueOrThrow({ where: { id: clock.id } });
  expect((await row()).frozenTime).toEqual(FROZEN);
  await expect(
    clocks.advance(
      owner(),
      clock,
      { frozen_time: FROZEN },
      { audit: auditBy(userId, 'test_clock.advance', clock.id) },
    ),
  ).rejects.toMatchObject({ errors: [{ field: 'frozen_time', reason: 'MUST_BE_FUTURE_TIME' }] });
  expect(await auditRows(clock.id)).toEqual([]);
  await clocks.advance(owner(), clock, later, { audit: auditBy(userId, 'test_clock.advance', clock.id) });
  expect((await row()).frozenTime).toEqual(later.frozen_time);
  expect((await auditRows(clock.id)).map((r) => r.action)).toEqual(['test_clock.advance']);
});

it('a deletion whose audit row fails deletes nothing; a good row stands with it, naming what it canceled', async () => {
  const clock = await clocks.create(owner(), { frozen_time: FROZEN });
  const row = () => suite.env.prisma.testClock.findUniqueOrThrow({ where: { id: clock.id } });
  const correlation = { correlationId: 'console-test-clock-audit' };
  await expect(
    clocks.delete(owner(), clock.id, correlation, {
      audit: auditBy(randomUUID(), 'test_clock.delete', clock.id),
    }),
  ).rejects.toThrow();
  expect((await row()).deletedOn).toBeNull();
  expect(await auditRows(clock.id)).toEqual([]);
  expect(
    await clocks.delete(owner(), clock.id, correlation, {
      audit: auditBy(userId, 'test_clock.delete', clock.id),
    }),
  ).toEqual({ canceled: 0 });
  expect((await row()).deletedOn).toBeInstanceOf(Date);
  expect((await auditRows(clock.id)).map((r) => [r.action, r.detail])).toEqual([
    ['test_clock.delete', { canceled: 0 }],
  ]);
  // deleted: a second deletion is not found and writes no row
  await expect(
    clocks.delete(owner(), clock.id, correlation, { audit: auditBy(userId, 'test_clock.delete', clock.id) }),
  ).rejects.toBeInstanceOf(NotFoundError);
  expect(await auditRows(clock.id)).toHaveLength(1);
});
