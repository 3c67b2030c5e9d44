import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AuthenticationError } from '@kessai/domain';
import { metricsAccessAllowed } from '@kessai/observability';
import { Open } from '../auth/decorators';

/**
 * GET /metrics: the gateway's Prometheus metrics (docs/operations.md). No app token and no rate
 * limit, like the heartbeat: a scraper has neither, and a scrape reads memory only. Operators keep
 * it off the public network, or set METRICS_TOKEN to require `Authorization: Bearer <token>`.
 */
@Controller()
export class MetricsController {
  constructor(
    private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @Open()
  @RouteConfig({ rateLimit: false })
  async metrics(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (!metricsAccessAllowed(authorization, this.config.METRICS_TOKEN))
      throw new AuthenticationError('INVALID_CREDENTIALS');
    void reply.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
