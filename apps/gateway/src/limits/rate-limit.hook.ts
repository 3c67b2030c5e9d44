import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '@kessai/config';
import { RateLimitedError, ServiceUnavailableError } from '@kessai/domain';
import type { Logger } from '@kessai/observability';
import { sendError } from '../http/error-response';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { callbackFailureBucket, planFor } from '@kessai/rate-limits';
import { RateLimiterUnavailableError, type RateLimiter } from '@kessai/rate-limits';

const FAILURE_LOG_INTERVAL_MS = 10_000;

/** A route's `rateLimit` setting (route config): off, or only the callbacks' refused-signature limit. */
export interface RateLimitRouteConfig {
  rateLimit?: false | 'signature_failures';
}

/**
 * Who a request's buckets belong to: its credential, or its client IP when it has none. A
 * credential's secret-less (browser) calls have a balance of their own: the public half of an app
 * token is in every page that embeds it, and anyone may send it with a forged Origin; draining it
 * must not refuse the merchant's own secret-bearing calls (issue 27).
 */
export function subjectOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) return `ip_${request.ip}`;
  return principal.hasSecret ? principal.credentialId : `${principal.credentialId}_public`;
}

/**
 * Counts every request against its rate-limit buckets, right after authentication resolved whose
 * request it is and before anything else runs, and reports the balances in headers on whatever the
 * response turns out to be (success, error or 429).
 *
 * When Redis is unreachable, RATE_LIMIT_REDIS_FAILURE decides: `closed` (default) refuses with 503
 * and Retry-After, because unlimited traffic would then reach Postgres and the payment processor
 * unchecked; `open` lets the request through without remaining-balance headers. A Redis that is
 * connected but slower than RATE_LIMIT_REDIS_TIMEOUT_MS (a loaded machine) lets the request through
 * uncounted in either mode: a healthy Redis never refuses a request (docs/decisions/0025).
 */
export function registerRateLimiting(
  fastify: FastifyInstance,
  limiter: RateLimiter,
  config: AppConfig,
  logger: Logger,
  metrics: GatewayMetrics,
): void {
  if (!config.RATE_LIMIT_ENABLED) return;
  let lastFailureLog = 0;

  const callbackFailures = callbackFailureBucket(limiter.settings);

  fastify.addHook('onRequest', async (request, reply) => {
    // routes outside the merchant API opt out with route config rateLimit: false; the processor's
    // callbacks (rateLimit: 'signature_failures') are refused only to an IP whose refused
    // signatures emptied its bucket, before their body is read
    const routeLimit = (request.routeOptions.config as RateLimitRouteConfig | undefined)?.rateLimit;
    if (routeLimit === false) return;
    if (routeLimit === 'signature_failures') {
      // a Redis that cannot answer lets notices through: their signature is still checked
      const blockedMs = await limiter.blockedFor(subjectOf(request), callbackFailures).catch(() => 0);
      if (blockedMs === 0) return;
      metrics.rateLimited('callback');
      return sendError(reply, new RateLimitedError(Math.max(1, Math.ceil(blockedMs / 1000))));
    }
    const plan = planFor(limiter.settings, {
      method: request.method,
      url: request.url,
      routePattern: request.routeOptions.url,
    });
    for (const bucket of plan.buckets) void reply.header(bucket.perMinuteHeader, bucket.limits.perMinute);

    let outcome;
    try {
      outcome = await limiter.take(subjectOf(request), plan.buckets);
    } catch (error) {
      const slow = error instanceof RateLimiterUnavailableError && error.slow;
      metrics.rateLimiterFailed(slow ? 'slow' : 'unavailable');
      const now = Date.now();
      if (now - lastFailureLog > FAILURE_LOG_INTERVAL_MS) {
        lastFailureLog = now;
        logger.warn(
          { err: error, mode: slow ? 'let through (slow)' : config.RATE_LIMIT_REDIS_FAILURE },
          slow ? 'rate limiter slow' : 'rate limiter unavailable',
        );
      }
      if (slow || config.RATE_LIMIT_REDIS_FAILURE === 'open') return;
      for (const bucket of plan.buckets) void reply.header(bucket.remainingHeader, 0);
      void reply.header('retry-after', 1);
      return sendError(reply, new ServiceUnavailableError());
    }

    plan.buckets.forEach((bucket, i) => void reply.header(bucket.remainingHeader, outcome.remaining[i]));
    if (!outcome.allowed) {
      metrics.rateLimited(plan.family);
      return sendError(reply, new RateLimitedError(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))));
    }
  });
}
