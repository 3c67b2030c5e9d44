/** QRBrand wire names (api-reference §5.12) that a consumer-presented code can be recognised as. */
export type DetectedQrBrand = 'we_chat' | 'alipay';

interface QrCodeRange {
  brand: DetectedQrBrand;
  /** inclusive two-digit prefix range */
  from: number;
  to: number;
  lengths: readonly number[];
}

/**
 * Operators' published formats of the payment codes their apps show: WeChat Pay 18 digits starting
 * 10–15, Alipay 16–24 digits starting 25–30. Other operators' codes are accepted with brand null
 * until their formats are added here; the processor decides at the charge.
 */
const RANGES: readonly QrCodeRange[] = [
  { brand: 'we_chat', from: 10, to: 15, lengths: [18] },
  { brand: 'alipay', from: 25, to: 30, lengths: [16, 17, 18, 19, 20, 21, 22, 23, 24] },
];

/** The QR operators Kessai recognises a scanned code of (what GET /checkout_info offers). */
export const RECOGNISED_QR_BRANDS: readonly DetectedQrBrand[] = [...new Set(RANGES.map((r) => r.brand))];

export function detectQrBrand(code: string): DetectedQrBrand | null {
  if (!/^\d+$/.test(code)) return null;
  const prefix = Number(code.slice(0, 2));
  const match = RANGES.find((r) => prefix >= r.from && prefix <= r.to && r.lengths.includes(code.length));
  return match?.brand ?? null;
}
