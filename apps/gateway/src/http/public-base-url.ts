import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '@kessai/config';
import { logoPath } from '@kessai/domain';

export type BaseUrlConfig = Pick<AppConfig, 'PUBLIC_BASE_URL' | 'NODE_ENV'>;

/**
 * The gateway as its callers and the consumer's browser reach it, for the absolute URLs it hands
 * out (a store's logo, the link page a 3-D Secure or operator page sends the consumer back to):
 * PUBLIC_BASE_URL. Production requires it (libs/config), so a forged Host header can never aim
 * those URLs elsewhere; in development and tests, without it, the request's own scheme and host.
 */
export function publicBaseUrl(config: BaseUrlConfig, request: FastifyRequest): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  if (config.NODE_ENV === 'production') return '';
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
