import { type SensitiveCardData } from '@kessai/cards';
import { type PaymentErrorDetails } from './payment-errors';

/**
 * The outside world of a charge: a card acquirer or wallet operator. One adapter per processor;
 * in test mode and in tests it is the simulator behind HttpPaymentProcessor.
 *
 * Contract every adapter keeps:
 * - A decline or a refused operation is a result (`outcome: 'declined' | 'rejected'`), final.
 * - A failure whose outcome is unknown or temporary (timeout, network, 5xx, 429) is thrown as a
 *   TransientProcessorError. Retrying it is safe because every state-changing call carries an
 *   idempotency key: the processor executes each key once and answers repeats with the first
 *   result. After a timeout the payment may have gone through: retry with the same key or ask
 *   `status(reference)`, never create a new reference.
 * - A request the processor refuses as malformed is thrown as ProcessorRequestRejectedError.
 * Amounts are integers in the currency's minor units.
 */
export interface PaymentProcessor {
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  capture(request: CaptureRequest): Promise<CaptureResult>;
  void(request: VoidRequest): Promise<VoidResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
  createOperatorPayment(request: OperatorPaymentRequest): Promise<OperatorPaymentResult>;
  /** A bank transfer or konbini payment: instructions the customer pays by, later, outside. */
  createDeferredPayment(request: DeferredPaymentRequest): Promise<DeferredPaymentResult>;
  /** The processor's view of the payment made under our reference, e.g. after a crash or timeout. */
  status(reference: string): Promise<PaymentStatusResult>;
}

/** ChargeThreeDsMode (api-reference §5.12). */
export type ThreeDsMode = 'normal' | 'force' | 'skip' | 'if_available' | 'require' | 'provided';

/** OnlineCallMethod (api-reference §5.12). */
export type OperatorCallMethod = 'http_get' | 'http_get_mobile' | 'http_post' | 'sdk' | 'web' | 'app';

export interface CardPaymentMethod {
  type: 'card';
  /** with the CVV when this authorization should check it */
  card: SensitiveCardData;
}

/** A code the customer shows on their phone and the merchant scans (consumer-presented QR). */
export interface QrScanPaymentMethod {
  type: 'qr_scan';
  scannedQr: string;
}

/**
 * Apple Pay's encrypted payment data as the customer's device made it: PKPaymentToken's
 * `paymentData`, Apple's JSON with Apple's field names, handed to the processor as it is. Only the
 * processor can open it (its payment processing key), so Kessai never sees the device's card
 * number or cryptogram (docs/transaction-tokens.md, "Apple Pay").
 */
export interface ApplePayPaymentData {
  /** EC_v1 (elliptic curve) or RSA_v1 */
  version: 'EC_v1' | 'RSA_v1';
  /** base64: the encrypted payment data */
  data: string;
  /** base64: Apple's detached PKCS #7 signature */
  signature: string;
  header: {
    /** base64 X.509 SubjectPublicKeyInfo of the device's ephemeral P-256 key (EC_v1) */
    ephemeralPublicKey?: string;
    /** base64 SHA-256 of the merchant public key the data was encrypted for */
    publicKeyHash: string;
    /** hex, unique per payment */
    transactionId: string;
    /** hex SHA-256 of the payment request's applicationData, when it had one */
    applicationData?: string;
    /** base64: the wrapped symmetric key (RSA_v1) */
    wrappedKey?: string;
  };
}

/** A card tokenised by the customer's Apple device. */
export interface ApplePayPaymentMethod {
  type: 'apple_pay';
  paymentData: ApplePayPaymentData;
}

/** A payment with the consumer's Paidy token (Paidy's token flow: consent given once in Paidy Checkout). */
export interface PaidyPaymentMethod {
  type: 'paidy';
  /** `tok_…` */
  tokenId: string;
  shippingAddress: { line1?: string; line2?: string; city?: string; state?: string; zip: string };
  /** the token's email (Paidy's buyer data), when it has one */
  buyerEmail: string | null;
}

export interface ThreeDsRequest {
  mode: ThreeDsMode;
  /** where the customer's browser goes after authenticating */
  redirectEndpoint?: string;
  /** where the processor posts the signed result of the authentication */
  callbackUrl?: string;
  /**
   * where a hosted processor (KOMOJU, Stripe) sends the customer's browser back after
   * authenticating: Kessai's return route (GET /processor/three_ds/return/{reference}), which
   * nudges the charge and forwards the browser to `redirectEndpoint`. Without it such a processor
   * cannot redirect, and a card it wants to authenticate is declined.
   */
  returnUrl?: string;
}

export interface AuthorizeRequest {
  /** our charge id: the idempotency key of the authorization and the key of `status` lookups */
  reference: string;
  amount: number;
  currency: string;
  /** true: capture at once (charge `successful`); false: hold the amount (charge `authorized`) */
  capture: boolean;
  paymentMethod: CardPaymentMethod | QrScanPaymentMethod | ApplePayPaymentMethod | PaidyPaymentMethod;
  threeDs?: ThreeDsRequest;
  descriptor?: string;
}

/** ThreeDsIssuerToken (api-reference §5.1): what the customer's browser must open to authenticate. */
export interface ThreeDsChallenge {
  issuerToken: string;
  callMethod: 'http_get' | 'http_post';
  payload: Record<string, string>;
  contentType: string;
}

export type AuthorizeResult =
  | { outcome: 'approved'; processorReference: string; captured: boolean }
  | { outcome: 'declined'; processorReference: string; error: PaymentErrorDetails }
  | { outcome: 'three_ds_required'; processorReference: string; threeDs: ThreeDsChallenge };

export interface CaptureRequest {
  processorReference: string;
  /** our capture's id */
  idempotencyKey: string;
  /** at most the authorized amount; less is a partial capture */
  amount: number;
  currency: string;
}

export type CaptureResult =
  { outcome: 'captured'; capturedAmount: number } | { outcome: 'rejected'; error: PaymentErrorDetails };

export interface VoidRequest {
  processorReference: string;
  /** our cancel's id */
  idempotencyKey: string;
}

export type VoidResult = { outcome: 'voided' } | { outcome: 'rejected'; error: PaymentErrorDetails };

export interface RefundRequest {
  processorReference: string;
  /** our refund's id */
  idempotencyKey: string;
  amount: number;
  currency: string;
}

export type RefundResult =
  | { outcome: 'refunded'; refundReference: string; amount: number }
  | { outcome: 'rejected'; error: PaymentErrorDetails };

/** A payment the customer completes at an online or QR operator (PayPay, Alipay, WeChat Pay…). */
export interface OperatorPaymentRequest {
  /** our charge id: the idempotency key and the key of `status` lookups */
  reference: string;
  amount: number;
  currency: string;
  /** OnlineBrand or QRBrand wire name, e.g. pay_pay_online */
  brand: string;
  callMethod?: OperatorCallMethod;
  /** where the operator posts the signed notice that the payment was paid or expired */
  callbackUrl: string;
  /** where the customer's browser goes after paying */
  returnUrl?: string;
}

export interface OperatorPaymentResult {
  processorReference: string;
  operatorPaymentId: string;
  /** the page the customer pays on: the charge's issuer_token */
  paymentUrl: string;
  /** what a merchant-presented QR code encodes */
  qrContent: string;
  callMethod: 'http_get' | 'http_post';
  expiresAt: Date;
}

/** How the customer of a deferred payment pays: into a virtual bank account, or at a convenience store. */
export type DeferredPaymentMethod =
  | { type: 'bank_transfer'; /** BankTransferBrand */ brand: string }
  | {
      type: 'konbini';
      /** ConvenienceStore */
      convenienceStore: string;
      customerName: string;
      phoneNumber: string | null;
    };

/** A payment the customer makes later by bank transfer or at a konbini (docs/bank-transfer-and-konbini.md). */
export interface DeferredPaymentRequest {
  /** our charge id: the idempotency key and the key of `status` lookups */
  reference: string;
  amount: number;
  currency: string;
  method: DeferredPaymentMethod;
  /** the charge's payment deadline, shown to the customer; Kessai itself voids the payment past it */
  expiresOn: Date;
  /** where the processor posts the signed notice that money arrived */
  callbackUrl: string;
  /** the customer's email, for processors that send the instructions themselves (KOMOJU requires it) */
  customerEmail?: string | null;
}

/** Where the customer sends the money. */
export type PaymentInstructions =
  | {
      type: 'bank_transfer';
      bankCode: string;
      bankName: string;
      branchCode: string;
      branchName: string;
      accountId: string;
      accountNumber: string;
      accountHolderName: string;
      /** the bank's transfer page, the account filled in */
      paymentUrl: string;
    }
  | {
      type: 'konbini';
      convenienceStore: string;
      paymentCode: string;
      receiptNumber: string;
      /** the payment slip page */
      paymentUrl: string;
    };

export interface DeferredPaymentResult {
  processorReference: string;
  instructions: PaymentInstructions;
}

/** Money received for a deferred payment: each transfer into its account, each payment of its code. */
export interface ProcessorDeposit {
  id: string;
  amount: number;
  receivedOn: Date;
}

export type ProcessorPaymentStatus =
  /** waiting for the customer's 3-D Secure authentication */
  | 'pending_authentication'
  /** an operator or deferred payment waiting for the customer to pay */
  | 'awaiting_payment'
  | 'authorized'
  | 'captured'
  | 'declined'
  | 'voided'
  /** an operator payment nobody paid in time */
  | 'expired';

export interface ProcessorPayment {
  processorReference: string;
  reference: string;
  kind: 'card' | 'qr_scan' | 'operator' | 'bank_transfer' | 'konbini';
  status: ProcessorPaymentStatus;
  amount: number;
  currency: string;
  capturedAmount: number;
  refundedAmount: number;
  error: PaymentErrorDetails | null;
  /** deferred payments: the money received so far, oldest first (the processor decides no match) */
  deposits: ProcessorDeposit[];
}

/** `found: false` means the processor never executed anything under this reference. */
export type PaymentStatusResult = { found: false } | { found: true; payment: ProcessorPayment };
