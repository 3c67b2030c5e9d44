import type { CardInput } from '@kessai/cards';
import type { TransactionToken, TransactionTokenFilters } from '@kessai/db';
import type { Checked, Metadata, PaymentsActor } from '@kessai/payments';

// The inputs of the transaction token use cases, as a front end parsed them (the gateway:
// transaction-token.schemas.ts), with the API's field names (api-reference §5.1). Card numbers,
// expiry and CVV come as they were sent: libs/cards checks them here, so that their reasons are the
// same everywhere, and they exist only inside SensitiveCardData once checked.

export type TokenType = TransactionToken['type'];
export type UsageLimit = NonNullable<TransactionToken['usageLimit']>;

/**
 * Who makes or changes a token: a merchant's credential in a processing mode. Card data through a
 * secret-bearing one (a merchant's server) needs a PCI DSS compliant merchant; a public one is the
 * hosted checkout's, whose pages are Kessai's, and may always send it. A checkout link's own
 * credentials make only what its page pays with.
 */
export interface TokenActor extends PaymentsActor {
  hasSecret: boolean;
  checkoutLink?: { id: string; tokenType: TokenType };
}

/** A token's maker, within its store (POST /tokens: the app token's). */
export interface TokenCreator extends TokenActor {
  storeId: string;
}

/** The billing fields of a card token (create, update, renew). */
export const BILLING_KEYS = ['line1', 'line2', 'state', 'city', 'country', 'zip', 'phone_number'] as const;
export type BillingInput = Partial<Record<(typeof BILLING_KEYS)[number], unknown>>;

/** A card token's data: the card's own fields as sent, and the rest (billing) as checked. */
export interface CardDataInput {
  card: CardInput;
  billing: Checked<BillingInput>;
  /** CVV authorization asked for (docs/transaction-tokens.md, "CVV authorization") */
  cvv_authorize?: CvvAuthorizeInput | null;
}

/** A card token's CVV authorization: on or off, and the currency of its smallest amount. */
export interface CvvAuthorizeInput {
  enabled: boolean;
  currency?: string;
}

export interface OnlineDataInput {
  brand: string;
  call_method: string;
  user_identifier?: string;
  gateway?: string;
}

/** The code a consumer's wallet shows. */
export interface QrScanDataInput {
  scanned_qr: string;
}

/** The wallet whose app scans and pays the code the merchant shows. */
export interface QrMerchantDataInput {
  brand: string;
}

/** Apple Pay: the device's encrypted payment data (PKPaymentToken's paymentData), snake_case keys. */
export interface ApplePayDataInput {
  payment_data: {
    version: string;
    data: string;
    signature: string;
    header: {
      ephemeral_public_key: string;
      public_key_hash: string;
      transaction_id: string;
      application_data?: string;
    };
  };
}

/** Paidy: the consumer's Paidy token and where the goods go. */
export interface PaidyDataInput {
  paidy_token: string;
  phone_number?: { country_code: string; local_number: string };
  shipping_address: { line1?: string; line2?: string; city?: string; state?: string; zip: string };
}

/** A token's own deadline rules, overriding its store's configuration. */
export interface DeadlineInput {
  expiration_period?: string | null;
  expiration_time_shift?: string | null;
}

export interface BankTransferDataInput extends DeadlineInput {
  brand: string;
}

export interface KonbiniDataInput extends DeadlineInput {
  customer_name: string;
  convenience_store: string;
  phone_number: { country_code: string; local_number: string };
}

/**
 * The data of each payment type, as checked: refused by the use case after its store's rules (a
 * type the store switched off is refused as such, whatever its data).
 */
export type TokenDataInput =
  | { payment_type: 'card'; data: CardDataInput }
  | { payment_type: 'online'; data: Checked<OnlineDataInput> }
  | { payment_type: 'qr_scan'; data: Checked<QrScanDataInput> }
  | { payment_type: 'qr_merchant'; data: Checked<QrMerchantDataInput> }
  | { payment_type: 'apple_pay'; data: Checked<ApplePayDataInput> }
  | { payment_type: 'paidy'; data: Checked<PaidyDataInput> }
  | { payment_type: 'bank_transfer'; data: Checked<BankTransferDataInput> }
  | { payment_type: 'konbini'; data: Checked<KonbiniDataInput> };

/** A token to create. */
export type TokenInput = TokenDataInput & {
  type: TokenType;
  email?: string | null;
  usage_limit?: UsageLimit | null;
  /** the customer confirms the token with a code sent to its email */
  use_confirmation?: boolean;
  three_ds?: { mode: string; redirect_endpoint?: string; redirect_id?: string };
  metadata?: Metadata;
};

/** A token's changes (PATCH): its email, metadata, and a card's cardholder, CVV and billing. */
export interface TokenChangesInput {
  email?: string | null;
  metadata?: Metadata;
  data?: BillingInput & { cvv?: unknown; cardholder?: unknown; cvv_authorize?: { enabled: boolean } };
}

/** A card token's renewal (TokenRenew): the card's new cardholder and expiry, maybe a new card. */
export interface TokenRenewalInput {
  data: CardInput & BillingInput & { email?: string | null };
}

/** A token list's filters; the store is the use case's to resolve. */
export type TokenListFilters = Omit<TransactionTokenFilters, 'storeId'>;
