/**
 * The floor of `npm run bench:charges`: the least an accepted charge can cost here. A bare Fastify
 * route (no Nest, no auth, no validation beyond JSON parsing, no Prisma) that does what accepting a
 * charge must do at minimum: one Redis call (INCR, standing in for the rate limiter), one INSERT
 * (pg, one statement) and one BullMQ enqueue, then answers 201 with the row's id.
 *
 *   DATABASE_URL=... REDIS_URL=... REDIS_PREFIX=... PORT=... node -r ts-node/register bench/floor-server.ts
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { bullPrefix, createRedisClient } from '../libs/redis/src/redis-client';
import { runFloor, serveFloor } from './floor-listen';

async function main() {
  const env = process.env;
  const prefix = env.REDIS_PREFIX ?? 'kessai_floor';
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE ?? 10) });
  await pool.query(
    `CREATE TABLE IF NOT EXISTS bench_floor (
       id uuid PRIMARY KEY, store_id text NOT NULL, amount bigint NOT NULL, currency char(3) NOT NULL,
       body jsonb NOT NULL, created_on timestamptz(3) NOT NULL DEFAULT now())`,
  );
  // on a Redis Cluster (REDIS_CLUSTER=true) as Kessai's processes are
  const location = {
    REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_CLUSTER: env.REDIS_CLUSTER === 'true',
  };
  const redis = createRedisClient(location);
  const queue = new Queue('bench-floor', {
    prefix: bullPrefix({ ...location, REDIS_PREFIX: prefix }),
    connection: location.REDIS_CLUSTER
      ? createRedisClient(location, { maxRetriesPerRequest: null })
      : { url: location.REDIS_URL },
    defaultJobOptions: { removeOnComplete: true },
  });

  const app = Fastify({ logger: false });
  app.post('/floor', async (request, reply) => {
    const body = request.body as { transaction_token_id?: string; amount?: number; currency?: string };
    const credential = String(request.headers.authorization ?? 'anonymous').slice(-16);
    await redis.incr(`${prefix}:floor:${credential}`);
    const id = randomUUID();
    await pool.query(
      'INSERT INTO bench_floor (id, store_id, amount, currency, body) VALUES ($1, $2, $3, $4, $5)',
      [id, credential, body.amount ?? 0, body.currency ?? 'JPY', JSON.stringify(body)],
    );
    await queue.add('floor', { id }, { jobId: id });
    return reply.code(201).send({ id, status: 'pending' });
  });
  await serveFloor(app, async () => {
    await queue.close();
    redis.disconnect();
    await pool.end();
  });
}

runFloor('floor server', main);
