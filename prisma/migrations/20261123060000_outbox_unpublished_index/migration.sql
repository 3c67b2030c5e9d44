-- The relay looks for unpublished events in sequence order. The index on (published_on, sequence) kept
-- an entry for every event, and once an event was published the entry of its old row version stayed
-- among the NULLs until a vacuum. The planner chose a bitmap scan, which never skips such entries,
-- so every relay poll visited every event published since the last vacuum. A partial index holds
-- only unpublished events, and its ordered index scan marks entries of dead versions as it passes.
-- schema.prisma cannot declare a partial index and the Prisma schema diff (scripts/check-migrations.sh)
-- ignores one, so it lives here only (a comment in schema.prisma points here).
DROP INDEX "outbox_events_published_on_sequence_idx";
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events" ("sequence") WHERE "published_on" IS NULL;
