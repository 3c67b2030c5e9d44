/**
 * A bank-transfer or konbini charge's payment instructions as the consumer reads them
 * (docs/hosted-checkout.md, "Bank transfer and konbini"): the lines the link page shows after the
 * payment and the instructions mail repeats, from one place, so that both say the same. The data is
 * the charge's issuer token payload (charge-service writes it when the processor gives out the
 * virtual account or the payment code); the deadline is the charge's current one, in the store's
 * display time zone.
 */

export type InstructionsLang = 'en' | 'ja';

/** The `payload` of a deferred charge's issuer token (docs/bank-transfer-and-konbini.md). */
export interface DeferredInstructionsPayload {
  bank_code?: string;
  bank_name?: string;
  branch_code?: string;
  branch_name?: string;
  account_id?: string;
  account_number?: string;
  account_holder_name?: string;
  convenience_store?: string;
  payment_code?: string;
  receipt_number?: string;
}

export interface PaymentInstructionsInput {
  paymentType: 'bank_transfer' | 'konbini';
  payload: DeferredInstructionsPayload;
  amount: bigint | number;
  currency: string;
  /** the charge's payment deadline (charges.expires_on: extensions included) */
  deadline: Date | null;
  /** the store's display_time_zone (IANA), e.g. Asia/Tokyo */
  timeZone: string;
}

export interface InstructionLine {
  key: string;
  label: string;
  value: string;
}

export interface PaymentInstructions {
  payment_type: 'bank_transfer' | 'konbini';
  title: string;
  intro: string;
  lines: InstructionLine[];
}

const CONVENIENCE_STORE_NAMES: Record<string, { en: string; ja: string }> = {
  seven_eleven: { en: 'Seven-Eleven', ja: 'セブン-イレブン' },
  family_mart: { en: 'FamilyMart', ja: 'ファミリーマート' },
  lawson: { en: 'Lawson', ja: 'ローソン' },
  mini_stop: { en: 'Ministop', ja: 'ミニストップ' },
  seico_mart: { en: 'Seicomart', ja: 'セイコーマート' },
  pay_easy: { en: 'Pay-easy', ja: 'ペイジー' },
  circle_k: { en: 'Circle K', ja: 'サークルK' },
  sunkus: { en: 'Sunkus', ja: 'サンクス' },
  daily_yamazaki: { en: 'Daily Yamazaki', ja: 'デイリーヤマザキ' },
  yamazaki_daily_store: { en: 'Yamazaki Daily Store', ja: 'ヤマザキデイリーストアー' },
};

/** A convenience store's name in the consumer's language (its API name when unknown). */
export function convenienceStoreName(store: string, lang: InstructionsLang): string {
  return CONVENIENCE_STORE_NAMES[store]?.[lang] ?? store;
}

const LABELS = {
  en: {
    bankTitle: 'Pay by bank transfer',
    bankIntro:
      'Transfer the amount below to this account before the deadline. The account is yours alone for this payment.',
    konbiniTitle: 'Pay at a convenience store',
    konbiniIntro: 'Pay the amount below at the store named here before the deadline, with the payment code.',
    bank: 'Bank',
    branch: 'Branch',
    accountNumber: 'Account number (ordinary)',
    accountHolder: 'Account holder',
    store: 'Convenience store',
    paymentCode: 'Payment code',
    receiptNumber: 'Receipt number',
    amount: 'Amount',
    deadline: 'Pay by',
  },
  ja: {
    bankTitle: '銀行振込でのお支払い',
    bankIntro:
      '下記の金額を、お支払い期限までに次の口座へお振り込みください。この口座はこのお支払い専用です。',
    konbiniTitle: 'コンビニでのお支払い',
    konbiniIntro: '下記の金額を、お支払い期限までに次のコンビニで払込番号を使ってお支払いください。',
    bank: '銀行',
    branch: '支店',
    accountNumber: '口座番号（普通）',
    accountHolder: '口座名義',
    store: 'コンビニ',
    paymentCode: '払込番号',
    receiptNumber: '受付番号',
    amount: '金額',
    deadline: 'お支払い期限',
  },
} as const;

/** An amount in minor units as the consumer reads it (¥1,500). */
function formatMoney(amount: bigint | number, currency: string, lang: InstructionsLang): string {
  const locale = lang === 'ja' ? 'ja-JP' : 'en-US';
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
    return format.format(Number(amount) / 10 ** digits);
  } catch {
    return `${amount.toString()} ${currency}`;
  }
}

/** A deadline in the store's time zone, with the zone named (1 December 2026 at 23:59 GMT+9). */
export function formatDeadline(deadline: Date, timeZone: string, lang: InstructionsLang): string {
  const options: Intl.DateTimeFormatOptions = {
    timeZone,
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  };
  try {
    return new Intl.DateTimeFormat(lang === 'ja' ? 'ja-JP' : 'en-GB', options).format(deadline);
  } catch {
    return deadline.toISOString();
  }
}

/** The lines of a deferred charge's instructions, in the consumer's language. */
export function paymentInstructions(
  input: PaymentInstructionsInput,
  lang: InstructionsLang,
): PaymentInstructions {
  const l = LABELS[lang];
  const p = input.payload;
  const line = (key: string, label: string, value: string | undefined | null): InstructionLine[] =>
    value ? [{ key, label, value }] : [];
  const money = line('amount', l.amount, formatMoney(input.amount, input.currency, lang));
  const deadline = line(
    'deadline',
    l.deadline,
    input.deadline ? formatDeadline(input.deadline, input.timeZone, lang) : null,
  );
  if (input.paymentType === 'bank_transfer')
    return {
      payment_type: 'bank_transfer',
      title: l.bankTitle,
      intro: l.bankIntro,
      lines: [
        ...line('bank', l.bank, p.bank_name && p.bank_code ? `${p.bank_name} (${p.bank_code})` : p.bank_name),
        ...line(
          'branch',
          l.branch,
          p.branch_name && p.branch_code ? `${p.branch_name} (${p.branch_code})` : p.branch_name,
        ),
        ...line('account_number', l.accountNumber, p.account_number),
        ...line('account_holder', l.accountHolder, p.account_holder_name),
        ...money,
        ...deadline,
      ],
    };
  return {
    payment_type: 'konbini',
    title: l.konbiniTitle,
    intro: l.konbiniIntro,
    lines: [
      ...line('store', l.store, p.convenience_store ? convenienceStoreName(p.convenience_store, lang) : null),
      ...line('payment_code', l.paymentCode, p.payment_code),
      ...line('receipt_number', l.receiptNumber, p.receipt_number),
      ...money,
      ...deadline,
    ],
  };
}

/** The instructions mail: a subject and a plain-text body (no HTML: nothing to render or inject). */
export function paymentInstructionsMail(
  input: PaymentInstructionsInput & { storeName: string },
  lang: InstructionsLang,
): { subject: string; text: string } {
  const instructions = paymentInstructions(input, lang);
  const subject =
    lang === 'ja'
      ? `【${input.storeName}】${instructions.title}のご案内`
      : `${input.storeName}: ${instructions.title.toLowerCase().replace(/^pay/, 'how to pay')}`;
  const text = [
    instructions.intro,
    '',
    ...instructions.lines.map((entry) => `${entry.label}: ${entry.value}`),
    '',
    lang === 'ja'
      ? `このメールは ${input.storeName} でのお支払いについて Kessai がお送りしています。`
      : `Kessai sends this email about your payment to ${input.storeName}.`,
    '',
  ].join('\n');
  return { subject, text };
}
