import { Controller, Get, Headers, Inject, Res, UnauthorizedException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { metricsAccessAllowed } from '@kessai/observability';

/**
 * GET /metrics on a worker's health port: the process's Prometheus metrics (docs/operations.md).
 * Open like /health unless METRICS_TOKEN is set; the queue depth and outbox backlog are read at
 * scrape time, cached a few seconds.
 */
@Controller()
export class MetricsController {
  constructor(
    private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  async metrics(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (!metricsAccessAllowed(authorization, this.config.METRICS_TOKEN)) throw new UnauthorizedException();
    void reply.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
