/**
 * Thrown to let BullMQ retry the job later: the processor has no final outcome for the payment yet
 * (it has not executed the request, or the customer has still to act), and nothing is recorded.
 * Not libs/db's WriteOutcomeUnknownError, a write of ours whose commit is unknown.
 */
export class RetryLaterError extends Error {}
