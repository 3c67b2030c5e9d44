import { getDomain } from 'tldts';

/** The most origins one app token may name. */
export const APP_TOKEN_DOMAINS_MAX = 50;

/** A host, host:port, *.host (subdomains) or an http(s) origin, as the browser Origin check reads them. */
export const APP_TOKEN_DOMAIN =
  /^(https?:\/\/)?(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i;

/**
 * Whether `domain` is a wildcard over a public suffix (`*.com`, `*.co.jp`, `*.github.io`): it would
 * allow every site under it to use the token from a browser, and would become `frame-ancestors
 * *.com` on the widget's frame. The Public Suffix List (ICANN and private sections) is tldts's.
 */
export function isWildcardOverPublicSuffix(domain: string): boolean {
  const host = domain.replace(/^https?:\/\//i, '').replace(/:\d+$/, '');
  if (!host.startsWith('*.')) return false;
  return getDomain(host.slice(2), { allowPrivateDomains: true }) === null;
}

/** Whether an app token may name `domain` (trimmed) among the origins its public use comes from. */
export function isAllowedTokenDomain(domain: string): boolean {
  return domain.length <= 253 && APP_TOKEN_DOMAIN.test(domain) && !isWildcardOverPublicSuffix(domain);
}
