import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { RedisService } from '@kessai/runtime';
import { CvvCipher } from './cvv-cipher';

/**
 * Where a card's CVV waits for the one authorization that needs it: the first charge of the
 * transaction token. It never reaches Postgres. It lives in Redis, sealed with the vault keys
 * (CvvCipher, bound to the token id), under `<REDIS_PREFIX>:cvv:<token id>` for CVV_TTL_SECONDS,
 * and `take` reads and deletes it in one command (GETDEL), so at most one authorization ever gets it.
 *
 * charge-service: `const cvv = await pendingCvvs.take(token.id)` right before authorizing; null
 * means there is none any more (expired, already used, or never given), and the charge goes on
 * without a CVV or fails as the store's rules require.
 */
@Injectable()
export class PendingCvvStore {
  readonly #cipher: CvvCipher;
  readonly #ttlSeconds: number;

  constructor(
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#cipher = new CvvCipher(config.VAULT_KEYS);
    this.#ttlSeconds = config.CVV_TTL_SECONDS;
  }

  /** Keeps (or replaces) the token's CVV for CVV_TTL_SECONDS. */
  async put(transactionTokenId: string, cvv: string): Promise<void> {
    const sealed = this.#cipher.seal(cvv, { transactionTokenId });
    await this.redis.client.set(this.#key(transactionTokenId), sealed, 'EX', this.#ttlSeconds);
  }

  /** The CVV, removed in the same atomic step; null when there is none. */
  async take(transactionTokenId: string): Promise<string | null> {
    const sealed = await this.redis.client.getdel(this.#key(transactionTokenId));
    return sealed === null ? null : this.#cipher.open(sealed, { transactionTokenId });
  }

  /** Forgets the CVV without reading it (token deleted, or its creation rolled back). */
  async discard(transactionTokenId: string): Promise<void> {
    await this.redis.client.del(this.#key(transactionTokenId));
  }

  #key(transactionTokenId: string): string {
    return `${this.redis.prefix}:cvv:${transactionTokenId}`;
  }
}
