import type { ChargeOutcomesRepository } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import { type PaymentProcessor, TransientProcessorError } from '@kessai/processor';
import { RetryLaterError } from './retry-later';

/**
 * The processor calls of one pending charge's authorization, and its failover from its account to
 * its route's fallback (docs/connectors.md, "Failover"; decision 0056). Without a fallback every
 * call goes to the charge's processor as it always did. With one, each call to the account is
 * counted in the charge's row before it is sent; a call the account provably did not execute
 * (UnexecutedReason: connection refused, DNS failure, an explicit "not processed") is counted
 * again, and the statement that makes the two counts equal moves the charge to its fallback, which
 * is then called at once with the same request and the same idempotency key (the charge id), and
 * by every later call, of this worker or any other, after any crash. A timeout, a 5xx or a crash
 * mid-call leaves the counts apart, so the charge stays on its account for good.
 */
export class ChargeProcessorCalls {
  #current: PaymentProcessor;
  #fallback: PaymentProcessor | null;

  constructor(
    private readonly chargeId: string,
    processor: PaymentProcessor,
    fallback: PaymentProcessor | null,
    private readonly charges: ChargeOutcomesRepository,
    private readonly logger: Logger,
  ) {
    this.#current = processor;
    this.#fallback = fallback;
  }

  /** The processor the charge's calls go to now: status() lookups ask it. */
  get current(): PaymentProcessor {
    return this.#current;
  }

  /** Sends one call (an attempt of the authorization's retries) to the processor it belongs to. */
  async send<T>(call: (processor: PaymentProcessor) => Promise<T>): Promise<T> {
    const fallback = this.#fallback;
    if (!fallback) return call(this.#current);
    if (!(await this.charges.startProcessorCall(this.chargeId))) {
      // failed over by another worker, or no longer pending: its row says which
      const charge = await this.charges.findPending(this.chargeId);
      if (!charge) throw new RetryLaterError(`charge ${this.chargeId}: no longer pending`);
      if (charge.fallbackProcessorAccountId !== null)
        throw new RetryLaterError(`charge ${this.chargeId}: its call was not counted`);
      return call(this.#failOver(fallback));
    }
    try {
      return await call(this.#current);
    } catch (error) {
      if (!(error instanceof TransientProcessorError) || error.unexecuted === null) throw error;
      if (!(await this.charges.recordUnexecutedProcessorCall(this.chargeId))) {
        // another call of it may have been executed, or may still be: stays on its account
        this.logger.warn(
          { chargeId: this.chargeId, unexecuted: error.unexecuted },
          'processor did not execute the call; not failing over while another call may have been',
        );
        throw error;
      }
      this.logger.warn(
        { chargeId: this.chargeId, unexecuted: error.unexecuted },
        'processor did not execute the call; failed over to the fallback account',
      );
      return call(this.#failOver(fallback));
    }
  }

  #failOver(fallback: PaymentProcessor): PaymentProcessor {
    this.#current = fallback;
    this.#fallback = null;
    return fallback;
  }
}
