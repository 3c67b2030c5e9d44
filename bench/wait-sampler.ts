/**
 * What the scratch database's backends were waiting for during a window: pg_stat_activity sampled
 * every `intervalMs` from a connection of its own, each active backend counted under its wait event
 * (`CPU` when it waited for nothing: running, or runnable), and the row locks waited for
 * (pg_locks not granted) by lock type and relation. A backend idle or idle in transaction is not
 * counted: it waits for its client, not for the server.
 */
import { Client } from 'pg';

export interface WaitProfile {
  samples: number;
  /** backend-samples per wait event (`Lock:transactionid`, `LWLock:WALWrite`, `IO:WALSync`, `CPU`…) */
  events: Map<string, number>;
  /** lock waits per lock type and relation (`tuple charges`, `transactionid`…) */
  locks: Map<string, number>;
}

export interface WaitSampler {
  stop(): Promise<WaitProfile>;
}

const SAMPLE = `
  SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS event, count(*)::int AS n
    FROM pg_stat_activity
   WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
   GROUP BY 1`;

const LOCKS = `
  SELECT l.locktype || coalesce(' ' || c.relname, '') AS lock, count(*)::int AS n
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    LEFT JOIN pg_class c ON c.oid = l.relation
   WHERE NOT l.granted AND a.datname = current_database()
   GROUP BY 1`;

export async function startWaitSampler(connectionString: string, intervalMs = 100): Promise<WaitSampler> {
  const db = new Client({ connectionString });
  await db.connect();
  const profile: WaitProfile = { samples: 0, events: new Map(), locks: new Map() };
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      const events = await db.query<{ event: string; n: number }>(SAMPLE);
      const locks = await db.query<{ lock: string; n: number }>(LOCKS);
      profile.samples++;
      for (const row of events.rows) add(profile.events, row.event, row.n);
      for (const row of locks.rows) add(profile.locks, row.lock, row.n);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await db.end();
      return profile;
    },
  };
}

/** The profile as one line: average active backends per wait event, then lock waits, largest first. */
export function waitLine(profile: WaitProfile): string {
  const average = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([key, n]) => `${key} ${(n / Math.max(profile.samples, 1)).toFixed(2)}`)
      .join(' · ');
  const active = [...profile.events.values()].reduce((a, b) => a + b, 0) / Math.max(profile.samples, 1);
  return (
    `${profile.samples} samples, ${active.toFixed(2)} active backends on average: ${average(profile.events) || 'none'}` +
    `; lock waits: ${average(profile.locks) || 'none'}`
  );
}
