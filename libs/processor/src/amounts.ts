/**
 * Kessai holds amounts as bigint minor units end to end; the processor's JSON wire carries them as
 * numbers, which are exact only up to Number.MAX_SAFE_INTEGER (2^53 - 1). These convert at that
 * boundary, and refuse what would not cross it exactly.
 */
export class AmountOutOfRangeError extends RangeError {
  constructor(amount: bigint | number) {
    super(`amount ${amount} is beyond what the processor's JSON wire carries exactly`);
    this.name = 'AmountOutOfRangeError';
  }
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether the processor's wire can carry `amount` exactly. */
export function isProcessorAmount(amount: bigint): boolean {
  return amount >= -MAX && amount <= MAX;
}

/** A bigint amount as the processor's wire carries it; AmountOutOfRangeError past 2^53 - 1. */
export function toProcessorAmount(amount: bigint): number {
  if (!isProcessorAmount(amount)) throw new AmountOutOfRangeError(amount);
  return Number(amount);
}

/** An amount the processor answered with, as a bigint; AmountOutOfRangeError unless a safe integer. */
export function fromProcessorAmount(amount: number): bigint {
  if (!Number.isSafeInteger(amount)) throw new AmountOutOfRangeError(amount);
  return BigInt(amount);
}

/** Refuses an amount about to be sent that is no safe integer (its exact value is already lost). */
export function checkWireAmount(amount: number): number {
  if (!Number.isSafeInteger(amount)) throw new AmountOutOfRangeError(amount);
  return amount;
}
