import {
  convenienceStoreName,
  formatDeadline,
  paymentInstructions,
  paymentInstructionsMail,
} from './payment-instructions';

const deadline = new Date('2026-12-08T14:59:59.000Z');
const bank = {
  paymentType: 'bank_transfer' as const,
  payload: {
    bank_code: '9999',
    bank_name: 'Kessai Test Bank',
    branch_code: '101',
    branch_name: 'Test Branch',
    account_number: '1234567',
    account_holder_name: 'KESSAI TEST',
  },
  amount: 1500n,
  currency: 'JPY',
  deadline,
  timeZone: 'Asia/Tokyo',
};

describe('payment instructions', () => {
  it('gives a bank transfer’s account, amount and deadline in the store’s time zone', () => {
    expect(paymentInstructions(bank, 'en').lines).toEqual([
      { key: 'bank', label: 'Bank', value: 'Kessai Test Bank (9999)' },
      { key: 'branch', label: 'Branch', value: 'Test Branch (101)' },
      { key: 'account_number', label: 'Account number (ordinary)', value: '1234567' },
      { key: 'account_holder', label: 'Account holder', value: 'KESSAI TEST' },
      { key: 'amount', label: 'Amount', value: '¥1,500' },
      { key: 'deadline', label: 'Pay by', value: '8 December 2026 at 23:59 GMT+9' },
    ]);
    // the same instant in another store's zone
    expect(formatDeadline(deadline, 'Europe/Paris', 'en')).toBe('8 December 2026 at 15:59 CET');
  });

  it('gives a konbini payment’s store, code and receipt number, in Japanese', () => {
    const konbini = {
      ...bank,
      paymentType: 'konbini' as const,
      payload: { convenience_store: 'family_mart', payment_code: '123456789012', receipt_number: '4242' },
    };
    const ja = paymentInstructions(konbini, 'ja');
    expect(ja.title).toBe('コンビニでのお支払い');
    expect(ja.lines.map((line) => [line.label, line.value])).toEqual([
      ['コンビニ', 'ファミリーマート'],
      ['払込番号', '123456789012'],
      ['受付番号', '4242'],
      ['金額', '￥1,500'],
      ['お支払い期限', '2026年12月8日 23:59 JST'],
    ]);
    expect(convenienceStoreName('corner_shop', 'en')).toBe('corner_shop');
  });

  it('leaves out what the processor did not give, and mails exactly the lines the page shows', () => {
    const bare = { ...bank, payload: { account_number: '7654321' }, deadline: null };
    expect(paymentInstructions(bare, 'en').lines.map((line) => line.key)).toEqual([
      'account_number',
      'amount',
    ]);
    const mail = paymentInstructionsMail({ ...bank, storeName: 'Acme' }, 'en');
    expect(mail.subject).toBe('Acme: how to pay by bank transfer');
    for (const line of paymentInstructions(bank, 'en').lines)
      expect(mail.text).toContain(`${line.label}: ${line.value}`);
  });
});
