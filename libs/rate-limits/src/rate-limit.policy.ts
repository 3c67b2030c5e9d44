import { createHash } from 'node:crypto';
import type { AppConfig } from '@kessai/config';
import { isUuid } from '@kessai/domain';

/** One bucket's numbers: burst (balance cap), continuous refill, and the rolling-minute cap. */
export interface BucketLimits {
  burst: number;
  refillPerMs: number;
  perMinute: number;
}

export interface BucketCheck {
  /** key suffix inside the subject's hash tag */
  name: string;
  limits: BucketLimits;
  /** response header carrying this bucket's remaining burst */
  remainingHeader: string;
  /** response header carrying this bucket's per-minute cap */
  perMinuteHeader: string;
}

export type RateLimitFamily = 'charge' | 'standard';

export interface RateLimitPlan {
  family: RateLimitFamily;
  buckets: BucketCheck[];
}

export interface RateLimitSettings {
  charge: BucketLimits;
  route: BucketLimits;
  exact: BucketLimits;
  /** refused processor-callback signatures of one client IP */
  callbackFailures: BucketLimits;
}

const MS_PER_MINUTE = 60_000;

export function rateLimitSettings(config: AppConfig): RateLimitSettings {
  const limits = (burst: number, perMinute: number, refillPerMs: number | undefined): BucketLimits => ({
    burst,
    perMinute,
    refillPerMs: refillPerMs ?? perMinute / MS_PER_MINUTE,
  });
  return {
    charge: limits(
      config.RATE_LIMIT_CHARGE_BURST,
      config.RATE_LIMIT_CHARGE_PER_MINUTE,
      config.RATE_LIMIT_CHARGE_REFILL_PER_MS,
    ),
    route: limits(
      config.RATE_LIMIT_ROUTE_BURST,
      config.RATE_LIMIT_ROUTE_PER_MINUTE,
      config.RATE_LIMIT_ROUTE_REFILL_PER_MS,
    ),
    exact: limits(
      config.RATE_LIMIT_EXACT_BURST,
      config.RATE_LIMIT_EXACT_PER_MINUTE,
      config.RATE_LIMIT_EXACT_REFILL_PER_MS,
    ),
    callbackFailures: limits(
      config.RATE_LIMIT_CALLBACK_FAILURE_BURST,
      config.RATE_LIMIT_CALLBACK_FAILURES_PER_MINUTE,
      undefined,
    ),
  };
}

/**
 * The bucket of a client IP's refused processor-callback signatures: once it is empty the IP is
 * refused until it refills (RateLimiter.penalize, the callbacks route's onRequest check).
 */
export function callbackFailureBucket(settings: RateLimitSettings): BucketCheck {
  return {
    name: 'callback_failures',
    limits: settings.callbackFailures,
    remainingHeader: 'x-ratelimit-remaining-callback-failures',
    perMinuteHeader: 'x-ratelimit-limit-callback-failures',
  };
}

/** The creations that count against the charge family (spec: Charge rate limit). */
const CHARGE_FAMILY_ROUTES = new Set(['/tokens', '/charges', '/subscriptions', '/subscriptions/batches']);

const NUMERIC_SEGMENT = /^\d+$/;

/**
 * The route of a path with its identifiers taken out. A matched request uses the router's pattern
 * (/stores/:storeId/charges/:chargeId); an unmatched one replaces id-shaped segments, so that probing
 * unknown ids still shares one route bucket.
 */
export function routeOf(pattern: string | undefined, url: string): string {
  if (pattern) return pattern;
  const path = url.split('?')[0].replace(/\/+$/, '') || '/';
  return path
    .split('/')
    .map((segment) => (isUuid(segment) || NUMERIC_SEGMENT.test(segment) ? ':id' : segment))
    .join('/');
}

function digest(value: string): string {
  return createHash('sha1').update(value).digest('base64url');
}

/**
 * Which buckets a request counts against: POST /tokens, /charges, /subscriptions only the charge
 * bucket; everything else its route bucket and its exact bucket (full path and query string).
 */
export function planFor(
  settings: RateLimitSettings,
  request: { method: string; url: string; routePattern: string | undefined },
): RateLimitPlan {
  const route = routeOf(request.routePattern, request.url);
  if (request.method === 'POST' && CHARGE_FAMILY_ROUTES.has(route)) {
    return {
      family: 'charge',
      buckets: [
        {
          name: 'charge',
          limits: settings.charge,
          remainingHeader: 'x-remaining-requests',
          perMinuteHeader: 'x-requests-per-minute',
        },
      ],
    };
  }
  return {
    family: 'standard',
    buckets: [
      {
        name: `route:${digest(route)}`,
        limits: settings.route,
        remainingHeader: 'x-remaining-requests-route',
        perMinuteHeader: 'x-requests-per-minute-route',
      },
      {
        name: `exact:${digest(request.url)}`,
        limits: settings.exact,
        remainingHeader: 'x-remaining-requests-exact',
        perMinuteHeader: 'x-requests-per-minute-exact',
      },
    ],
  };
}
