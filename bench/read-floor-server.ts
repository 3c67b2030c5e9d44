/**
 * The floor of `npm run bench:reads`: the least a read of a charge can cost here. A bare Fastify
 * server (no Nest, no auth, no rate limiter, no presenter, no Prisma) doing one indexed SELECT per
 * request on the same database, through one pg pool:
 *
 *   GET /floor/charges/:id                  the charge's row by primary key, as JSON
 *   GET /floor/stores/:storeId/charges      the store's newest `limit` (10) rows, by the index the
 *                                           API's first page uses (store_id, created_on DESC, id DESC)
 *
 *   DATABASE_URL=... PORT=... node -r ts-node/register bench/read-floor-server.ts
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { runFloor, serveFloor } from './floor-listen';

async function main() {
  const env = process.env;
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE ?? 10) });
  const app = Fastify({ logger: false });
  app.get('/floor/charges/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const { rows } = await pool.query({
      name: 'floor_charge',
      text: 'SELECT * FROM charges WHERE id = $1',
      values: [id],
    });
    return rows.length === 0 ? reply.code(404).send({ status: 'error' }) : reply.send(rows[0]);
  });
  app.get('/floor/stores/:storeId/charges', async (request, reply) => {
    const { storeId } = request.params as { storeId: string };
    const limit = Number((request.query as { limit?: string }).limit ?? 10);
    const { rows } = await pool.query({
      name: 'floor_charges_page',
      text: 'SELECT * FROM charges WHERE store_id = $1 ORDER BY created_on DESC, id DESC LIMIT $2',
      values: [storeId, limit],
    });
    return reply.send({ items: rows, has_more: rows.length === limit });
  });
  await serveFloor(app, () => pool.end());
}

runFloor('read floor server', main);
