import { CHARGE_FINISHED, CHARGE_REQUESTED } from '@kessai/contracts';
import { chargeRequestedSql, chargeStatusSql } from './event-sql';
import { correlationOf, eventSql, eventSqlWhen, outboxInsertFrom } from './outbox-writer';

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim();

describe('the outbox writer', () => {
  it('writes one event per row of its source, every column from an expression over that row', () => {
    const sql = outboxInsertFrom('changed', {
      aggregateType: 'charge',
      aggregateId: 'id',
      merchantId: 'merchant_id',
      storeId: 'store_id',
      event: chargeStatusSql(CHARGE_FINISHED),
      correlationId: correlationOf('changed.cause_event_id'),
      where: 'moved',
    });
    expect(squash(sql)).toBe(
      squash(`INSERT INTO outbox_events
        (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
        SELECT merchant_id, store_id, 'charge', id, 'charge_finished',
               jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text),
               (SELECT correlation_id FROM outbox_events cause WHERE cause.id = changed.cause_event_id)
          FROM changed WHERE moved`),
    );
  });

  it('chooses the event per row when two may be written', () => {
    const either = eventSqlWhen('duplicate', chargeStatusSql(CHARGE_FINISHED), chargeRequestedSql());
    expect(either.eventTypes).toEqual([CHARGE_FINISHED, CHARGE_REQUESTED]);
    expect(squash(either.eventType)).toBe(
      "CASE WHEN duplicate THEN 'charge_finished' ELSE 'charge_requested' END",
    );
    expect(squash(either.payload)).toBe(
      squash(`CASE WHEN duplicate
        THEN jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text)
        ELSE jsonb_build_object('charge_id', id::text, 'store_id', store_id::text) END`),
    );
  });

  it('types each payload by its event: a missing or unknown key does not compile', () => {
    // @ts-expect-error store_id is missing
    eventSql(CHARGE_REQUESTED, { charge_id: 'id::text' });
    // @ts-expect-error status is no key of charge_requested's payload
    eventSql(CHARGE_REQUESTED, { charge_id: 'id::text', store_id: 'store_id::text', status: "'x'" });
    expect(
      eventSql(CHARGE_REQUESTED, { charge_id: 'id::text', store_id: 'store_id::text' }).eventTypes,
    ).toEqual([CHARGE_REQUESTED]);
  });
});
