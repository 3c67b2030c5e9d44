import type { Logger } from '@kessai/observability';
import {
  isRetryableProcessorError,
  type PaymentProcessors,
  ProcessorRequestRejectedError,
} from '@kessai/processor';

/** Which try of its job this is: on the last one an unknown outcome is recorded as `error`. */
export interface Attempt {
  last: boolean;
}

/** HTTP statuses of a refusal that means "this key is being executed right now", not "refused". */
export const IN_PROGRESS_STATUSES: readonly number[] = [409, 423];

/**
 * What the processor said to an operation under its key: its result, a refusal of the request as
 * malformed (nothing was executed), or, on the job's last attempt, no answer at all.
 */
export type KeyedAnswer<R> = { result: R } | 'refused' | 'unreachable';

/**
 * A refund or void asked of the processor under the operation's own key, as both are: with the
 * processors' retries; a refusal other than "in progress" is `refused` (logged with its status and
 * type only: its text may echo fields); while the answer stays unknown (timeouts, 5xx, in progress)
 * the job throws, and BullMQ tries again later with the same key. On the last attempt the processor
 * is asked whether it knows the payment at all (`probe`), then the operation once more under its key
 * (a repeat answers with the first result): `unreachable` when that fails too.
 */
export async function askUnderKey<R>(
  what: 'refund' | 'void',
  processors: PaymentProcessors,
  logger: Logger,
  context: Record<string, unknown>,
  attempt: Attempt,
  call: () => Promise<R>,
  probe: () => Promise<unknown>,
): Promise<KeyedAnswer<R>> {
  try {
    return { result: await processors.retrying(call, logger, context) };
  } catch (error) {
    const refused = error instanceof ProcessorRequestRejectedError;
    if (refused && !IN_PROGRESS_STATUSES.includes(error.httpStatus)) {
      logger.error({ ...context, httpStatus: error.httpStatus, type: error.type }, `${what} refused`);
      return 'refused';
    }
    if (!refused && !isRetryableProcessorError(error)) throw error;
    if (!attempt.last) throw error;
    logger.warn({ ...context, err: error }, `${what} outcome unknown; last try`);
    try {
      await processors.retrying(probe, logger, context);
      return { result: await processors.retrying(call, logger, context) };
    } catch {
      return 'unreachable';
    }
  }
}
