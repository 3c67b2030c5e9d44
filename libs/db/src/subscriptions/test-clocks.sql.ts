import { defineStatement, pg } from '../sql/statement';
import { cancelSubscriptionsCtes, lockCancelableSubscriptionsSql } from './subscriptions.sql';

/** Test clocks (docs/subscriptions.md, "Test clocks"): a test-mode merchant's frozen "now". */

/**
 * Whether each clock is advancing: a payment on it is due at its time and not settled (pending
 * with next_try_at <= frozen_time), or has its charge in flight (processing). Served by
 * scheduled_payments_clock_due_idx.
 */
export const FIND_TEST_CLOCK_ADVANCING = defineStatement({
  name: 'test_clocks_find_advancing',
  params: { ids: pg.array(pg.uuid) },
  columns: { id: pg.text, advancing: pg.bool },
  text: (p) => `
    SELECT c.id::text AS id,
           EXISTS (SELECT 1 FROM scheduled_payments sp
                    WHERE sp.test_clock_id = c.id
                      AND (sp.status = 'processing'
                           OR (sp.status = 'pending' AND sp.next_try_at <= c.frozen_time))) AS advancing
      FROM test_clocks c
     WHERE c.id = ANY (${p.ids})`,
});

/**
 * Moves a clock forward to `to`: only later than its time, and only while it is not deleted.
 * `moved` false: `to` is not later (see `frozen_time`); no row: no such clock.
 */
export const ADVANCE_TEST_CLOCK = defineStatement({
  name: 'test_clocks_advance',
  params: { id: pg.uuid, merchantId: pg.uuid, to: pg.timestamptz },
  columns: { frozen_time: pg.timestamptz, moved: pg.bool },
  text: (p) => `
    WITH target AS (
      SELECT id, frozen_time FROM test_clocks
       WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND deleted_on IS NULL
    ),
    moved AS (
      UPDATE test_clocks c SET frozen_time = ${p.to}, updated_on = now()
        FROM target
       WHERE c.id = target.id AND c.frozen_time < ${p.to} AND c.deleted_on IS NULL
      RETURNING c.id
    )
    SELECT target.frozen_time, EXISTS (SELECT 1 FROM moved) AS moved FROM target`,
});

/**
 * The first statement of a clock's deletion: the clock FOR NO KEY UPDATE (the lock of the update to
 * come: a subscription insert's FOR SHARE waits for it, a foreign key's check does not) while it is
 * not deleted, then its subscriptions that are not final in id order (lockCancelableSubscriptionsSql);
 * no row when there is no such clock.
 */
export const LOCK_TEST_CLOCK_FOR_DELETION = defineStatement({
  name: 'test_clocks_lock_for_deletion',
  params: { id: pg.uuid, merchantId: pg.uuid },
  columns: { subscriptions: pg.int4 },
  text: (p) => `
    WITH clock AS MATERIALIZED (
      SELECT id FROM test_clocks
       WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND deleted_on IS NULL
         FOR NO KEY UPDATE
    ), locked AS MATERIALIZED (${lockCancelableSubscriptionsSql({
      from: 'clock',
      where: 's.test_clock_id = clock.id',
    })}
    )
    SELECT (SELECT count(*) FROM locked)::int4 AS subscriptions FROM clock`,
});

/**
 * Deletes a clock (deleted_on) and cancels its subscriptions that are not final, as DELETE of each
 * would (pending payments canceled, subscription_canceled events), in one statement, after
 * LOCK_TEST_CLOCK_FOR_DELETION in the same transaction.
 */
export const DELETE_TEST_CLOCK = defineStatement({
  name: 'test_clocks_delete',
  params: { id: pg.uuid, merchantId: pg.uuid, correlationId: pg.nullable(pg.text) },
  columns: { canceled: pg.int4 },
  text: (p) => `
    WITH clock AS (
      UPDATE test_clocks SET deleted_on = now(), updated_on = now()
       WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND deleted_on IS NULL
      RETURNING id
    ),${cancelSubscriptionsCtes(p, { from: 'clock', where: 's.test_clock_id = clock.id' })}
    SELECT (SELECT count(*) FROM moved)::int4 AS canceled FROM clock`,
});

/** A new clock of a merchant at `frozenTime`. */
export const CREATE_TEST_CLOCK = defineStatement({
  name: 'test_clocks_create',
  params: { id: pg.uuid, merchantId: pg.uuid, name: pg.nullable(pg.text), frozenTime: pg.timestamptz },
  columns: { created_on: pg.timestamptz },
  text: (p) => `
    INSERT INTO test_clocks (id, merchant_id, name, frozen_time, created_on, updated_on)
    VALUES (${p.id}, ${p.merchantId}, ${p.name}, ${p.frozenTime}, now(), now())
    RETURNING created_on`,
});
