import type { BaseUrlConfig } from '../http/public-base-url';

/** A browser Origin header as a URL: null when there is none, it does not parse, or it is not http(s). */
function webOriginOf(origin: string | undefined): URL | null {
  if (!origin) return null;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
}

/**
 * Whether a browser Origin is one of an app token's domains. A domain may be a host
 * ("shop.example"), a host with a port, a full origin ("https://shop.example"), or a wildcard
 * ("*.shop.example", which matches subdomains only).
 */
export function originAllowed(origin: string | undefined, domains: string[]): boolean {
  const url = webOriginOf(origin);
  if (!url) return false;
  const host = url.host.toLowerCase();
  const hostname = url.hostname.toLowerCase();
  const fullOrigin = `${url.protocol}//${host}`;
  return domains.some((raw) => {
    const domain = raw.trim().toLowerCase().replace(/\/+$/, '');
    if (domain === '') return false;
    if (domain.includes('://')) return domain === fullOrigin;
    if (domain.startsWith('*.'))
      return hostname.endsWith(domain.slice(1)) && hostname.length > domain.length - 1;
    return domain === host || domain === hostname;
  });
}

/**
 * Whether a browser Origin is the gateway's own (the hosted checkout's pages are served by it):
 * PUBLIC_BASE_URL's origin, scheme included, when it is set (production requires it); otherwise
 * (development and tests) the request's Host.
 */
export function isOwnOrigin(
  config: BaseUrlConfig,
  origin: string | undefined,
  host: string | undefined,
): boolean {
  const url = webOriginOf(origin);
  if (!url) return false;
  if (config.PUBLIC_BASE_URL) return url.origin === new URL(config.PUBLIC_BASE_URL).origin;
  if (config.NODE_ENV === 'production' || host === undefined) return false;
  return url.host.toLowerCase() === host.toLowerCase();
}

/** The header the inline/widget frame (a gateway page) sends with the origin of the page that embeds it. */
export const EMBEDDER_HEADER = 'x-kessai-embedder';
