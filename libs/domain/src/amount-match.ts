/**
 * bank_transfer_configuration.match_amount (api-reference §5.8): whether the money received for a
 * bank-transfer or konbini charge pays it (docs/bank-transfer-and-konbini.md, "Matching").
 * - exact: the received total equals the requested amount;
 * - minimum: the requested amount is the least accepted (an overpayment pays it);
 * - maximum: the requested amount is the most accepted (an underpayment pays it);
 * - disabled: any money received pays it.
 * Nothing received never pays a charge. Amounts are minor units.
 */
export type AmountMatchRule = 'exact' | 'minimum' | 'maximum' | 'disabled';

export function amountMatches(rule: AmountMatchRule, requested: bigint, received: bigint): boolean {
  if (received <= 0n) return false;
  switch (rule) {
    case 'exact':
      return received === requested;
    case 'minimum':
      return received >= requested;
    case 'maximum':
      return received <= requested;
    case 'disabled':
      return true;
  }
}
