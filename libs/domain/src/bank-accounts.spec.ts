import {
  checkBankAccountDeletion,
  initialBankAccountStatus,
  planBankAccountChange,
  planNewBankAccount,
  type HeldBankAccount,
} from './bank-accounts';
import { BusinessRuleError, ConflictError } from './errors';

const jpy1: HeldBankAccount = { id: 'a1', currency: 'JPY', primary: true, fingerprint: 'f1' };
const jpy2: HeldBankAccount = { id: 'a2', currency: 'JPY', primary: false, fingerprint: 'f2' };
const usd1: HeldBankAccount = { id: 'a3', currency: 'USD', primary: true, fingerprint: 'f3' };

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof ConflictError || error instanceof BusinessRuleError) return error.code;
    throw error;
  }
  return null;
};

describe('bank account rules', () => {
  it('verifies test accounts at once and leaves live ones new', () => {
    expect(initialBankAccountStatus('test')).toBe('verified');
    expect(initialBankAccountStatus('live')).toBe('new');
  });

  it("make a currency's first account its primary, whatever was asked", () => {
    expect(planNewBankAccount([usd1], { currency: 'JPY', fingerprint: 'n', primary: false })).toEqual({
      primary: true,
      demote: null,
    });
  });

  it('make a later account primary only when asked, demoting the previous one', () => {
    expect(planNewBankAccount([jpy1, usd1], { currency: 'JPY', fingerprint: 'n' })).toEqual({
      primary: false,
      demote: null,
    });
    expect(planNewBankAccount([jpy1, usd1], { currency: 'JPY', fingerprint: 'n', primary: true })).toEqual({
      primary: true,
      demote: 'a1',
    });
  });

  it('refuse the same account twice, on creation and on a change', () => {
    expect(codeOf(() => planNewBankAccount([jpy1], { currency: 'USD', fingerprint: 'f1' }))).toBe(
      'BANK_ACCOUNT_EXISTS',
    );
    expect(codeOf(() => planBankAccountChange([jpy1, jpy2], jpy2, { fingerprint: 'f1' }))).toBe(
      'BANK_ACCOUNT_EXISTS',
    );
    // its own number again is no conflict
    expect(planBankAccountChange([jpy1, jpy2], jpy2, { fingerprint: 'f2' })).toEqual({
      primary: false,
      demote: null,
    });
  });

  it('never leave a currency without its primary', () => {
    expect(codeOf(() => planBankAccountChange([jpy1, jpy2], jpy1, { primary: false }))).toBe(
      'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT',
    );
    expect(codeOf(() => checkBankAccountDeletion([jpy1, jpy2, usd1], jpy1))).toBe(
      'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT',
    );
    expect(codeOf(() => checkBankAccountDeletion([jpy1, usd1], jpy1))).toBeNull();
    expect(codeOf(() => checkBankAccountDeletion([jpy1, jpy2], jpy2))).toBeNull();
  });

  it('move the primary on request', () => {
    expect(planBankAccountChange([jpy1, jpy2], jpy2, { primary: true })).toEqual({
      primary: true,
      demote: 'a1',
    });
    expect(planBankAccountChange([jpy1, jpy2], jpy1, { primary: true })).toEqual({
      primary: true,
      demote: null,
    });
  });
});
