import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '@kessai/config';
import { logoPath } from '@kessai/domain';

/**
 * The gateway as the caller reaches it, for the absolute URLs it answers (a store's logo, which the
 * SDK's user shows on its own page): PUBLIC_BASE_URL, else the request's own scheme and host.
 */
export function publicBaseUrl(config: Pick<AppConfig, 'PUBLIC_BASE_URL'>, request: FastifyRequest): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const host = request.headers.host ?? '';
  return /^[a-z0-9.-]+(:\d{1,5})?$/i.test(host) ? `${request.protocol}://${host}` : '';
}

/** Where a store's logo is served, absolute; null for a store without one. */
export function storeLogoUrl(
  baseUrl: string,
  store: { id: string; logo: { digest: string } | null },
): string | null {
  return store.logo === null ? null : `${baseUrl}${logoPath(store.id, store.logo.digest)}`;
}
