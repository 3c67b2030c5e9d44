import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether a scrape may read /metrics: always without a METRICS_TOKEN; with one, only with
 * `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time).
 */
export function metricsAccessAllowed(
  authorization: string | string[] | undefined,
  token: string | undefined,
): boolean {
  if (token === undefined) return true;
  if (typeof authorization !== 'string') return false;
  const match = /^Bearer (.+)$/.exec(authorization);
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}
