import type { AppConfig } from '@kessai/config';
import type { StoredTokenThreeDs, TokenThreeDsRepository, TokenToAuthenticate } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import {
  paymentError,
  TransientProcessorError,
  type ProcessorPayment,
  type VoidResult,
} from '@kessai/processor';
import { fakeCardProcessor, heldPayment } from '@kessai/testing';
import type { CardVault, PendingCvvStore } from '@kessai/vault';
import { RetryLaterError } from './retry-later';
import { TokenAuthenticationService } from './token-authentication.service';

/** The decisions of TokenAuthenticationService, with fakes for the repository, the processor and the vault. */

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const TOKEN_ID = '0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';

function token(threeDs: Partial<StoredTokenThreeDs> = {}): TokenToAuthenticate {
  return {
    id: TOKEN_ID,
    mode: 'test',
    active: true,
    threeDsExpired: false,
    threeDs: {
      enabled: true,
      status: 'pending',
      mode: 'normal',
      redirect_endpoint: 'https://shop.test/done',
      redirect_id: null,
      attempt: 1,
      ...threeDs,
    },
    card: { cardholder: 'Taro Yamada', exp_month: 12, exp_year: 2040 },
    vault: { keyId: 'k1', iv: new Uint8Array(), ciphertext: new Uint8Array(), authTag: new Uint8Array() },
  };
}

const payment = (status: ProcessorPayment['status']) =>
  heldPayment(`${TOKEN_ID}.three_ds.1`, status, 'THREE_DS_COULD_NOT_BE_COMPLETED');

function setup(stored: TokenToAuthenticate | null, { applied = [true] } = {}) {
  const calls: string[] = [];
  const updates: { read: unknown; next: StoredTokenThreeDs }[] = [];
  const { processors, authorized, routedTo, answerAuthorize, answerStatus, answerVoid } =
    fakeCardProcessor(calls);
  const repository = {
    findToAuthenticate: () => Promise.resolve(stored),
    update: (_id: string, read: unknown, next: StoredTokenThreeDs) => {
      calls.push('update');
      // a copy: the service may go on from the same read object
      updates.push({ read: { ...(read as object) }, next });
      // each update the next answer, the last one from then on
      return Promise.resolve(applied.length > 1 ? applied.shift()! : applied[0]);
    },
  } as unknown as TokenThreeDsRepository;
  const vault = { decrypt: () => ({ reveal: () => '4000000000003220' }) } as unknown as CardVault;
  const cvvs = {
    read: () => {
      calls.push('read cvv');
      return Promise.resolve('123');
    },
    peek: () => Promise.reject(new Error('the authentication must not claim the CVV')),
    discard: () => Promise.reject(new Error('the authentication must not discard the CVV')),
  } as unknown as PendingCvvStore;
  const config = { CHARGE_AWAITING_EXPIRY_SECONDS: 1200 } as AppConfig;
  const service = new TokenAuthenticationService(repository, processors, vault, cvvs, silent, config);
  return {
    service,
    calls,
    routedTo,
    authorized,
    updates,
    answerAuthorize,
    answerStatus,
    // the expiry's void answers as told, any other void voids
    answerExpiryVoid: (answer: VoidResult) =>
      answerVoid((key) => (key.endsWith('.expiry') ? answer : { outcome: 'voided' })),
  };
}

describe('TokenAuthenticationService', () => {
  it('asks for a challenge with a held 1 JPY under the attempt’s reference, and keeps the issuer page', async () => {
    const t = setup(token({ mode: 'force' }));
    t.answerAuthorize(() =>
      Promise.resolve({
        outcome: 'three_ds_required',
        processorReference: 'sim_pay_1',
        threeDs: {
          issuerToken: 'https://sim/3ds/1',
          callMethod: 'http_get',
          payload: {},
          contentType: 'text/html',
        },
      }),
    );
    const before = Date.now();
    await t.service.authenticateToken(TOKEN_ID);
    const after = Date.now();
    expect(t.authorized[0]).toMatchObject({
      reference: `${TOKEN_ID}.three_ds.1`,
      amount: 1,
      currency: 'JPY',
      capture: false,
      threeDs: { mode: 'force', redirectEndpoint: 'https://shop.test/done' },
    });
    expect(t.calls).toEqual(['read cvv', 'authorize', 'update']);
    expect(t.updates[0]).toMatchObject({
      read: { status: 'pending', attempt: 1 },
      next: { status: 'awaiting', issuer_token: { issuer_token: 'https://sim/3ds/1' }, attempt: 1 },
    });
    // it expires CHARGE_AWAITING_EXPIRY_SECONDS after it became awaiting
    const expiresOn = Date.parse(t.updates[0]?.next.expires_on ?? '');
    expect(expiresOn).toBeGreaterThanOrEqual(before + 1_200_000);
    expect(expiresOn).toBeLessThanOrEqual(after + 1_200_000);
  });

  it('voids an approval without a challenge and records successful', async () => {
    const t = setup(token());
    await t.service.authenticateToken(TOKEN_ID);
    expect(t.calls).toEqual(['read cvv', 'authorize', `void ${TOKEN_ID}.three_ds.1.void`, 'update']);
    expect(t.updates[0]?.next).toMatchObject({ status: 'successful', issuer_token: null, error: null });
  });

  it('sends every call of an attempt to the account it was routed to, and keeps that account (decision 0079)', async () => {
    const started = setup(token({ processor_account_id: 'acct_routed' }));
    await started.service.authenticateToken(TOKEN_ID);
    expect(started.calls).toEqual(['read cvv', 'authorize', `void ${TOKEN_ID}.three_ds.1.void`, 'update']);
    expect(started.routedTo).toEqual(['acct_routed']);
    expect(started.updates[0]?.next).toMatchObject({
      status: 'successful',
      processor_account_id: 'acct_routed',
    });

    // the lookup after the cardholder's notice and the void go there too, not to the mode's default
    const awaiting = setup(token({ status: 'awaiting', processor_account_id: 'acct_routed' }));
    awaiting.answerStatus({ found: true, payment: payment('authorized') });
    await awaiting.service.authenticateToken(TOKEN_ID);
    expect(awaiting.calls).toEqual([
      `status ${TOKEN_ID}.three_ds.1`,
      `void ${TOKEN_ID}.three_ds.1.void`,
      'update',
    ]);
    expect(awaiting.routedTo).toEqual(['acct_routed']);

    // an attempt of a live token routed to an account needs no live default
    const live = setup({ ...token({ processor_account_id: 'acct_live' }), mode: 'live' });
    await live.service.authenticateToken(TOKEN_ID);
    expect(live.updates[0]?.next).toMatchObject({ status: 'successful' });

    // no account recorded (made before routing, or on the default): the mode's default
    const unrouted = setup(token());
    await unrouted.service.authenticateToken(TOKEN_ID);
    expect(unrouted.routedTo).toEqual([null]);
  });

  it('records a decline as failed with the payment error', async () => {
    const t = setup(token());
    t.answerAuthorize(() =>
      Promise.resolve({
        outcome: 'declined',
        processorReference: 'sim_pay_1',
        error: paymentError('CARD_REJECTED'),
      }),
    );
    await t.service.authenticateToken(TOKEN_ID);
    expect(t.updates[0]?.next).toMatchObject({ status: 'failed', error: { code: 306 } });
  });

  it('awaiting: looks the attempt up; authenticated → voided → successful; declined → failed; waiting → nothing', async () => {
    const authenticated = setup(token({ status: 'awaiting', attempt: 2 }));
    authenticated.answerStatus({ found: true, payment: payment('authorized') });
    await authenticated.service.authenticateToken(TOKEN_ID);
    expect(authenticated.calls).toEqual([
      `status ${TOKEN_ID}.three_ds.2`,
      `void ${TOKEN_ID}.three_ds.2.void`,
      'update',
    ]);
    expect(authenticated.updates[0]).toMatchObject({
      read: { status: 'awaiting', attempt: 2 },
      next: { status: 'successful' },
    });

    const declined = setup(token({ status: 'awaiting' }));
    declined.answerStatus({ found: true, payment: payment('declined') });
    await declined.service.authenticateToken(TOKEN_ID);
    expect(declined.updates[0]?.next).toMatchObject({ status: 'failed', error: { code: 358 } });

    const waiting = setup(token({ status: 'awaiting' }));
    waiting.answerStatus({ found: true, payment: payment('pending_authentication') });
    await waiting.service.authenticateToken(TOKEN_ID);
    expect(waiting.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`]);
  });

  describe('an awaiting authentication past its deadline', () => {
    const expired = (threeDs: Partial<StoredTokenThreeDs> = {}): TokenToAuthenticate => ({
      ...token({ status: 'awaiting', ...threeDs }),
      threeDsExpired: true,
    });

    it('still waiting: the decision written first, then the hold voided (its own key) and the token failed', async () => {
      const t = setup(expired());
      t.answerStatus({ found: true, payment: payment('pending_authentication') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toEqual([
        `status ${TOKEN_ID}.three_ds.1`,
        'update',
        `void ${TOKEN_ID}.three_ds.1.expiry`,
        'update',
      ]);
      expect(t.updates[0]).toMatchObject({
        read: { status: 'awaiting', attempt: 1, expiring: false, enabled: null },
        next: { status: 'awaiting', expiring: true },
      });
      expect(t.updates[1]).toMatchObject({
        read: { status: 'awaiting', attempt: 1, expiring: true },
        next: {
          status: 'failed',
          error: { code: 358 },
          issuer_token: null,
          expires_on: null,
          expiring: null,
        },
      });
    });

    it('a run after the void (a crash before the record): the voided payment is expired, not authenticated', async () => {
      const t = setup(expired({ expiring: true }));
      t.answerStatus({ found: true, payment: payment('voided') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`, 'update']);
      expect(t.updates[0]).toMatchObject({
        read: { expiring: true },
        next: { status: 'failed', error: { code: 358 } },
      });
      // while a voided payment without the marker is an authentication released
      const released = setup(token({ status: 'awaiting' }));
      released.answerStatus({ found: true, payment: payment('voided') });
      await released.service.authenticateToken(TOKEN_ID);
      expect(released.updates[0]?.next).toMatchObject({ status: 'successful' });
    });

    it('the decision not written (the token moved meanwhile): nothing voided', async () => {
      const t = setup(expired(), { applied: [false] });
      t.answerStatus({ found: true, payment: payment('pending_authentication') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`, 'update']);
    });

    it('completed meanwhile (the void refused): the processor’s record decides', async () => {
      const t = setup(expired());
      t.answerStatus(
        { found: true, payment: payment('pending_authentication') },
        { found: true, payment: payment('authorized') },
      );
      t.answerExpiryVoid({ outcome: 'rejected', error: paymentError('PROCESSING_ERROR') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toEqual([
        `status ${TOKEN_ID}.three_ds.1`,
        'update',
        `void ${TOKEN_ID}.three_ds.1.expiry`,
        `status ${TOKEN_ID}.three_ds.1`,
        `void ${TOKEN_ID}.three_ds.1.void`,
        'update',
      ]);
      expect(t.updates[1]?.next).toMatchObject({ status: 'successful' });
    });

    it('the void refused while still waiting: failed all the same, the sweep not held up', async () => {
      const t = setup(expired());
      t.answerStatus({ found: true, payment: payment('pending_authentication') });
      t.answerExpiryVoid({ outcome: 'rejected', error: paymentError('PROCESSING_ERROR') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toEqual([
        `status ${TOKEN_ID}.three_ds.1`,
        'update',
        `void ${TOKEN_ID}.three_ds.1.expiry`,
        `status ${TOKEN_ID}.three_ds.1`,
        'update',
      ]);
      expect(t.updates[1]?.next).toMatchObject({ status: 'failed', error: { code: 358 } });
    });

    it('a token awaiting since before deadlines were stored gets one with its decision', async () => {
      const t = setup(expired());
      t.answerStatus({ found: true, payment: payment('pending_authentication') });
      const before = Date.now();
      await t.service.authenticateToken(TOKEN_ID);
      const stored = Date.parse(t.updates[0]?.next.expires_on ?? '');
      expect(stored).toBeGreaterThanOrEqual(before);
      expect(stored).toBeLessThanOrEqual(Date.now());
      // one it had is kept
      const dated = setup(expired({ expires_on: '2026-01-01T00:00:00.000Z' }));
      dated.answerStatus({ found: true, payment: payment('pending_authentication') });
      await dated.service.authenticateToken(TOKEN_ID);
      expect(dated.updates[0]?.next.expires_on).toBe('2026-01-01T00:00:00.000Z');
    });

    it('authenticated just before: successful, nothing expired', async () => {
      const t = setup(expired());
      t.answerStatus({ found: true, payment: payment('authorized') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).not.toContain(`void ${TOKEN_ID}.three_ds.1.expiry`);
      expect(t.updates[0]?.next).toMatchObject({ status: 'successful' });
    });

    it('unknown to the processor, or no processor for its mode: failed, nothing to void', async () => {
      const unknown = setup(expired());
      await unknown.service.authenticateToken(TOKEN_ID);
      expect(unknown.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`, 'update']);
      expect(unknown.updates[0]?.next).toMatchObject({ status: 'failed', error: { code: 358 } });

      const noProcessor = setup({ ...expired(), mode: 'live' });
      await noProcessor.service.authenticateToken(TOKEN_ID);
      expect(noProcessor.calls).toEqual(['update']);
      expect(noProcessor.updates[0]?.next).toMatchObject({ status: 'failed' });
    });

    it('a disabled token’s awaiting authentication expires too (its hold is not left behind)', async () => {
      const t = setup(expired({ enabled: false }));
      t.answerStatus({ found: true, payment: payment('pending_authentication') });
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toContain(`void ${TOKEN_ID}.three_ds.1.expiry`);
      expect(t.updates[1]?.next).toMatchObject({ status: 'failed', enabled: false });
    });
  });

  it('does nothing for a final, disabled or unknown token (a repeated job, a late notice)', async () => {
    for (const stored of [
      token({ status: 'successful' }),
      token({ status: 'failed' }),
      token({ enabled: false }),
      null,
    ]) {
      const t = setup(stored);
      await t.service.authenticateToken(TOKEN_ID);
      expect(t.calls).toEqual([]);
    }
  });

  it('records what the processor did whatever the merchant switched meanwhile (enabled not compared)', async () => {
    const t = setup(token());
    await t.service.authenticateToken(TOKEN_ID);
    expect(t.updates[0]?.read).toEqual({ status: 'pending', attempt: 1, expiring: false, enabled: null });
  });

  it('a failed token the cardholder completed late (its expiry void refused): the hold voided, the token left failed', async () => {
    const late = setup(token({ status: 'failed', processor_reference: 'sim_pay_1' }));
    late.answerStatus({ found: true, payment: payment('authorized') });
    await late.service.authenticateToken(TOKEN_ID, 'a-notice');
    expect(late.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`, `void ${TOKEN_ID}.three_ds.1.void`]);

    // the same when the merchant disabled 3-D Secure after the failure (to charge without it)
    const disabled = setup(token({ status: 'failed', enabled: false, processor_reference: 'sim_pay_1' }));
    disabled.answerStatus({ found: true, payment: payment('authorized') });
    await disabled.service.authenticateToken(TOKEN_ID, 'a-notice');
    expect(disabled.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`, `void ${TOKEN_ID}.three_ds.1.void`]);

    // declined or voided at the processor: nothing held, nothing done
    for (const status of ['declined', 'voided'] as const) {
      const held = setup(token({ status: 'failed', processor_reference: 'sim_pay_1' }));
      held.answerStatus({ found: true, payment: payment(status) });
      await held.service.authenticateToken(TOKEN_ID);
      expect(held.calls).toEqual([`status ${TOKEN_ID}.three_ds.1`]);
    }
  });

  it('a lost race writes nothing more and does not fail the job', async () => {
    const t = setup(token(), { applied: [false] });
    await expect(t.service.authenticateToken(TOKEN_ID)).resolves.toBeUndefined();
    expect(t.calls.filter((call) => call === 'update')).toHaveLength(1);
  });

  it('an unknown outcome is never recorded: the job is retried', async () => {
    const t = setup(token());
    t.answerAuthorize(() => Promise.reject(new TransientProcessorError('authorize', 'timeout')));
    await expect(t.service.authenticateToken(TOKEN_ID)).rejects.toBeInstanceOf(RetryLaterError);
    expect(t.updates).toEqual([]);
  });

  it('without a processor for the mode: error 309, nothing asked', async () => {
    const t = setup({ ...token(), mode: 'live' });
    await t.service.authenticateToken(TOKEN_ID);
    expect(t.calls).toEqual(['update']);
    expect(t.updates[0]?.next).toMatchObject({ status: 'error', error: { code: 309 } });
  });
});
