import {
  applyDecorators,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  Res,
  type RawBodyRequest,
} from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AuthenticationError } from '@kessai/domain';
import {
  KOMOJU_SIGNATURE_HEADER,
  PROCESSOR_SIGNATURE_HEADER,
  STRIPE_SIGNATURE_HEADER,
} from '@kessai/processor';
import { Open } from '../auth/decorators';
import type { RawJsonRouteConfig } from '../http/json-body-parser';
import { subjectOf, type RateLimitRouteConfig } from '../limits/rate-limit.hook';
import { callbackFailureBucket } from '@kessai/rate-limits';
import { RateLimiter } from '@kessai/rate-limits';
import { type HostedProvider, ProcessorCallbacksService } from './processor-callbacks.service';

/** The header that carries each hosted processor's webhook signature. */
const HOSTED_SIGNATURE_HEADERS: Record<HostedProvider, string> = {
  komoju: KOMOJU_SIGNATURE_HEADER,
  stripe: STRIPE_SIGNATURE_HEADER,
};

/**
 * A route of signed notices: open (the signature is the credential), the raw body kept for its
 * check, refused signatures counted against the client's IP, 204 once recorded.
 */
function SignedNotice() {
  return applyDecorators(
    Open(),
    RouteConfig({
      rateLimit: 'signature_failures',
      rawJsonBody: true,
    } satisfies RawJsonRouteConfig & RateLimitRouteConfig),
    HttpCode(204),
  );
}

/**
 * POST /processor/callbacks: where the processor posts its signed notices. No app token: the
 * X-Processor-Signature over the raw body is the credential. The app's JSON parser keeps the bytes
 * only (`rawBody`, `rawJsonBody` below): nothing of a notice is parsed before its signature is
 * verified. Not limited by volume: the processor's notices and retries must not be refused for
 * it. A client IP whose refused signatures empty its bucket (RATE_LIMIT_CALLBACK_FAILURE_BURST,
 * …_PER_MINUTE) is refused with 429 before its body is read until the bucket refills, so a
 * processor that signs right is never refused. Answers 204 once recorded, 401 for a bad or stale
 * signature, 404 for a reference that is no charge of ours, 429 to a blocked IP.
 */
@Controller('processor')
export class ProcessorCallbacksController {
  constructor(
    private readonly callbacks: ProcessorCallbacksService,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('callbacks')
  @SignedNotice()
  async receive(@Req() request: RawBodyRequest<FastifyRequest>): Promise<void> {
    await this.#penalizingRefusals(request, () =>
      this.callbacks.receive(request.rawBody, request.headers[PROCESSOR_SIGNATURE_HEADER], request.id),
    );
  }

  /**
   * POST /processor/komoju/webhooks: KOMOJU's webhook deliveries, the X-Komoju-Signature over the
   * raw body the credential, limited and answered as POST /processor/callbacks is (204, 401, 404).
   */
  @Post('komoju/webhooks')
  @SignedNotice()
  async receiveKomoju(@Req() request: RawBodyRequest<FastifyRequest>): Promise<void> {
    await this.#receiveHosted('komoju', request);
  }

  /**
   * POST /processor/komoju/webhooks/:accountId: the webhook deliveries of one KOMOJU processor
   * account (docs/connectors.md, "Processor accounts"), verified with that account's webhook secret;
   * an account that is no KOMOJU account of ours is refused as a bad signature is (401).
   */
  @Post('komoju/webhooks/:accountId')
  @SignedNotice()
  async receiveKomojuOfAccount(
    @Param('accountId') accountId: string,
    @Req() request: RawBodyRequest<FastifyRequest>,
  ): Promise<void> {
    await this.#receiveHosted('komoju', request, accountId);
  }

  /**
   * POST /processor/stripe/webhooks: Stripe's webhook deliveries, the Stripe-Signature over the raw
   * body (and its timestamp) the credential, limited and answered as POST /processor/callbacks is.
   */
  @Post('stripe/webhooks')
  @SignedNotice()
  async receiveStripe(@Req() request: RawBodyRequest<FastifyRequest>): Promise<void> {
    await this.#receiveHosted('stripe', request);
  }

  /**
   * POST /processor/stripe/webhooks/:accountId: the webhook deliveries of one Stripe processor
   * account, verified with that account's signing secret; refused as POST /processor/komoju/webhooks/:accountId is.
   */
  @Post('stripe/webhooks/:accountId')
  @SignedNotice()
  async receiveStripeOfAccount(
    @Param('accountId') accountId: string,
    @Req() request: RawBodyRequest<FastifyRequest>,
  ): Promise<void> {
    await this.#receiveHosted('stripe', request, accountId);
  }

  /**
   * GET /processor/three_ds/return/:chargeId: where KOMOJU and Stripe send the customer's browser
   * after 3-D Secure (the return_url the adapters give them). Open: it proves nothing, only nudges
   * an awaiting charge to be looked up at the processor (processor_notice_received), then sends the
   * browser on to the charge's `three_ds.redirect_endpoint` (303, without the processor's query
   * parameters, which name its payment and, for Stripe, its client secret), or answers a short
   * page when the charge names none. 404 for a charge that is not ours. Limited by volume per
   * client as the API's routes are, since each nudge of an awaiting charge costs a lookup at the
   * processor.
   */
  @Get('three_ds/return/:chargeId')
  @Open()
  async threeDsReturn(
    @Param('chargeId') chargeId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { redirectTo } = await this.callbacks.receiveThreeDsReturn(chargeId, request.id);
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    if (redirectTo) return void reply.redirect(redirectTo, 303);
    return void reply
      .status(200)
      .type('text/html; charset=utf-8')
      .send(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authentication finished</title></head>' +
          '<body><p>Authentication finished. You may close this page and return to the shop.</p></body></html>',
      );
  }

  /** A hosted processor's webhook delivery, of its configured secret or of the account its path names. */
  async #receiveHosted(
    provider: HostedProvider,
    request: RawBodyRequest<FastifyRequest>,
    accountId?: string,
  ): Promise<void> {
    const delivery = {
      rawBody: request.rawBody,
      signatureHeader: request.headers[HOSTED_SIGNATURE_HEADERS[provider]],
    };
    await this.#penalizingRefusals(request, () =>
      this.callbacks.receiveHosted(provider, delivery, request.id, accountId),
    );
  }

  async #penalizingRefusals(request: RawBodyRequest<FastifyRequest>, receive: () => Promise<void>) {
    try {
      await receive();
    } catch (error) {
      if (error instanceof AuthenticationError && this.config.RATE_LIMIT_ENABLED)
        // counted, never in the way of the answer: an unreachable Redis only skips the count
        await this.limiter
          .penalize(subjectOf(request), callbackFailureBucket(this.limiter.settings))
          .catch(() => undefined);
      throw error;
    }
  }
}
