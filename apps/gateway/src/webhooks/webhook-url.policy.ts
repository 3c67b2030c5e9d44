import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { checkWebhookUrl, isForbiddenWebhookAddress, ValidationError } from '@kessai/domain';

/** How long creation waits for a live webhook's host name to resolve. */
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * The URL rules of a webhook (docs/webhooks.md): an absolute http(s) URL; in live mode https only,
 * and neither its host nor any address its name resolves to may be loopback, private, link-local,
 * CGNAT, multicast, reserved or a cloud metadata endpoint. Test mode takes any http(s) URL, local
 * receivers included: that is how merchants develop. A refusal is VALIDATION_ERROR on `url`.
 */
@Injectable()
export class WebhookUrlPolicy {
  /** the resolver; tests replace it */
  resolve: (host: string) => Promise<string[]> = async (host) =>
    (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

  async check(raw: string, mode: 'test' | 'live'): Promise<string> {
    const checked = checkWebhookUrl(raw, mode);
    if ('refusal' in checked) throw ValidationError.field('url', checked.refusal);
    if (mode === 'live' && !checked.hostIsIp) {
      const addresses = await this.#resolveWithin(checked.host);
      if (addresses === null || addresses.length === 0)
        throw ValidationError.field('url', 'UNRESOLVABLE_HOST');
      if (addresses.some(isForbiddenWebhookAddress)) throw ValidationError.field('url', 'FORBIDDEN_ADDRESS');
    }
    return raw;
  }

  async #resolveWithin(host: string): Promise<string[] | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>(
      (resolve) => (timer = setTimeout(() => resolve(null), RESOLVE_TIMEOUT_MS)),
    );
    try {
      return await Promise.race([this.resolve(host).catch(() => null), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
