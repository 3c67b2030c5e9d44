import type { PrismaService, SqlDb } from '../prisma.service';
import { defineStatement, pg, sqlLiteral } from '../sql/statement';
import type { OutboxAggregateType, OutboxEventPayloads, OutboxEventType } from './outbox-events';

/**
 * The one writer of outbox_events. A state change and its event are written in the same transaction
 * (STYLE.md habit 5), so the writer comes in two forms:
 * - `outboxInsertFrom`: an `INSERT INTO outbox_events … SELECT … FROM <source>` fragment that a
 *   statement embeds as a CTE, writing one event per row of another CTE (the rows it inserted or
 *   moved): the hot paths stay one statement;
 * - `appendOutboxEvent`: one event from a payload object, for cold paths, on the pool or inside the
 *   caller's transaction.
 * Either way the payload is typed by its event type (OutboxEventPayloads); the SQL payload of each
 * event type is built in one place, event-sql.ts.
 */

/** One SQL expression per key of the payload P (over the source's columns or the statement's parameters). */
export type PayloadSql<P> = { readonly [K in keyof P]-?: string };

/** An event as an INSERT … SELECT writes it for each source row: its type and its jsonb payload, as SQL. */
export interface OutboxEventSql<E extends OutboxEventType> {
  readonly eventType: string;
  readonly payload: string;
  /** the event types it may write (for the type checker and the reader) */
  readonly eventTypes: readonly E[];
}

function jsonbObject(fields: Readonly<Record<string, string>>): string {
  return `jsonb_build_object(${Object.entries(fields)
    .map(([key, value]) => `${sqlLiteral(key)}, ${value}`)
    .join(', ')})`;
}

/** Event `eventType` (a constant) with its payload. */
export function eventSql<E extends OutboxEventType>(
  eventType: E,
  payload: PayloadSql<OutboxEventPayloads[E]>,
): OutboxEventSql<E> {
  return { eventType: sqlLiteral(eventType), payload: jsonbObject(payload), eventTypes: [eventType] };
}

/**
 * An event whose type each row names (`eventTypeSql`, e.g. a column the domain's decision filled),
 * one of `eventTypes`, all with the same payload shape.
 */
export function eventSqlPerRow<E extends OutboxEventType>(
  eventTypeSql: string,
  eventTypes: readonly E[],
  payload: PayloadSql<OutboxEventPayloads[E]>,
): OutboxEventSql<E> {
  return { eventType: eventTypeSql, payload: jsonbObject(payload), eventTypes };
}

/** `whenTrue` for the rows where `condition` holds, `otherwise` for the others. */
export function eventSqlWhen<A extends OutboxEventType, B extends OutboxEventType>(
  condition: string,
  whenTrue: OutboxEventSql<A>,
  otherwise: OutboxEventSql<B>,
): OutboxEventSql<A | B> {
  return {
    eventType: `CASE WHEN ${condition} THEN ${whenTrue.eventType} ELSE ${otherwise.eventType} END`,
    payload: `CASE WHEN ${condition} THEN ${whenTrue.payload} ELSE ${otherwise.payload} END`,
    eventTypes: [...whenTrue.eventTypes, ...otherwise.eventTypes],
  };
}

/** Where the event columns come from: SQL expressions over the source's rows. */
export interface OutboxInsertFrom<E extends OutboxEventType> {
  /** a constant, or (the cold insert) an expression */
  aggregateType: OutboxAggregateType | { sql: string };
  aggregateId: string;
  merchantId: string;
  storeId: string;
  event: OutboxEventSql<E>;
  /** the request (or the cause event's correlation) the event carries on */
  correlationId: string;
  /** rows of the source that get no event */
  where?: string;
}

/** `INSERT INTO outbox_events … SELECT … FROM source`: one event per (selected) row of `source`. */
export function outboxInsertFrom<E extends OutboxEventType>(
  source: string,
  spec: OutboxInsertFrom<E>,
): string {
  const aggregateType =
    typeof spec.aggregateType === 'string' ? sqlLiteral(spec.aggregateType) : spec.aggregateType.sql;
  return `INSERT INTO outbox_events
         (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
  SELECT ${spec.merchantId}, ${spec.storeId}, ${aggregateType}, ${spec.aggregateId},
         ${spec.event.eventType}, ${spec.event.payload}, ${spec.correlationId}
    FROM ${source}${spec.where ? `\n   WHERE ${spec.where}` : ''}`;
}

/** The correlation id of the outbox event `causeEventId` (an expression yielding its id), or null. */
export function correlationOf(causeEventId: string): string {
  return `(SELECT correlation_id FROM outbox_events cause WHERE cause.id = ${causeEventId})`;
}

/** An event of a cold path, its payload typed by its event type. */
export interface NewOutboxEvent<E extends OutboxEventType = OutboxEventType> {
  merchantId: string;
  storeId?: string | null;
  aggregateType: OutboxAggregateType;
  aggregateId: string;
  eventType: E;
  payload: OutboxEventPayloads[E];
  correlationId?: string | null;
}

export const INSERT_OUTBOX_EVENT = defineStatement({
  name: 'outbox_insert_event',
  params: {
    merchantId: pg.uuid,
    storeId: pg.nullable(pg.uuid),
    aggregateType: pg.text,
    aggregateId: pg.uuid,
    eventType: pg.text,
    payload: pg.jsonb<unknown>(),
    correlationId: pg.nullable(pg.text),
  },
  columns: { id: pg.text },
  // the fragment over one row made of the parameters: the columns are written in one place
  text: (p) => `
    ${outboxInsertFrom('(SELECT 1) AS one', {
      aggregateType: { sql: p.aggregateType },
      aggregateId: p.aggregateId,
      merchantId: p.merchantId,
      storeId: p.storeId,
      event: { eventType: p.eventType, payload: p.payload, eventTypes: [] },
      correlationId: p.correlationId,
    })}
    RETURNING id::text AS id`,
});

/**
 * Appends one event; resolves to its id. Pass the transaction (`db`) that makes the state change,
 * so that the change and its event commit or roll back together.
 */
export async function appendOutboxEvent<E extends OutboxEventType>(
  prisma: PrismaService,
  event: NewOutboxEvent<E>,
  db?: SqlDb,
): Promise<string> {
  const rows = await prisma.run(
    INSERT_OUTBOX_EVENT,
    {
      merchantId: event.merchantId,
      storeId: event.storeId ?? null,
      aggregateType: event.aggregateType,
      aggregateId: event.aggregateId,
      eventType: event.eventType,
      payload: event.payload,
      correlationId: event.correlationId ?? null,
    },
    { db },
  );
  return rows[0].id;
}
