import type { Metadata } from '../actor';

/** RefundReason (api-reference §5.12). */
export const REFUND_REASONS = [
  'duplicate',
  'fraud',
  'customer_request',
  'chargeback',
  'chargeback_fee_exempt',
  'chargeback_reverse',
  'system_failure',
] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/** A refund to accept, as a front end parsed it (the gateway: createRefundSchema). */
export interface RefundInput {
  /** minor units, at least 1 */
  amount: number;
  currency: string;
  reason?: RefundReason | null;
  message?: string | null;
  metadata?: Metadata;
}

/** A refund's changes: `status` only as it is (a refund's status is the processor's). */
export interface RefundChanges {
  status?: string;
  reason?: RefundReason | null;
  message?: string | null;
  metadata?: Metadata;
}
