import { type DetectableCardBrand } from './brands';
import { type CardIssuer, type CardType } from './bin-table';
import { normalizeCardNumber } from './card-number';

/**
 * What the processor simulator does with a card in test mode. The first four are UnivaPay's own
 * test-mode rules, which hold for every number (a card ending 1111 fails; …4242 succeeds but its
 * refund fails; …1881 succeeds but its cancel fails; any other succeeds); the others give every
 * failure path of a charge a catalogue card of its own.
 */
export type TestCardOutcome =
  /** authorization approved; capture, void and refund succeed */
  | 'approved'
  /** authorization declined by the issuer (CARD_REJECTED) */
  | 'declined'
  /** authorization approved; any later refund fails (REFUND_FAILED) */
  | 'refund_fails'
  /** authorization approved; any later void/cancel fails (CANCEL_UNAVAILABLE) */
  | 'void_fails'
  /** declined for lack of funds (PAYMENT_WALLET_INSUFFICIENT_FUNDS) */
  | 'insufficient_funds'
  /** declined as expired by the issuer, whatever expiry date was sent (CARD_EXPIRED) */
  | 'expired_at_processor'
  /** declined because the CVV does not match (CARD_CVV_INVALID) */
  | 'cvv_check_fails'
  /** the issuer demands 3-D Secure authentication before it decides */
  | 'three_ds_required'
  /** the processor approves but answers the first attempt too late: the client times out */
  | 'processor_timeout'
  /** the processor answers 503 to the first attempts, then approves */
  | 'processor_unavailable';

export interface TestCard extends CardIssuer {
  number: string;
  brand: DetectableCardBrand;
  outcome: TestCardOutcome;
  description: string;
}

/** UnivaPay's test cards are Japanese credit cards (its SDK's token fixture: visa, credit, JP). */
const JP_CREDIT: CardIssuer = { cardType: 'credit', country: 'JP' };
const issuer = (cardType: CardType, country: string | null): CardIssuer => ({ cardType, country });

const card = (
  number: string,
  brand: DetectableCardBrand,
  outcome: TestCardOutcome,
  description: string,
  { cardType, country }: CardIssuer = JP_CREDIT,
): TestCard => ({ number, brand, outcome, description, cardType, country });

/**
 * The test card catalogue: live mode refuses these numbers, the simulator gives them their scripted
 * outcome (`testCardOutcome`), tokens show their card_type and country, and
 * docs/processor-simulator.md documents them. Every number passes Luhn and the length rule of its
 * brand, and agrees with the BIN table wherever that table knows the range (test-cards.spec.ts).
 */
export const TEST_CARDS: readonly TestCard[] = [
  // UnivaPay's rules
  card('4111111111111111', 'visa', 'declined', 'ends in 1111: declined'),
  card('5555555555041111', 'mastercard', 'declined', 'ends in 1111: declined'),
  card('378282246301111', 'american_express', 'declined', 'ends in 1111: declined'),
  card('3530111333001111', 'jcb', 'declined', 'ends in 1111: declined'),
  card('4242424242424242', 'visa', 'refund_fails', 'approved; a later refund fails'),
  card('4012888888881881', 'visa', 'void_fails', 'approved; a later cancel (void) fails'),
  // one card per failure path
  card('4000000000009995', 'visa', 'insufficient_funds', 'declined: insufficient funds'),
  card('4000000000000069', 'visa', 'expired_at_processor', 'declined by the issuer as expired'),
  card('4000000000000127', 'visa', 'cvv_check_fails', 'declined: CVV check failed'),
  card('4000000000003220', 'visa', 'three_ds_required', '3-D Secure authentication required'),
  card('4000000000000408', 'visa', 'processor_timeout', 'approved, but the first answer comes too late'),
  card('4000000000040503', 'visa', 'processor_unavailable', 'HTTP 503 on the first attempts, then approved'),
  // generic numbers that are approved
  card('4000056655665556', 'visa', 'approved', 'approved (debit)', issuer('debit', 'JP')),
  card('4005550000000001', 'visa', 'approved', 'approved (issued in the US)', issuer('credit', 'US')),
  card('5555555555554444', 'mastercard', 'approved', 'approved'),
  card('2223003122003222', 'mastercard', 'approved', 'approved (2-series)', issuer('unknown', null)),
  card('5105105105105100', 'mastercard', 'approved', 'approved (prepaid: debit)', issuer('debit', 'US')),
  card('378282246310005', 'american_express', 'approved', 'approved (15 digits, 4-digit CVV)'),
  card('371449635398431', 'american_express', 'approved', 'approved', issuer('charge_card', 'US')),
  card('3530111333300000', 'jcb', 'approved', 'approved'),
  card('3566002020360505', 'jcb', 'approved', 'approved'),
  card('30569309025904', 'diners_club', 'approved', 'approved (14 digits)', issuer('charge_card', 'US')),
  card('36227206271667', 'diners_club', 'approved', 'approved (14 digits)'),
  card('6011111111111117', 'discover', 'approved', 'approved', issuer('credit', 'US')),
  card('6011000990139424', 'discover', 'approved', 'approved', issuer('credit', 'US')),
  card('6200000000000005', 'unionpay', 'approved', 'approved (debit)', issuer('debit', 'CN')),
  card('6250947000000006', 'unionpay', 'approved', 'approved', issuer('credit', 'CN')),
  card('6759649826438453', 'maestro', 'approved', 'approved (debit)', issuer('debit', 'GB')),
  card('5018000000000009', 'maestro', 'approved', 'approved (debit)', issuer('debit', 'NL')),
];

const BY_NUMBER = new Map(TEST_CARDS.map((entry) => [entry.number, entry]));

/** The catalogue entry for a card number (spaces and hyphens ignored), if it is a test card. */
export function findTestCard(cardNumber: string): TestCard | undefined {
  const digits = normalizeCardNumber(cardNumber);
  return digits === null ? undefined : BY_NUMBER.get(digits);
}

export function isTestCard(cardNumber: string): boolean {
  return findTestCard(cardNumber) !== undefined;
}

/** UnivaPay's test-mode rules for numbers outside the catalogue, by the last four digits. */
const UNIVAPAY_TEST_ENDINGS: ReadonlyMap<string, TestCardOutcome> = new Map([
  ['1111', 'declined'],
  ['4242', 'refund_fails'],
  ['1881', 'void_fails'],
]);

/**
 * What a card number does in test mode, the one rule the simulator follows: a catalogue card's
 * scripted outcome; otherwise UnivaPay's test environment (ending 1111 declined, 4242 refund fails,
 * 1881 cancel fails, anything else approved). Whether the number is a card at all (Luhn, length,
 * expiry) is checked before this, by the token API and again by the simulator's issuer.
 */
export function testCardOutcome(cardNumber: string): TestCardOutcome {
  const listed = findTestCard(cardNumber);
  if (listed) return listed.outcome;
  const digits = normalizeCardNumber(cardNumber) ?? '';
  return UNIVAPAY_TEST_ENDINGS.get(digits.slice(-4)) ?? 'approved';
}

/** The first test card with this outcome, for tests and examples that need "a card that does X". */
export function testCardFor(outcome: TestCardOutcome): TestCard {
  const found = TEST_CARDS.find((entry) => entry.outcome === outcome);
  if (!found) throw new Error(`no test card has outcome ${outcome}`);
  return found;
}
