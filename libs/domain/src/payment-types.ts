/**
 * The payment types (api-reference's PaymentType) and what each one is to Kessai: whether it can be
 * tokenised and charged today, paid later outside (bank transfer, konbini), refunded, held for a
 * later capture, and whether its processor request carries the charge's descriptor. Every rule that
 * depends on a payment type reads it here, the SQL included.
 */
export const PAYMENT_TYPES = [
  'card',
  'qr_scan',
  'konbini',
  'apple_pay',
  'paidy',
  'qr_merchant',
  'online',
  'bank_transfer',
] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

export interface PaymentTypeDescriptor {
  /** a token of this type may be created and charged; the others answer PAYMENT_TYPE_NOT_SUPPORTED */
  readonly chargeable: boolean;
  /** paid later by the customer, outside (docs/bank-transfer-and-konbini.md): a deadline, in yen */
  readonly deferred: boolean;
  /** a successful charge may be refunded (money paid at a bank or a konbini is not given back by us) */
  readonly refundable: boolean;
  /** may be authorized only (capture: false) and captured later */
  readonly authCapture: boolean;
  /** the processor request carries the charge's descriptor (an operator's page takes none) */
  readonly dynamicDescriptor: boolean;
}

const PAID_LATER: PaymentTypeDescriptor = {
  chargeable: true,
  deferred: true,
  refundable: false,
  authCapture: false,
  dynamicDescriptor: false,
};

export const PAYMENT_TYPE_DESCRIPTORS: Readonly<Record<PaymentType, PaymentTypeDescriptor>> = {
  card: { chargeable: true, deferred: false, refundable: true, authCapture: true, dynamicDescriptor: true },
  qr_scan: {
    chargeable: true,
    deferred: false,
    refundable: true,
    authCapture: false,
    dynamicDescriptor: true,
  },
  online: {
    chargeable: true,
    deferred: false,
    refundable: true,
    authCapture: false,
    dynamicDescriptor: false,
  },
  bank_transfer: PAID_LATER,
  konbini: PAID_LATER,
  // a code the merchant shows and the consumer's wallet scans: the operator takes it whole
  qr_merchant: {
    chargeable: true,
    deferred: false,
    refundable: true,
    authCapture: false,
    dynamicDescriptor: false,
  },
  // a card the customer's device tokenised: its encrypted payment data opened by the processor, then
  // authorized as a card (a hold and a later capture, a descriptor), the device's cryptogram the
  // authentication (docs/transaction-tokens.md, "Apple Pay")
  apple_pay: {
    chargeable: true,
    deferred: false,
    refundable: true,
    authCapture: true,
    dynamicDescriptor: true,
  },
  // a consumer's Paidy token (authorized in Paidy's checkout): Paidy authorizes each payment, which
  // is captured now or later; Paidy's payment takes no descriptor (docs/transaction-tokens.md, "Paidy")
  paidy: {
    chargeable: true,
    deferred: false,
    refundable: true,
    authCapture: true,
    dynamicDescriptor: false,
  },
};

/** Payment types that can be tokenised and charged today (the descriptors' `chargeable`). */
export const CHARGEABLE_PAYMENT_TYPES = [
  'card',
  'apple_pay',
  'paidy',
  'qr_scan',
  'qr_merchant',
  'online',
  'bank_transfer',
  'konbini',
] as const satisfies readonly PaymentType[];
export type ChargeablePaymentType = (typeof CHARGEABLE_PAYMENT_TYPES)[number];

/** Payment types paid later by the customer, outside (the descriptors' `deferred`). */
export const DEFERRED_PAYMENT_TYPES = [
  'bank_transfer',
  'konbini',
] as const satisfies readonly ChargeablePaymentType[];
export type DeferredPaymentType = (typeof DEFERRED_PAYMENT_TYPES)[number];

/** Payment types whose successful charges may be refunded (the descriptors' `refundable`). */
export const REFUNDABLE_PAYMENT_TYPES = [
  'card',
  'apple_pay',
  'paidy',
  'qr_scan',
  'qr_merchant',
  'online',
] as const satisfies readonly ChargeablePaymentType[];

/** Payment types whose processor request carries the charge's descriptor (`dynamicDescriptor`). */
export const DESCRIPTOR_PAYMENT_TYPES = [
  'card',
  'apple_pay',
  'qr_scan',
] as const satisfies readonly ChargeablePaymentType[];

const has = (set: readonly string[], type: string) => set.includes(type);

export function isChargeablePaymentType(type: string): type is ChargeablePaymentType {
  return has(CHARGEABLE_PAYMENT_TYPES, type);
}

export function isDeferredPaymentType(type: string): type is DeferredPaymentType {
  return has(DEFERRED_PAYMENT_TYPES, type);
}

export function isRefundablePaymentType(type: string): boolean {
  return has(REFUNDABLE_PAYMENT_TYPES, type);
}

/** A charge of this type may be authorized only and captured later (the descriptors' `authCapture`). */
export function holdsForCapture(type: string): boolean {
  return (
    (PAYMENT_TYPES as readonly string[]).includes(type) &&
    PAYMENT_TYPE_DESCRIPTORS[type as PaymentType].authCapture
  );
}

export function carriesDescriptor(type: string): boolean {
  return has(DESCRIPTOR_PAYMENT_TYPES, type);
}
