import type { Metadata } from '../actor';

/**
 * A charge to accept, as a front end parsed it (the gateway: createChargeSchema). The fields keep
 * the API's names (api-reference §5.2), so that the API's parsed request is one as it is.
 */
export interface ChargeInput {
  transaction_token_id: string;
  /** minor units, at least 1 */
  amount: number;
  /** ISO 4217, upper case */
  currency: string;
  capture: boolean;
  capture_at?: Date | null;
  descriptor?: string | null;
  ignore_descriptor_on_error?: boolean;
  only_direct_currency: boolean;
  redirect?: { endpoint: string } | null;
  three_ds?: {
    mode: string;
    redirect_endpoint?: string | null;
    redirect_id?: string | null;
  } | null;
  /**
   * This charge's fee (minor units of `fee_currency`, which is the charge's own), in place of the
   * store's terms: at least what they give on `amount`, at most `amount` (decision 0045)
   */
  fee_amount?: number | null;
  fee_currency?: string | null;
  metadata?: Metadata;
}

/** A capture of an authorized charge: its amount (minor units, partial allowed) and currency. */
export interface CaptureInput {
  amount: number;
  currency: string;
}

/**
 * An extension of a bank-transfer or konbini charge's payment deadline: by a period (ISO 8601, with
 * an optional time of day to move to), or to a date; neither: the store's default_extension_period.
 */
export interface ExpiryExtensionInput {
  expiration_period?: string;
  expiration_time_shift?: string;
  expiration_date?: Date;
}
