import type { StoredTokenCvvAuthorize, TokenCvvAuthorizeRepository, TokenToCvvAuthorize } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import { paymentError, TransientProcessorError, type ProcessorPayment } from '@kessai/processor';
import { fakeCardProcessor, heldPayment } from '@kessai/testing';
import type { CardVault, PendingCvvStore } from '@kessai/vault';
import { RetryLaterError } from './retry-later';
import { TokenCvvAuthorizationService } from './token-cvv-authorization.service';

/** The decisions of TokenCvvAuthorizationService, with fakes for the repository, the processor and the vault. */

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const TOKEN_ID = '0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';
const REFERENCE = `${TOKEN_ID}.cvv_authorize.2`;

function token(cvvAuthorize: Partial<StoredTokenCvvAuthorize> = {}): TokenToCvvAuthorize {
  return {
    id: TOKEN_ID,
    mode: 'test',
    active: true,
    cvvAuthorize: { enabled: true, status: 'pending', currency: 'JPY', attempt: 2, ...cvvAuthorize },
    card: { cardholder: 'Taro Yamada', exp_month: 12, exp_year: 2040 },
    vault: { keyId: 'k1', iv: new Uint8Array(), ciphertext: new Uint8Array(), authTag: new Uint8Array() },
  };
}

const payment = (status: ProcessorPayment['status']) => heldPayment(REFERENCE, status, 'CARD_CVV_INVALID');

function setup(stored: TokenToCvvAuthorize | null, { cvv }: { cvv: string | null } = { cvv: '123' }) {
  const calls: string[] = [];
  const updates: { read: unknown; next: StoredTokenCvvAuthorize }[] = [];
  const { processors, authorized, routedTo, answerAuthorize, answerStatus } = fakeCardProcessor(calls);
  const repository = {
    findToAuthorize: () => Promise.resolve(stored),
    update: (_id: string, read: unknown, next: StoredTokenCvvAuthorize) => {
      calls.push('update');
      updates.push({ read, next });
      return Promise.resolve(true);
    },
  } as unknown as TokenCvvAuthorizeRepository;
  const vault = { decrypt: () => ({ reveal: () => '4242424242424242' }) } as unknown as CardVault;
  const cvvs = {
    read: () => Promise.resolve(cvv),
    peek: () => Promise.reject(new Error('the CVV authorization must not claim the CVV')),
    discard: () => Promise.reject(new Error('the CVV authorization must not discard the CVV')),
  } as unknown as PendingCvvStore;
  const service = new TokenCvvAuthorizationService(repository, processors, vault, cvvs, silent);
  return {
    service,
    calls,
    routedTo,
    authorized,
    updates,
    answerAuthorize,
    answerStatus,
  };
}

describe('TokenCvvAuthorizationService', () => {
  it('holds 1 of the token’s currency with the CVV under the attempt’s reference, voids it: current', async () => {
    const t = setup(token({ currency: 'USD' }));
    await t.service.authorizeTokenCvv(TOKEN_ID);
    expect(t.calls).toEqual(['authorize', `void ${REFERENCE}.void`, 'update']);
    const [request] = t.authorized;
    expect(request).toMatchObject({
      reference: REFERENCE,
      amount: 1,
      currency: 'USD',
      capture: false,
      threeDs: { mode: 'skip' },
    });
    expect(request?.paymentMethod.type === 'card' && request.paymentMethod.card.revealCvv()).toBe('123');
    expect(t.updates).toEqual([
      {
        read: { status: 'pending', attempt: 2 },
        next: expect.objectContaining({
          enabled: true,
          status: 'current',
          processor_reference: 'sim_pay_1',
          credentials_id: null,
          error: null,
        }),
      },
    ]);
  });

  it('holds and voids at the account the attempt was routed to, and keeps it (decision 0079)', async () => {
    const routed = setup({ ...token({ processor_account_id: 'acct_routed' }), mode: 'live' });
    await routed.service.authorizeTokenCvv(TOKEN_ID);
    expect(routed.calls).toEqual(['authorize', `void ${REFERENCE}.void`, 'update']);
    expect(routed.routedTo).toEqual(['acct_routed']);
    expect(routed.updates[0]?.next).toMatchObject({
      status: 'current',
      processor_account_id: 'acct_routed',
      credentials_id: null,
    });

    const unrouted = setup(token());
    await unrouted.service.authorizeTokenCvv(TOKEN_ID);
    expect(unrouted.routedTo).toEqual([null]);
  });
  it('a decline fails it with the processor’s error, and nothing is voided', async () => {
    const t = setup(token());
    t.answerAuthorize(() =>
      Promise.resolve({
        outcome: 'declined',
        processorReference: 'sim_pay_1',
        error: paymentError('CARD_CVV_INVALID'),
      }),
    );
    await t.service.authorizeTokenCvv(TOKEN_ID);
    expect(t.calls).toEqual(['authorize', 'update']);
    expect(t.updates[0]?.next).toMatchObject({ status: 'failed', error: { code: 305 } });
  });

  it('without the CVV (expired from Redis) fails at once, asking no processor', async () => {
    const t = setup(token(), { cvv: null });
    await t.service.authorizeTokenCvv(TOKEN_ID);
    expect(t.calls).toEqual(['update']);
    expect(t.updates[0]?.next).toMatchObject({ status: 'failed', error: { message: 'CARD_CVV_INVALID' } });
  });

  it('after a timeout: the processor’s record decides; none yet is a retry later, never a new reference', async () => {
    const t = setup(token());
    t.answerAuthorize(() => Promise.reject(new TransientProcessorError('authorize', 'timeout')));
    await expect(t.service.authorizeTokenCvv(TOKEN_ID)).rejects.toBeInstanceOf(RetryLaterError);
    expect(t.updates).toEqual([]);
    t.answerStatus({ found: true, payment: payment('authorized') });
    await t.service.authorizeTokenCvv(TOKEN_ID);
    expect(t.calls.slice(-2)).toEqual([`void ${REFERENCE}.void`, 'update']);
    expect(t.updates[0]?.next.status).toBe('current');
    expect(new Set(t.authorized.map((request) => request.reference))).toEqual(new Set([REFERENCE]));
  });

  it.each([
    ['current', token({ status: 'current' })],
    ['failed', token({ status: 'failed' })],
    ['disabled', token({ enabled: false, status: 'inactive' })],
    ['unknown', null],
  ])('leaves a %s token alone (a repeated job)', async (_label, stored) => {
    const t = setup(stored);
    await t.service.authorizeTokenCvv(TOKEN_ID);
    expect(t.calls).toEqual([]);
  });
});
