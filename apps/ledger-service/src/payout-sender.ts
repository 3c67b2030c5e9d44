import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { PayoutsRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { HttpPayoutBank, processorCallbackUrl, type PayoutBank } from '@kessai/processor';
import { PeriodicService } from '@kessai/runtime';

const BATCH = 100;

/** Who the sender's status changes say made them. */
export const PAYOUT_SENDER = 'payout-sender';

/**
 * Every PAYOUT_INTERVAL_MS, hands approved transfers to the bank of their mode (docs/ledger.md,
 * "Paying a transfer"): test ones to the simulator's test bank at PROCESSOR_TEST_URL, live ones to
 * PROCESSOR_LIVE_URL when live payments go there over HTTP (with KOMOJU, live transfers wait: no
 * bank of KOMOJU's is connected). Each is sent under its row's lock and marked processing in the
 * same transaction; the bank keys a payout by the transfer's id, so one sent again after a crash
 * is the same payout. The bank's signed notice (the gateway's POST /processor/callbacks) makes it
 * paid or failed.
 */
@Injectable()
export class PayoutSender extends PeriodicService {
  readonly #banks = new Map<'test' | 'live', PayoutBank>();
  readonly #callbackUrl: string;

  constructor(
    private readonly payouts: PayoutsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'payout sender', intervalMs: config.PAYOUT_INTERVAL_MS, runAtStart: true, logger });
    const options = { apiKey: config.PROCESSOR_API_KEY, timeoutMs: config.PROCESSOR_TIMEOUT_MS };
    this.#banks.set('test', new HttpPayoutBank({ ...options, baseUrl: config.PROCESSOR_TEST_URL }));
    if (config.PROCESSOR_LIVE === 'http' && config.PROCESSOR_LIVE_URL)
      this.#banks.set('live', new HttpPayoutBank({ ...options, baseUrl: config.PROCESSOR_LIVE_URL }));
    this.#callbackUrl = processorCallbackUrl(config);
  }

  protected async tick() {
    return (await this.sendOnce()) === BATCH ? { pauseMs: 0 } : undefined;
  }

  /** Sends up to a batch of approved transfers; resolves to how many. */
  sendOnce(): Promise<number> {
    return this.payouts.sendApproved(
      [...this.#banks.keys()],
      BATCH,
      async (transfer) => {
        const { payoutId } = await this.#banks.get(transfer.mode as 'test' | 'live')!.send({
          reference: transfer.id,
          amount: transfer.amount,
          currency: transfer.currency,
          account: {
            holderName: transfer.holderName,
            bankName: transfer.bankName,
            lastFour: transfer.lastFour,
          },
          callbackUrl: this.#callbackUrl,
        });
        this.logger.info({ transferId: transfer.id, payoutId }, 'transfer sent to the bank');
      },
      PAYOUT_SENDER,
    );
  }
}
