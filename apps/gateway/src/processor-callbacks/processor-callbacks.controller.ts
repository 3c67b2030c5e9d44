import { Controller, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { PROCESSOR_SIGNATURE_HEADER } from '@kessai/processor';
import { Open } from '../auth/decorators';
import type { RawJsonRouteConfig } from '../http/json-body-parser';
import { ProcessorCallbacksService } from './processor-callbacks.service';

/**
 * POST /processor/callbacks: where the processor posts its signed notices. No app token: the
 * X-Processor-Signature over the raw body is the credential. The app's JSON parser keeps the bytes
 * only (`rawBody`, `rawJsonBody` below): nothing of a notice is parsed before its signature is
 * verified. Not rate limited: the processor's retries must not be refused for volume, and a
 * refused signature costs one HMAC. Answers 204 once recorded, 401 for a bad or stale signature,
 * 404 for a reference that is no charge of ours.
 */
@Controller('processor')
export class ProcessorCallbacksController {
  constructor(private readonly callbacks: ProcessorCallbacksService) {}

  @Post('callbacks')
  @Open()
  @RouteConfig({ rateLimit: false, rawJsonBody: true } satisfies RawJsonRouteConfig & { rateLimit: boolean })
  @HttpCode(204)
  async receive(@Req() request: RawBodyRequest<FastifyRequest>): Promise<void> {
    await this.callbacks.receive(request.rawBody, request.headers[PROCESSOR_SIGNATURE_HEADER], request.id);
  }
}
