/**
 * Paidy in test mode (docs/processor-simulator.md, "Paidy"; decision 0068). The simulator plays
 * Paidy: its checkout authorizes a consumer for the merchant's test public key and gives a token
 * (`tok_…`), which the merchant's charges pay with.
 */

/** The test-mode Paidy public key (Paidy Checkout's `api_key`): checkout_info's paidy_public_key in test mode. */
export const PAIDY_TEST_PUBLIC_KEY = 'pk_test_kessai_simulator';

/**
 * Paidy's own test consumers ("Testing Paidy", paidy.com/docs): the email decides the outcome, the
 * phone is 08000000001 and the authorization code (the SMS Paidy sends) 8888.
 */
export const PAIDY_TEST_CONSUMERS = {
  approved: 'successful.payment@paidy.com',
  rejected: 'rejected.payment@paidy.com',
} as const;
export const PAIDY_TEST_PHONE = '08000000001';
export const PAIDY_TEST_AUTHORIZATION_CODE = '8888';
