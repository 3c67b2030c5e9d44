import type { FeeTerms } from '@kessai/domain';
import { pg } from '../sql/statement';

/** The fee terms a charge was accepted under, as columns (null on charges older than fees). */
export const FEE_TERMS_COLUMNS = {
  fee_rate_ppm: pg.nullable(pg.int4),
  fee_flat_amount: pg.nullable(pg.int8),
};

/** Those columns as the domain's FeeTerms; null on charges older than fees. */
export function feeTermsOfRow(row: {
  fee_rate_ppm: number | null;
  fee_flat_amount: bigint | null;
}): FeeTerms | null {
  return row.fee_rate_ppm === null || row.fee_flat_amount === null
    ? null
    : { ratePpm: row.fee_rate_ppm, flatAmount: row.fee_flat_amount };
}
