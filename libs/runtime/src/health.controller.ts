import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DatabaseHealth } from '@kessai/db';
import { RedisService } from '@kessai/redis';
import { WorkerRegistry } from './worker-registry';

/**
 * Liveness and readiness of one worker process: 200 when Postgres and Redis answer and every queue
 * worker of the process runs (`workers: none` for a service that consumes no queue yet), else 503.
 */
@Controller()
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly redis: RedisService,
    private readonly registry: WorkerRegistry,
  ) {}

  @Get('health')
  @HttpCode(200)
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [database, redis] = await Promise.all([this.database.isHealthy(), this.redis.isHealthy()]);
    const workers = this.registry.workers.length === 0 ? 'none' : this.registry.ready() ? 'up' : 'down';
    const ok = database && redis && workers !== 'down';
    if (!ok) void reply.status(503);
    return {
      status: ok ? 'ok' : 'unavailable',
      checks: { database: database ? 'up' : 'down', redis: redis ? 'up' : 'down', workers },
    };
  }
}
