import {
  CHARGEABLE_PAYMENT_TYPES,
  DEFERRED_PAYMENT_TYPES,
  DESCRIPTOR_PAYMENT_TYPES,
  PAYMENT_TYPES,
  PAYMENT_TYPE_DESCRIPTORS,
  REFUNDABLE_PAYMENT_TYPES,
  carriesDescriptor,
  isChargeablePaymentType,
  isDeferredPaymentType,
  isRefundablePaymentType,
  holdsForCapture,
  type PaymentTypeDescriptor,
} from './payment-types';

const where = (trait: keyof PaymentTypeDescriptor) =>
  PAYMENT_TYPES.filter((type) => PAYMENT_TYPE_DESCRIPTORS[type][trait]).sort();

describe('payment types', () => {
  it('knows the eight payment types of the API', () => {
    expect([...PAYMENT_TYPES].sort()).toEqual(
      ['apple_pay', 'bank_transfer', 'card', 'konbini', 'online', 'paidy', 'qr_merchant', 'qr_scan'].sort(),
    );
  });

  it('charges cards, Apple Pay, Paidy, QR codes (scanned or shown), online operators, bank transfers and konbini payments', () => {
    expect([...CHARGEABLE_PAYMENT_TYPES].sort()).toEqual(where('chargeable'));
    expect(where('chargeable')).toEqual([
      'apple_pay',
      'bank_transfer',
      'card',
      'konbini',
      'online',
      'paidy',
      'qr_merchant',
      'qr_scan',
    ]);
    expect(PAYMENT_TYPES.filter(isChargeablePaymentType).sort()).toEqual(where('chargeable'));
  });

  it('has bank transfers and konbini payments paid later, outside, and never refunded', () => {
    expect([...DEFERRED_PAYMENT_TYPES].sort()).toEqual(where('deferred'));
    expect(where('deferred')).toEqual(['bank_transfer', 'konbini']);
    expect(PAYMENT_TYPES.filter(isDeferredPaymentType).sort()).toEqual(where('deferred'));
    expect([...REFUNDABLE_PAYMENT_TYPES].sort()).toEqual(where('refundable'));
    expect(where('refundable')).toEqual(['apple_pay', 'card', 'online', 'paidy', 'qr_merchant', 'qr_scan']);
    expect(PAYMENT_TYPES.filter(isRefundablePaymentType).sort()).toEqual(where('refundable'));
    for (const type of DEFERRED_PAYMENT_TYPES) expect(isRefundablePaymentType(type)).toBe(false);
  });

  it('holds cards (Apple Pay’s included) and Paidy payments for a later capture; passes a descriptor for cards and scanned QR codes', () => {
    expect(where('authCapture')).toEqual(['apple_pay', 'card', 'paidy']);
    expect(PAYMENT_TYPES.filter(holdsForCapture).sort()).toEqual(where('authCapture'));
    expect([...DESCRIPTOR_PAYMENT_TYPES].sort()).toEqual(where('dynamicDescriptor'));
    expect(where('dynamicDescriptor')).toEqual(['apple_pay', 'card', 'qr_scan']);
    expect(PAYMENT_TYPES.filter(carriesDescriptor).sort()).toEqual(where('dynamicDescriptor'));
  });

  it('answers no for a type it does not know', () => {
    for (const is of [
      isChargeablePaymentType,
      isDeferredPaymentType,
      isRefundablePaymentType,
      holdsForCapture,
      carriesDescriptor,
    ])
      expect(is('cash')).toBe(false);
  });
});
