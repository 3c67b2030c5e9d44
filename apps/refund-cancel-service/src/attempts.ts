/** Which try of its job this is: on the last one an unknown outcome is recorded as `error`. */
export interface Attempt {
  last: boolean;
}

/** HTTP statuses of a refusal that means "this key is being executed right now", not "refused". */
export const IN_PROGRESS_STATUSES: readonly number[] = [409, 423];
