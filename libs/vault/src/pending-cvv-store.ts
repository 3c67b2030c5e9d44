import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import { RedisService, type RedisClient } from '@kessai/redis';
import { CvvCipher } from './cvv-cipher';

/**
 * Where a card's CVV waits for the one authorization that needs it: the first charge of the
 * transaction token. It never reaches Postgres. It lives in Redis, sealed with the vault keys
 * (CvvCipher, bound to the token id), under `<REDIS_PREFIX>:cvv:<token id>` for CVV_TTL_SECONDS.
 *
 * charge-service: `peek(token.id, charge.id)` right before authorizing claims the CVV for that one
 * charge (a retry of the same charge, e.g. after a crash, gets it again; any other charge gets
 * null), and `discard(token.id, charge.id)` forgets it once the charge's outcome is recorded. Null
 * means there is none any more (expired, already used, or never given), and the charge goes on
 * without a CVV. `take` (GETDEL) is for a caller that cannot crash between reading and using it.
 *
 * Keys written before the Redis Cluster change (1b56178) had no hash tag: `<prefix>:cvv:<token id>`
 * and `<prefix>:cvv-claim:<token id>`. A gateway of that version may still write them during a
 * rolling deploy, and they live CVV_TTL_SECONDS. When today's key finds nothing, such a key is
 * adopted once (taken with GETDEL, and its claim with it, then written under today's names with
 * its remaining time), so a charge of a token made just before the deploy keeps its CVV, and still
 * at most one charge ever gets it. A miss costs one PTTL more, and only during the process's first
 * 2 x CVV_TTL_SECONDS: a legacy key lives CVV_TTL_SECONDS after the last old gateway wrote it, so
 * once a rolling deploy has ended within one TTL of this process's start none is left. After that a
 * miss (every recurring charge's) costs nothing more.
 */
// KEYS: the sealed CVV, its claim; ARGV: the charge id. The claim lives exactly as long as the CVV.
const PEEK_SCRIPT = `
local sealed = redis.call('GET', KEYS[1])
if not sealed then return false end
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[1] then return false end
if not owner then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl) else redis.call('SET', KEYS[2], ARGV[1]) end
end
return sealed`;

const DISCARD_SCRIPT = `
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[1], KEYS[2]) end
return 0`;

type Script = (...keysThenArgs: string[]) => Promise<string | null>;

/** A two-key script defined on the client (ioredis defineCommand), bound to it. */
function defineScript(client: RedisClient, name: string, lua: string): Script {
  client.defineCommand(name, { lua, numberOfKeys: 2 });
  return (client as unknown as Record<string, Script>)[name].bind(client);
}

const PEEK_COMMAND = 'kessaiCvvPeek';
const DISCARD_COMMAND = 'kessaiCvvDiscard';

@Injectable()
export class PendingCvvStore {
  readonly #cipher: CvvCipher;
  readonly #peek: Script;
  readonly #discard: Script;
  readonly #ttlSeconds: number;
  /** until when a miss may still find a legacy key (epoch ms) */
  readonly #legacyUntil: number;

  constructor(
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#cipher = new CvvCipher(requireSecrets(config, ['VAULT_KEYS'], 'the pending CVV store').VAULT_KEYS);
    this.#ttlSeconds = config.CVV_TTL_SECONDS;
    this.#legacyUntil = Date.now() + 2 * config.CVV_TTL_SECONDS * 1000;
    // EVALSHA (Redis keeps the compiled script), falling back to EVAL once when it does not have it
    this.#peek = defineScript(redis.client, PEEK_COMMAND, PEEK_SCRIPT);
    this.#discard = defineScript(redis.client, DISCARD_COMMAND, DISCARD_SCRIPT);
  }

  /** Keeps (or replaces) the token's CVV for CVV_TTL_SECONDS. */
  async put(transactionTokenId: string, cvv: string): Promise<void> {
    const sealed = this.#cipher.seal(cvv, { transactionTokenId });
    await this.redis.client
      .multi()
      .set(this.#key(transactionTokenId), sealed, 'EX', this.#ttlSeconds)
      .del(this.#claimKey(transactionTokenId))
      .exec();
  }

  /** The CVV, removed in the same atomic step; null when there is none. */
  async take(transactionTokenId: string): Promise<string | null> {
    let sealed = await this.redis.client.getdel(this.#key(transactionTokenId));
    if (sealed === null && (await this.#adoptLegacy(transactionTokenId)))
      sealed = await this.redis.client.getdel(this.#key(transactionTokenId));
    return sealed === null ? null : this.#cipher.open(sealed, { transactionTokenId });
  }

  /**
   * The CVV for the authorization of `chargeId`, left in place until `discard`: the first charge
   * to peek claims it (the claim expires with the CVV), later peeks of that charge get it again,
   * other charges get null. So at most one charge is ever authorized with it.
   */
  async peek(transactionTokenId: string, chargeId: string): Promise<string | null> {
    const keys = [this.#key(transactionTokenId), this.#claimKey(transactionTokenId)] as const;
    let sealed = await this.#peek(...keys, chargeId);
    if (sealed === null && (await this.#adoptLegacy(transactionTokenId)))
      sealed = await this.#peek(...keys, chargeId);
    return sealed === null ? null : this.#cipher.open(sealed, { transactionTokenId });
  }

  /**
   * The CVV without claiming it, for the token's 3-D Secure authentication (an authorization that
   * is voided, not a charge): it stays there, unclaimed, for the token's first charge.
   */
  async read(transactionTokenId: string): Promise<string | null> {
    let sealed = await this.redis.client.get(this.#key(transactionTokenId));
    if (sealed === null && (await this.#adoptLegacy(transactionTokenId)))
      sealed = await this.redis.client.get(this.#key(transactionTokenId));
    return sealed === null ? null : this.#cipher.open(sealed, { transactionTokenId });
  }

  /**
   * Forgets the CVV without reading it. Without `chargeId` unconditionally (token deleted, or its
   * creation rolled back); with it only when that charge claimed it (its authorization is over).
   */
  async discard(transactionTokenId: string, chargeId?: string): Promise<void> {
    const keys = [this.#key(transactionTokenId), this.#claimKey(transactionTokenId)];
    if (chargeId === undefined) {
      await this.redis.client.del(...keys);
      // the legacy names are in other Cluster slots than today's, and than each other
      for (const key of this.#legacyKeys(transactionTokenId)) await this.redis.client.del(key);
    } else await this.#discard(...keys, chargeId);
  }

  /**
   * Moves a CVV kept under the legacy names to today's, once: true when one was moved. GETDEL makes
   * one caller the mover; today's names are written together (one slot, one MULTI) and only where
   * nothing is, so a claim never arrives after another charge could have claimed the CVV.
   */
  async #adoptLegacy(transactionTokenId: string): Promise<boolean> {
    if (Date.now() > this.#legacyUntil) return false;
    const client = this.redis.client;
    const [legacyKey, legacyClaimKey] = this.#legacyKeys(transactionTokenId);
    const ttlMs = await client.pttl(legacyKey);
    if (ttlMs <= 0) return false;
    const sealed = await client.getdel(legacyKey);
    if (sealed === null) return false;
    const owner = await client.getdel(legacyClaimKey);
    const multi = client.multi().set(this.#key(transactionTokenId), sealed, 'PX', ttlMs, 'NX');
    if (owner !== null) multi.set(this.#claimKey(transactionTokenId), owner, 'PX', ttlMs, 'NX');
    await multi.exec();
    return true;
  }

  #legacyKeys(transactionTokenId: string): [string, string] {
    return [
      `${this.redis.prefix}:cvv:${transactionTokenId}`,
      `${this.redis.prefix}:cvv-claim:${transactionTokenId}`,
    ];
  }

  #key(transactionTokenId: string): string {
    // the token id as the hash tag: the CVV and its claim in one Cluster slot, for the scripts
    return `${this.redis.prefix}:cvv:{${transactionTokenId}}`;
  }

  #claimKey(transactionTokenId: string): string {
    return `${this.redis.prefix}:cvv-claim:{${transactionTokenId}}`;
  }
}
