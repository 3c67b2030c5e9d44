import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isAllowedWebhookTarget, type WebhookTargetPolicy } from '@kessai/domain';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A webhook's host resolved to an address it may not reach: nothing was sent. */
export class ForbiddenAddressError extends Error {
  readonly code = 'FORBIDDEN_ADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which a webhook may not reach`);
  }
}

/**
 * The `lookup` of a webhook try's connection to `port` (docs/webhooks.md, "URL rules"): the system
 * resolver, then the address rule on every address it answers, so that the check holds for the
 * address the socket actually connects to — a name whose DNS changed since the webhook was created
 * (DNS rebinding), or a name of this machine, is refused before any byte is sent. Node calls it with
 * `all: true` (happy eyeballs) or for one address; both are checked. (An IP host is never looked up:
 * WebhookSender checks it before connecting.)
 */
export function guardedLookup(
  policy: WebhookTargetPolicy,
  port: number,
  resolve: typeof dnsLookup = dnsLookup,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(
      hostname,
      options,
      (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        if (error) return callback(error, address, family);
        const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
        const forbidden = addresses.find((each) => !isAllowedWebhookTarget(each, port, policy));
        if (forbidden !== undefined)
          return callback(new ForbiddenAddressError(hostname, forbidden), address, family);
        callback(null, address, family);
      },
    );
  };
}
