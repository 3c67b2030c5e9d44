/**
 * `{ [key]: value }`, or `{}` when there is no value: for a field the SDK types as optional (absent
 * or present) rather than nullable, which a `null` would break for a caller checking
 * `field !== undefined` (issue 19). Spread it into a presented object. Fields the reference shows as
 * `null` (a charge's `error`, `charged_*` while pending, a token's `usage_limit`) stay `null` instead.
 */
export function optionalField<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  if (value === null || value === undefined) return {};
  return { [key]: value } as { [P in K]?: V };
}
