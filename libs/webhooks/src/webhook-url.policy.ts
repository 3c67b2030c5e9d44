import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import {
  checkWebhookUrl,
  isAllowedWebhookTarget,
  ValidationError,
  webhookTargetPolicy,
  type WebhookTargetPolicy,
} from '@kessai/domain';

/** How long creation waits for a webhook's host name to resolve. */
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * The URL rules of a webhook (docs/webhooks.md, "URL rules"; decision 0024): an absolute http(s)
 * URL, https only in live mode; in every mode, neither its host nor any address its name resolves to
 * may be other than global unicast, unless the operator allows it (WEBHOOK_ALLOW_PRIVATE_TARGETS in
 * development, WEBHOOK_ALLOWED_PRIVATE_TARGETS for exact address:port targets). A live webhook's
 * name must resolve; a test webhook's may not yet (the check of every try decides). webhook-service
 * applies the same rule to the address each try connects to. A refusal is VALIDATION_ERROR on `url`.
 */
@Injectable()
export class WebhookUrlPolicy {
  readonly #targets: WebhookTargetPolicy;

  /** the resolver; tests replace it */
  resolve: (host: string) => Promise<string[]> = async (host) =>
    (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

  constructor(
    @Inject(APP_CONFIG)
    config: Pick<AppConfig, 'WEBHOOK_ALLOW_PRIVATE_TARGETS' | 'WEBHOOK_ALLOWED_PRIVATE_TARGETS'>,
  ) {
    this.#targets = webhookTargetPolicy(
      config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      config.WEBHOOK_ALLOWED_PRIVATE_TARGETS,
    );
  }

  async check(raw: string, mode: 'test' | 'live'): Promise<string> {
    const checked = checkWebhookUrl(raw, mode, this.#targets);
    if ('refusal' in checked) throw ValidationError.field('url', checked.refusal);
    if (checked.hostIsIp) return raw;
    // with every address allowed, a live webhook's name is resolved only to know that it resolves
    if (this.#targets.allowPrivate && mode === 'test') return raw;
    const addresses = await this.#resolveWithin(checked.host);
    if (addresses === null || addresses.length === 0) {
      if (mode === 'live') throw ValidationError.field('url', 'UNRESOLVABLE_HOST');
      return raw;
    }
    if (!addresses.every((address) => isAllowedWebhookTarget(address, checked.port, this.#targets)))
      throw ValidationError.field('url', 'FORBIDDEN_ADDRESS');
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
