import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isForbiddenWebhookAddress } from '@kessai/domain';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A live webhook's host resolved to an address it may not reach: nothing was sent. */
export class ForbiddenAddressError extends Error {
  readonly code = 'FORBIDDEN_ADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which a live webhook may not reach`);
  }
}

/**
 * The `lookup` of a live webhook's connections (docs/webhooks.md, "URL rules"): the system resolver,
 * then the address rules on every address it answers, so that the check holds for the address the
 * socket actually connects to — a name whose DNS changed since the webhook was created (DNS
 * rebinding) is refused before any byte is sent. Node calls it with `all: true` (happy eyeballs) or
 * for one address; both are checked.
 */
export function guardedLookup(
  resolve: typeof dnsLookup = dnsLookup,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(
      hostname,
      options,
      (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        if (error) return callback(error, address, family);
        const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
        const forbidden = addresses.find(isForbiddenWebhookAddress);
        if (forbidden !== undefined)
          return callback(new ForbiddenAddressError(hostname, forbidden), address, family);
        callback(null, address, family);
      },
    );
  };
}
