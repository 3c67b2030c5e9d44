import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PrismaService } from '@kessai/db';
import { RedisService } from '@kessai/redis';

/** Liveness and readiness of one process: 200 when Postgres and Redis both answer, else 503. */
@Controller()
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
  ) {}

  @Get('health')
  @HttpCode(200)
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [database, redis] = await Promise.all([this.prisma.isHealthy(), this.redis.isHealthy()]);
    const ok = database && redis;
    if (!ok) void reply.status(503);
    return {
      status: ok ? 'ok' : 'unavailable',
      checks: { database: database ? 'up' : 'down', redis: redis ? 'up' : 'down' },
    };
  }
}
