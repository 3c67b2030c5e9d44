import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DatabaseHealth } from '@kessai/db';
import { RedisService } from '@kessai/redis';
import { PublicPage } from '../session/decorators';

/** Readiness: 200 when Postgres and Redis answer (sessions and the sign-in throttle need both). */
@Controller()
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly redis: RedisService,
  ) {}

  @Get('health')
  @PublicPage()
  async health(@Res() reply: FastifyReply) {
    const [postgres, redis] = await Promise.all([this.database.isHealthy(), this.redis.isHealthy()]);
    const ok = postgres && redis;
    return reply.status(ok ? 200 : 503).send({
      status: ok ? 'ok' : 'unavailable',
      postgres: postgres ? 'up' : 'down',
      redis: redis ? 'up' : 'down',
    });
  }
}
