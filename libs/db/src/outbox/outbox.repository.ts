import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import type { OutboxEventType } from './outbox-events';
import { appendOutboxEvent, type NewOutboxEvent } from './outbox-writer';
import { PrismaService } from '../prisma.service';
import { OUTBOX_BACKLOG } from './outbox.sql';

export type { NewOutboxEvent };

/** `OutboxRepository.backlog` counts unpublished events up to this many. */
export const OUTBOX_BACKLOG_COUNT_CAP = 100_000;

/** An event of one aggregate as a timeline shows it, with the webhook deliveries it caused. */
export interface AggregateEvent {
  id: string;
  aggregateType: string;
  aggregateId: string;
  eventType: string;
  createdOn: Date;
  deliveries: { id: string; status: string; attempts: number; updatedOn: Date }[];
}

/** The relay's backlog: unpublished events (up to OUTBOX_BACKLOG_COUNT_CAP), and the oldest one's age. */
export interface OutboxBacklog {
  unpublished: number;
  /** 0 when nothing is unpublished */
  oldestAgeSeconds: number;
}

/** An event taken for publishing: what its jobs carry. */
export interface UnpublishedEvent {
  id: string;
  eventType: string;
  aggregateId: string;
  /** the request (or cause event's correlation) the event carries on, when it has one */
  correlationId: string | null;
}

/**
 * Takes and marks a batch of at most $1 events, run with TAKE_BATCH_SETTINGS. The unpublished ones
 * are found through a partial index (outbox_events_unpublished_idx: sequence WHERE published_on IS
 * NULL) read in order, which marks the entries that published rows left behind (their old
 * versions) as it passes them, so that later scans skip them. A bitmap scan, which the planner
 * prefers when it expects few rows, marks nothing and reads every such row again on every poll
 * until a vacuum: it is turned off for this transaction.
 */
export const OUTBOX_TAKE_BATCH_SETTINGS = { enable_bitmapscan: 'off' } as const;
export const OUTBOX_TAKE_BATCH = {
  name: 'outbox_relay_take_batch',
  text: `UPDATE outbox_events SET published_on = now()
          WHERE id IN (SELECT id FROM outbox_events
                        WHERE published_on IS NULL
                        ORDER BY sequence
                        LIMIT $1
                        FOR UPDATE SKIP LOCKED)
          RETURNING id::text AS id, event_type, aggregate_id::text AS aggregate_id, sequence::text AS sequence,
                    correlation_id`,
} as const;

/**
 * `outbox_events`. Events are written by the one outbox writer (outbox/outbox-writer.ts): statements
 * embed its fragment, cold paths append here, in the transaction that makes the state change, so that
 * the change and its event commit (or roll back) together; the relay (libs/runtime) publishes them
 * later through `takeBatch`.
 */
@Injectable()
export class OutboxRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The events of the merchant's aggregates `aggregateIds` (a charge and its refunds: a payment's
   * timeline), oldest first, at most `limit`, with their webhook deliveries.
   */
  async ofAggregates(merchantId: string, aggregateIds: string[], limit: number): Promise<AggregateEvent[]> {
    const rows = await this.prisma.outboxEvent.findMany({
      where: { merchantId, aggregateId: { in: aggregateIds } },
      orderBy: [{ sequence: 'asc' }],
      take: limit,
      select: {
        id: true,
        aggregateType: true,
        aggregateId: true,
        eventType: true,
        createdOn: true,
        deliveries: {
          select: { id: true, status: true, updatedOn: true, _count: { select: { attempts: true } } },
        },
      },
    });
    return rows.map(({ deliveries, ...event }) => ({
      ...event,
      deliveries: deliveries.map(({ _count, ...delivery }) => ({ ...delivery, attempts: _count.attempts })),
    }));
  }

  /**
   * Appends one event; resolves to its id. Call it with the transaction that makes the state change,
   * so that the change and its event commit (or roll back) together; publishing happens later.
   */
  append<E extends OutboxEventType>(
    event: NewOutboxEvent<E>,
    db?: Prisma.TransactionClient,
  ): Promise<string> {
    return appendOutboxEvent(this.prisma, event, db);
  }

  /**
   * Takes at most `limit` unpublished events, oldest first, marks them published and hands them to
   * `publish`; the mark commits only once `publish` has resolved, so a process that dies (or a
   * `publish` that throws) before the COMMIT leaves them unpublished for the next taker. Rows are
   * chosen FOR UPDATE SKIP LOCKED: two relays never hold the same event. Plain pg on Prisma's pool:
   * an interactive Prisma transaction costs several times the SQL itself. Resolves to how many
   * events were taken.
   */
  takeBatch(limit: number, publish: (events: UnpublishedEvent[]) => Promise<void>): Promise<number> {
    return this.prisma.inTransaction(
      async (tx) => {
        const { rows } = await tx.query<TakenRow>({ ...OUTBOX_TAKE_BATCH, values: [limit] });
        if (rows.length === 0) return 0;
        rows.sort((a, b) => (BigInt(a.sequence) < BigInt(b.sequence) ? -1 : 1));
        await publish(
          rows.map((row) => ({
            id: row.id,
            eventType: row.event_type,
            aggregateId: row.aggregate_id,
            correlationId: row.correlation_id,
          })),
        );
        return rows.length;
      },
      { settings: OUTBOX_TAKE_BATCH_SETTINGS },
    );
  }

  /** The relay's backlog, for the metrics: one statement on the partial index of unpublished events. */
  async backlog(): Promise<OutboxBacklog> {
    const [row] = await this.prisma.run(OUTBOX_BACKLOG, { cap: OUTBOX_BACKLOG_COUNT_CAP });
    return { unpublished: row.unpublished, oldestAgeSeconds: row.oldest_age_seconds };
  }
}

interface TakenRow {
  id: string;
  event_type: string;
  aggregate_id: string;
  sequence: string;
  correlation_id: string | null;
}
