import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { sweepBucket } from '@kessai/contracts';
import {
  CapturesRepository,
  ChargeSweepsRepository,
  TokenCvvAuthorizeRepository,
  TokenThreeDsRepository,
} from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';

import { ChargeJobs, type ChargeJobRequest } from './charge-jobs';

const BATCH = 500;

/**
 * Every CHARGE_SWEEP_INTERVAL_MS, finds the charges nobody is moving and gives them work: due
 * captures (capture_at) are requested, expired awaiting charges reconciled (once per deadline), stale pending charges
 * and captures processed again; card tokens whose 3-D Secure nobody completed in time get an
 * authenticate_token job (which voids the hold and fails the token), card tokens whose CVV
 * authorization has been pending too long (its job lost) their authorize_token_cvv job again, and
 * card tokens whose 3-D Secure has been pending too long their authenticate_token job again. Safe in any number of replicas: a capture request is conditional
 * and unique per charge, and the jobs have one id per charge and time bucket, so replicas (and
 * consecutive sweeps) add each at most once per bucket; the jobs themselves are repeatable.
 */
@Injectable()
export class ChargeSweeper extends PeriodicService {
  readonly #staleSeconds: number;
  readonly #awaitingExpirySeconds: number;
  readonly #cvvStaleSeconds: number;
  readonly #threeDsStaleSeconds: number;

  constructor(
    private readonly sweeps: ChargeSweepsRepository,
    private readonly captures: CapturesRepository,
    private readonly jobs: ChargeJobs,
    private readonly tokens: TokenThreeDsRepository,
    private readonly cvvTokens: TokenCvvAuthorizeRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'charge sweep', intervalMs: config.CHARGE_SWEEP_INTERVAL_MS, logger });
    this.#staleSeconds = config.CHARGE_STALE_PENDING_SECONDS;
    this.#awaitingExpirySeconds = config.CHARGE_AWAITING_EXPIRY_SECONDS;
    this.#cvvStaleSeconds = config.TOKEN_CVV_AUTHORIZE_STALE_SECONDS;
    this.#threeDsStaleSeconds = config.TOKEN_THREE_DS_STALE_SECONDS;
  }

  protected async tick(): Promise<void> {
    await this.sweep();
  }

  /** One pass; resolves to how many charges it gave work to. */
  async sweep(): Promise<number> {
    let requested = 0;
    for (const due of await this.sweeps.findDueCaptures(BATCH)) {
      // the full authorized amount; a capture requested meanwhile (API, another replica) wins
      const result = await this.captures
        .requestCapture({ chargeId: due.id, amount: due.amount, currency: due.currency })
        .catch((error: unknown) => {
          this.logger.warn({ chargeId: due.id, err: error }, 'capture_at request failed');
          return null;
        });
      if (result?.outcome === 'created') requested++;
    }
    const [expired, stalePending, staleCaptures, expiredTokens, staleCvvTokens, staleThreeDsTokens] =
      await Promise.all([
        this.sweeps.findExpiredAwaiting(BATCH),
        this.sweeps.findStalePending(this.#staleSeconds, BATCH),
        this.sweeps.findStaleCaptures(this.#staleSeconds, BATCH),
        this.tokens.findExpiredAwaiting(this.#awaitingExpirySeconds, BATCH),
        this.cvvTokens.findStalePending(this.#cvvStaleSeconds, BATCH),
        this.tokens.findStalePending(this.#threeDsStaleSeconds, BATCH),
      ]);
    const bucket = sweepBucket(this.#staleSeconds);
    const cvvBucket = sweepBucket(this.#cvvStaleSeconds);
    const threeDsBucket = sweepBucket(this.#threeDsStaleSeconds);
    const jobs = [
      // one job per deadline too: a charge extended at its deadline (automatic extension) is
      // taken again at the next one, even within the same time bucket
      ...expired.map((due) => this.#job('reconcile_charge', due.id, bucket, String(due.expiresOn.getTime()))),
      ...stalePending.map((id) => this.#job('process_charge', id, bucket)),
      ...staleCaptures.map((id) => this.#job('capture_charge', id, bucket)),
      // the token's id in the charge's place (the job's aggregate), once per deadline and bucket
      ...expiredTokens.map((due) =>
        this.#job('authenticate_token', due.id, bucket, 'three_ds_expiry', String(due.expiresOn.getTime())),
      ),
      // once per attempt and window: the attempt's reference keys the hold, so a job run twice (or
      // beside the lost one, found again) authorizes once; a CVV no longer held fails the token
      ...staleCvvTokens.map((due) =>
        this.#job('authorize_token_cvv', due.id, cvvBucket, 'cvv_authorize', String(due.attempt)),
      ),
      // a 3-D Secure pending since its job was lost, the same way (decision 0077): the attempt's
      // reference keys the authentication's hold
      ...staleThreeDsTokens.map((due) =>
        this.#job('authenticate_token', due.id, threeDsBucket, 'three_ds', String(due.attempt)),
      ),
    ];
    await this.jobs.add(jobs);
    const total = requested + jobs.length;
    if (total > 0) {
      this.logger.info(
        {
          capturesRequested: requested,
          expired: expired.length,
          stalePending: stalePending.length,
          staleCaptures: staleCaptures.length,
          expiredTokenThreeDs: expiredTokens.length,
          staleTokenCvvAuthorize: staleCvvTokens.length,
          staleTokenThreeDs: staleThreeDsTokens.length,
        },
        'charge sweep',
      );
    }
    return total;
  }

  #job(name: ChargeJobRequest['name'], chargeId: string, ...idParts: string[]): ChargeJobRequest {
    return { name, chargeId, causeEventId: null, eventType: 'charge_sweep', idParts: ['sweep', ...idParts] };
  }
}
