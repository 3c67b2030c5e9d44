// Refunds and cancels as a merchant sees them through the official univapay-node SDK: the real
// gateway, real charge-service and refund-cancel-service processes, BullMQ, Postgres, Redis, and the
// processor simulator over HTTP (the only fake: the outside world).
process.env.POLLING_INTERVAL = '100';

import { CANCEL_FINISHED, CHARGE_FINISHED, REFUND_FINISHED } from '@kessai/contracts';
import { APPROVED_TEST_CARD, sdkCardToken, sdkError, sdkOnlineToken, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

/** UnivaPay's test cards: a refund of the first fails, a cancel of the second fails. */
const REFUND_FAILS_CARD = '4242424242424242';
const CANCEL_FAILS_CARD = '4012888888881881';
/** the simulator's issuer demands 3-D Secure for this card */
const THREE_DS_CARD = '4000000000003220';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
  workers: ['charge-service', 'refund-cancel-service'],
  callbacks: true,
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000', CHARGE_SWEEP_INTERVAL_MS: '200' },
});

const sdk = () => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

async function successfulCharge(cardNumber = APPROVED_TEST_CARD, amount = 1200): Promise<any> {
  const token = await sdkCardToken(sdk(), { cardNumber });
  const created: any = await sdk().charges.create({ transactionTokenId: token.id, amount, currency: 'JPY' });
  const done: any = await sdk().charges.poll(storeId(), created.id);
  expect(done.status).toBe('successful');
  return done;
}

async function authorizedCharge(cardNumber = APPROVED_TEST_CARD): Promise<any> {
  const token = await sdkCardToken(sdk(), { cardNumber });
  const created: any = await sdk().charges.create({
    transactionTokenId: token.id,
    amount: 3000,
    currency: 'JPY',
    capture: false,
  });
  const done: any = await sdk().charges.poll(storeId(), created.id);
  expect(done.status).toBe('authorized');
  return done;
}

const getCharge = (id: string): Promise<any> => sdk().charges.get(storeId(), id);
const pollRefund = (chargeId: string, id: string): Promise<any> =>
  sdk().refunds.poll(storeId(), chargeId, id);
const pollCancel = (chargeId: string, id: string): Promise<any> =>
  sdk().cancels.poll(storeId(), chargeId, id);
const eventsOf = (aggregateId: string, eventType: string) =>
  suite.env.prisma.outboxEvent.count({ where: { aggregateId, eventType } });

describe('refunds through the SDK', () => {
  it('a full refund: 201 pending → poll → successful, executed once, the charge showing it', async () => {
    const charge = await successfulCharge();
    const created: any = await sdk().refunds.create(storeId(), charge.id, {
      amount: 1200,
      currency: 'JPY',
      reason: 'customer_request' as any,
      message: 'returned goods',
      metadata: { ticket: 'R-1' },
    });
    expect(created).toMatchObject({
      chargeId: charge.id,
      storeId: storeId(),
      status: 'pending',
      amount: 1200,
      currency: 'JPY',
      amountFormatted: 1200,
      reason: 'customer_request',
      message: 'returned goods',
      metadata: { ticket: 'R-1' },
      mode: 'test',
      error: null,
    });
    const done = await pollRefund(charge.id, created.id);
    expect(done).toMatchObject({ id: created.id, status: 'successful', error: null });
    expect(await getCharge(charge.id)).toMatchObject({
      status: 'successful',
      refundedAmount: 1200,
      refundableAmount: 0,
    });
    expect(operationStats(suite.simulator.stats(), 'refund', created.id).executions).toBe(1);
    expect(await eventsOf(created.id, REFUND_FINISHED)).toBe(1);
    // nothing is left to refund
    const over = await sdkError(sdk().refunds.create(storeId(), charge.id, { amount: 1, currency: 'JPY' }));
    expect(over).toMatchObject({ httpCode: 400, code: 'REFUND_NOT_WITHIN_BOUNDS' });
  });

  it('partial refunds up to the charge; get, list and update; more is refused', async () => {
    const charge = await successfulCharge(APPROVED_TEST_CARD, 1000);
    const first: any = await sdk().refunds.create(storeId(), charge.id, { amount: 300, currency: 'JPY' });
    const second: any = await sdk().refunds.create(storeId(), charge.id, { amount: 700, currency: 'jpy' });
    const over = await sdkError(sdk().refunds.create(storeId(), charge.id, { amount: 1, currency: 'JPY' }));
    expect(over).toMatchObject({ httpCode: 400, code: 'REFUND_NOT_WITHIN_BOUNDS' });
    await pollRefund(charge.id, first.id);
    await pollRefund(charge.id, second.id);

    const got: any = await sdk().refunds.get(storeId(), charge.id, first.id);
    expect(got).toMatchObject({ id: first.id, amount: 300, status: 'successful' });
    const list: any = await sdk().refunds.list(storeId(), charge.id);
    expect(list.items.map((refund: any) => refund.id).sort()).toEqual([first.id, second.id].sort());
    expect(list.totalHits).toBe(2);

    const updated: any = await sdk().refunds.update(storeId(), charge.id, first.id, {
      reason: 'duplicate' as any,
      message: 'double order',
      metadata: { note: 'x' },
    });
    expect(updated).toMatchObject({ reason: 'duplicate', message: 'double order', metadata: { note: 'x' } });
    const badStatus = await sdkError(
      sdk().refunds.update(storeId(), charge.id, first.id, { status: 'failed' as any }),
    );
    // a refund's status is the processor's outcome (decision 0051): the same status is taken as
    // a no-op, another is refused naming the field
    expect(badStatus).toMatchObject({
      httpCode: 400,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'status', reason: 'NOT_ALLOWED' }],
    });
    const sameStatus: any = await sdk().refunds.update(storeId(), charge.id, first.id, {
      status: 'successful' as any,
      message: 'kept',
    });
    expect(sameStatus).toMatchObject({ id: first.id, status: 'successful', message: 'kept' });
    expect(await getCharge(charge.id)).toMatchObject({ refundedAmount: 1000, refundableAmount: 0 });
  });

  it('refuses what cannot be refunded: another currency, an unsuccessful charge, bad input', async () => {
    const charge = await successfulCharge();
    const currency = await sdkError(
      sdk().refunds.create(storeId(), charge.id, { amount: 100, currency: 'USD' }),
    );
    expect(currency).toMatchObject({ httpCode: 400, code: 'CURRENCY_MUST_MATCH_CHARGE' });
    // over raw HTTP: the SDK checks some fields itself before sending
    const api = suite.api.shop;
    for (const json of [
      { amount: 0, currency: 'JPY' },
      { amount: 100 },
      { amount: 100, currency: 'JPY', reason: 'because' },
      { amount: 1.5, currency: 'JPY' },
      { amount: '100', currency: 'JPY' },
      { amount: 100, currency: 'JPY', status: 'successful' },
    ]) {
      const res = await api.request(`/stores/${storeId()}/charges/${charge.id}/refunds`, {
        method: 'POST',
        json,
      });
      expect([json, res.status, res.body.code]).toEqual([json, 400, 'VALIDATION_ERROR']);
    }
    const declined: any = await sdk().charges.create({
      transactionTokenId: (await sdkCardToken(sdk(), { cardNumber: '4111111111111111' })).id,
      amount: 500,
      currency: 'JPY',
    });
    expect((await sdk().charges.poll(storeId(), declined.id)).status).toBe('failed');
    const unsuccessful = await sdkError(
      sdk().refunds.create(storeId(), declined.id, { amount: 100, currency: 'JPY' }),
    );
    expect(unsuccessful).toMatchObject({ httpCode: 400, code: 'CANNOT_REFUND_UNSUCCESSFUL_CHARGE' });
    expect(
      await suite.env.prisma.refund.count({ where: { chargeId: { in: [charge.id, declined.id] } } }),
    ).toBe(0);
  });

  it('a refund the issuer refuses (card 4242…) fails with 329, and its amount is free again', async () => {
    const charge = await successfulCharge(REFUND_FAILS_CARD, 800);
    const created: any = await sdk().refunds.create(storeId(), charge.id, { amount: 800, currency: 'JPY' });
    const done = await pollRefund(charge.id, created.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 329, message: 'REFUND_FAILED' } });
    expect(await getCharge(charge.id)).toMatchObject({ refundedAmount: 0, refundableAmount: 800 });
    expect(await eventsOf(created.id, REFUND_FINISHED)).toBe(1);
    // the whole amount may be asked again
    const again: any = await sdk().refunds.create(storeId(), charge.id, { amount: 800, currency: 'JPY' });
    expect((await pollRefund(charge.id, again.id)).status).toBe('failed');
  });
});

describe('cancels through the SDK', () => {
  it('cancels an authorized card charge: the authorization is voided once and the charge canceled', async () => {
    const charge = await authorizedCharge();
    const created: any = await sdk().cancels.create(storeId(), charge.id, {
      metadata: { why: 'out of stock' },
    });
    expect(created).toMatchObject({
      chargeId: charge.id,
      storeId: storeId(),
      status: 'pending',
      metadata: { why: 'out of stock' },
      mode: 'test',
    });
    expect(await pollCancel(charge.id, created.id)).toMatchObject({ status: 'successful', error: null });
    expect(await getCharge(charge.id)).toMatchObject({ status: 'canceled' });
    expect(operationStats(suite.simulator.stats(), 'void', created.id).executions).toBe(1);
    expect(await eventsOf(created.id, CANCEL_FINISHED)).toBe(1);
    expect(await eventsOf(charge.id, CHARGE_FINISHED)).toBe(1);

    const list: any = await sdk().cancels.list(storeId(), charge.id);
    expect(list.items.map((cancel: any) => cancel.id)).toEqual([created.id]);
    expect(await sdk().cancels.get(storeId(), charge.id, created.id)).toMatchObject({ status: 'successful' });
    // a canceled charge can be neither canceled again nor captured
    const again = await sdkError(sdk().cancels.create(storeId(), charge.id, {}));
    expect(again).toMatchObject({ httpCode: 400, code: 'CANCEL_NOT_ALLOWED' });
    const capture = await sdkError(
      sdk().captures.create(storeId(), charge.id, { amount: 3000, currency: 'JPY' }),
    );
    expect(capture.httpCode).toBe(400);
  });

  it('refuses to cancel a captured card charge at once (CANCEL_NOT_ALLOWED), writing nothing', async () => {
    const charge = await successfulCharge();
    const error = await sdkError(sdk().cancels.create(storeId(), charge.id, {}));
    expect(error).toMatchObject({ httpCode: 400, code: 'CANCEL_NOT_ALLOWED' });
    expect(await suite.env.prisma.cancel.count({ where: { chargeId: charge.id } })).toBe(0);
    expect(await getCharge(charge.id)).toMatchObject({ status: 'successful' });
  });

  it('cancels an awaiting online charge before the customer pays', async () => {
    const token = await sdkOnlineToken(sdk());
    const created: any = await sdk().charges.create({
      transactionTokenId: token.id,
      amount: 900,
      currency: 'JPY',
    });
    expect((await sdk().charges.poll(storeId(), created.id)).status).toBe('awaiting');
    const cancel: any = await sdk().cancels.create(storeId(), created.id, {});
    expect(await pollCancel(created.id, cancel.id)).toMatchObject({ status: 'successful' });
    expect(await getCharge(created.id)).toMatchObject({ status: 'canceled' });
  });

  it('cancels a card charge awaiting 3-D Secure before the cardholder authenticates', async () => {
    const token = await sdkCardToken(sdk(), { cardNumber: THREE_DS_CARD });
    const created: any = await sdk().charges.create({
      transactionTokenId: token.id,
      amount: 700,
      currency: 'JPY',
    });
    expect((await sdk().charges.poll(storeId(), created.id)).status).toBe('awaiting');
    const cancel: any = await sdk().cancels.create(storeId(), created.id, {});
    expect(await pollCancel(created.id, cancel.id)).toMatchObject({ status: 'successful' });
    expect(await getCharge(created.id)).toMatchObject({ status: 'canceled' });
    expect(operationStats(suite.simulator.stats(), 'void', cancel.id).executions).toBe(1);
  });

  it('a cancel the issuer refuses (card …1881) fails with 312; the charge stays authorized and can be captured', async () => {
    const charge = await authorizedCharge(CANCEL_FAILS_CARD);
    const cancel: any = await sdk().cancels.create(storeId(), charge.id, {});
    expect(await pollCancel(charge.id, cancel.id)).toMatchObject({
      status: 'failed',
      error: { code: 312, message: 'CANCEL_UNAVAILABLE' },
    });
    expect(await getCharge(charge.id)).toMatchObject({ status: 'authorized' });
    await sdk().captures.create(storeId(), charge.id, { amount: 3000, currency: 'JPY' });
    const captured: any = await sdk().charges.poll(storeId(), charge.id, undefined, undefined, {
      successCondition: (c: any) => c.status !== 'authorized',
    });
    expect(captured).toMatchObject({ status: 'successful', chargedAmount: 3000 });
  });
});

describe('another merchant', () => {
  it('cannot refund, cancel, read or list any of it: 404', async () => {
    const charge = await successfulCharge();
    const refund: any = await sdk().refunds.create(storeId(), charge.id, { amount: 100, currency: 'JPY' });
    const authorized = await authorizedCharge();
    const cancel: any = await sdk().cancels.create(storeId(), authorized.id, {});
    const other = suite.sdk.foreign;
    const attempts: [string, Promise<unknown>][] = [
      ['refunds.create', other.refunds.create(storeId(), charge.id, { amount: 100, currency: 'JPY' })],
      ['refunds.get', other.refunds.get(storeId(), charge.id, refund.id)],
      ['refunds.list', other.refunds.list(storeId(), charge.id)],
      ['refunds.update', other.refunds.update(storeId(), charge.id, refund.id, { message: 'x' })],
      ['cancels.create', other.cancels.create(storeId(), authorized.id, {})],
      ['cancels.get', other.cancels.get(storeId(), authorized.id, cancel.id)],
      ['cancels.list', other.cancels.list(storeId(), authorized.id)],
      // its own store in the path, the shop's charge
      [
        'refunds.create (own store)',
        other.refunds.create(suite.merchants.foreign.store.id, charge.id, { amount: 1, currency: 'JPY' }),
      ],
      ['cancels.list (own store)', other.cancels.list(suite.merchants.foreign.store.id, authorized.id)],
    ];
    for (const [what, attempt] of attempts) {
      expect([what, (await sdkError(attempt)).httpCode]).toEqual([what, 404]);
    }
    // the shop's refund and cancel are as they were
    expect(await suite.env.prisma.refund.count({ where: { chargeId: charge.id } })).toBe(1);
    expect(await suite.env.prisma.cancel.count({ where: { chargeId: authorized.id } })).toBe(1);
  });
});

describe('a capture racing a cancel', () => {
  it('50 rounds: exactly one is accepted, and only it reaches the processor', async () => {
    const api = suite.api.shop;
    const rounds = 50;
    const charges: any[] = [];
    for (let i = 0; i < rounds; i++) {
      const token = await api.cardToken();
      charges.push(await api.charge(token, { amount: 2000, capture: false }));
    }
    const authorized = await Promise.all(
      charges.map((c) => sdk().charges.poll(storeId(), c.id) as Promise<any>),
    );
    expect(authorized.every((c) => c.status === 'authorized')).toBe(true);

    const outcomes = await Promise.all(
      charges.map(async (c) => {
        const [capture, cancel] = await Promise.all([
          api.request(`/stores/${storeId()}/charges/${c.id}/capture`, {
            method: 'POST',
            json: { amount: 2000, currency: 'JPY' },
          }),
          api.request(`/stores/${storeId()}/charges/${c.id}/cancels`, { method: 'POST', json: {} }),
        ]);
        return {
          id: c.id,
          capture: capture.status,
          cancel: cancel.status,
          codes: [capture.body.code, cancel.body.code],
        };
      }),
    );
    for (const outcome of outcomes) {
      const accepted = [outcome.capture === 200, outcome.cancel === 201].filter(Boolean).length;
      expect({ ...outcome, accepted }).toEqual({ ...outcome, accepted: 1 });
      expect([outcome.capture, outcome.cancel].sort()).toEqual(
        outcome.capture === 200 ? [200, 400] : [201, 400],
      );
    }

    const finals = await Promise.all(
      charges.map(
        (c) =>
          sdk().charges.poll(storeId(), c.id, undefined, undefined, {
            successCondition: (charge: any) => charge.status !== 'authorized',
          }) as Promise<any>,
      ),
    );
    const stats = suite.simulator.stats();
    for (const [i, outcome] of outcomes.entries()) {
      const final = finals[i];
      const capture = await suite.env.prisma.capture.findUnique({ where: { chargeId: outcome.id } });
      const cancel = await suite.env.prisma.cancel.findFirst({ where: { chargeId: outcome.id } });
      const captured = capture ? operationStats(stats, 'capture', capture.id).executions : 0;
      const voided = cancel ? operationStats(stats, 'void', cancel.id).executions : 0;
      expect({ id: outcome.id, status: final.status, captured, voided }).toEqual({
        id: outcome.id,
        status: outcome.capture === 200 ? 'successful' : 'canceled',
        captured: outcome.capture === 200 ? 1 : 0,
        voided: outcome.capture === 200 ? 0 : 1,
      });
    }
  }, 120_000);
});
