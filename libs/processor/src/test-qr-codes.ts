/**
 * Consumer-presented codes (what a customer's wallet app shows, scanned by the merchant) that the
 * simulator recognises. Any other code is refused as invalid, like a real operator would.
 */
export type TestQrOutcome = 'approved' | 'declined' | 'insufficient_funds' | 'code_expired';

export interface TestQrCode {
  code: string;
  outcome: TestQrOutcome;
  description: string;
}

export const TEST_QR_CODES: readonly TestQrCode[] = [
  { code: '280000000000000001', outcome: 'approved', description: 'approved' },
  {
    code: '280000000000000002',
    outcome: 'declined',
    description: 'refused by the wallet (PAYMENT_WALLET_REJECTED)',
  },
  {
    code: '280000000000000003',
    outcome: 'insufficient_funds',
    description: 'wallet balance too low (PAYMENT_WALLET_INSUFFICIENT_FUNDS)',
  },
  {
    code: '280000000000000004',
    outcome: 'code_expired',
    description: 'the code timed out (PAYMENT_CODE_EXPIRED)',
  },
];

export function findTestQrCode(code: string): TestQrCode | undefined {
  return TEST_QR_CODES.find((entry) => entry.code === code.trim());
}
