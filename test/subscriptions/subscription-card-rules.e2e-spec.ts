// The card rules of POST /charges on the subscription engine's payments (issue 30; decisions 0076,
// 0077), through the official SDK: the store's card limit and the token's CVV authorization are held
// to each scheduled payment as to a charge, and a payment they refuse fails like a declined card
// (unpaid, retried on the dunning schedule) instead of being taken past them. The gateway
// in-process; charge-service, subscription-service and webhook-service as processes; the processor
// simulator; test clocks (raw HTTP: the SDK has none) move the subscriptions' time.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { PaymentType, SubscriptionPeriod, TransactionTokenType } from 'univapay-node';
import { eventually, ordinaryCardNumber, sdkCardToken, sdkError, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: {
    SUBSCRIPTION_SCHEDULER_IDLE_MS: '50',
    CHARGE_POLLING_MAX_WAIT_MS: '3000',
    CHARGE_SWEEP_INTERVAL_MS: '200',
  },
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'subscription-service', 'webhook-service'],
});

const sdk = (): SDK => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;
const NEXT_YEAR = new Date().getUTCFullYear() + 1;

type Limit = { amount: number; currency: string; duration: string };
const setLimit = (cardLimit: Limit | null) =>
  sdk().stores.update(storeId(), {
    configuration: { cardConfiguration: { cardLimit } as { cardLimit: Limit } },
  });

async function createClock(frozenTime: string): Promise<string> {
  const answer = await suite.api.shop.request('/test_clocks', {
    method: 'POST',
    json: { frozen_time: frozenTime },
  });
  expect(answer.status).toBe(201);
  return answer.body.id;
}

const ready = (clockId: string) =>
  eventually(async () => (await suite.api.shop.request(`/test_clocks/${clockId}`)).body.status === 'ready', {
    timeoutMs: 60_000,
    what: 'the clock to be ready',
  });

/** Advances the clock and waits until the engine has settled everything due. */
async function advance(clockId: string, frozenTime: string): Promise<void> {
  const moved = await suite.api.shop.request(`/test_clocks/${clockId}/advance`, {
    method: 'POST',
    json: { frozen_time: frozenTime },
  });
  expect(moved.status).toBe(200);
  await ready(clockId);
}

const subscribe = (clockId: string, transactionTokenId: string, amount: number): Promise<any> =>
  sdk().subscriptions.create({
    transactionTokenId,
    amount,
    currency: 'JPY',
    period: SubscriptionPeriod.MONTHLY,
    testClockId: clockId,
  } as never);

const get = (id: string): Promise<any> => sdk().subscriptions.get(storeId(), id);
const triesOf = async (subscriptionId: string, paymentId: string): Promise<any[]> =>
  ((await sdk().subscriptions.payments.listCharges(storeId(), subscriptionId, paymentId)) as any).items;

afterEach(async () => {
  await setLimit(null);
});

describe("the store's card limit on scheduled payments", () => {
  it('fails a payment that would pass the limit (unpaid, retried), counts it with POST /charges, and charges the retry once there is room', async () => {
    // 10,000 yen a month per card; the subscription takes 6,000 a month
    await setLimit({ amount: 10_000, currency: 'JPY', duration: 'P1M' });
    const card = ordinaryCardNumber();
    const token = await sdkCardToken(sdk(), { cardNumber: card, type: 'subscription' });
    const clock = await createClock('2025-03-01T00:00:00Z');
    const created = await subscribe(clock, token.id, 6000);
    await ready(clock);
    expect((await get(created.id)).status).toBe('current');

    // the subscription's charge counts for the card at POST /charges, through another token
    const other = await sdkCardToken(sdk(), { cardNumber: card });
    expect(
      await sdkError(sdk().charges.create({ transactionTokenId: other.id, amount: 5000, currency: 'JPY' })),
    ).toMatchObject({ code: 'CARD_LIMIT_EXCEEDED_FOR_STORE', httpCode: 400 });

    // a month later on the clock: the card's charges are those of the last month in real time
    // (charges are created in real time, also on a test clock), so 6,000 + 6,000 passes 10,000
    await advance(clock, '2025-04-01T00:30:00Z');
    let subscription = await get(created.id);
    expect(subscription.status).toBe('unpaid');
    const payment = subscription.nextPayment;
    expect(payment).toMatchObject({ dueDate: '2025-04-01', isPaid: false });
    expect(payment.retryDate).toMatch(/^2025-04-02T00:00:00/);
    const [refused] = await triesOf(created.id, payment.id);
    expect(refused).toMatchObject({
      status: 'failed',
      requestedAmount: 6000,
      error: { code: 309, message: 'PROCESSING_ERROR', detail: 'CARD_LIMIT_EXCEEDED_FOR_STORE' },
    });
    // refused before the processor: nothing was authorized for it
    expect(operationStats(suite.simulator.stats(), 'authorize', refused.id).requests).toBe(0);

    // the merchant raises the limit: the retry the day after is charged, once
    await setLimit({ amount: 20_000, currency: 'JPY', duration: 'P1M' });
    await advance(clock, '2025-04-02T00:30:00Z');
    subscription = await get(created.id);
    expect(subscription.status).toBe('current');
    expect((await triesOf(created.id, payment.id)).map((c) => [c.status, c.requestedAmount])).toEqual([
      ['successful', 6000],
      ['failed', 6000],
    ]);
  });

  it('is not applied to a payment in another currency than the limit', async () => {
    await setLimit({ amount: 1000, currency: 'USD', duration: 'P1M' });
    const token = await sdkCardToken(sdk(), { cardNumber: ordinaryCardNumber(), type: 'subscription' });
    const clock = await createClock('2025-03-01T00:00:00Z');
    const created = await subscribe(clock, token.id, 6000);
    await ready(clock);
    await advance(clock, '2025-04-01T00:30:00Z');
    expect((await get(created.id)).status).toBe('current');
  });
});

describe('a CVV authorization that fails after the subscription was accepted', () => {
  it('refuses the later payments while it is not current, and charges the retry once it is again', async () => {
    const token: any = await sdk().transactionTokens.create({
      paymentType: PaymentType.CARD,
      type: TransactionTokenType.SUBSCRIPTION,
      email: 'buyer@example.test',
      data: {
        cardholder: 'Taro Yamada',
        cardNumber: ordinaryCardNumber(),
        expMonth: 12,
        expYear: NEXT_YEAR,
        cvv: '123',
        cvvAuthorize: { enabled: true, currency: 'JPY' } as never,
      },
    });
    const cvvStatus = async () =>
      ((await sdk().transactionTokens.get(storeId(), token.id)) as any).data.cvvAuthorize?.status;
    await eventually(async () => (await cvvStatus()) === 'current', {
      timeoutMs: 15_000,
      what: 'the CVV authorization to be current',
    });
    const clock = await createClock('2025-03-01T00:00:00Z');
    const created = await subscribe(clock, token.id, 1000);
    await ready(clock);
    expect((await get(created.id)).status).toBe('current');

    // the authorization failed since: the simulator's outcome is the card number's, so a card that
    // passed once cannot fail later; the row stands for a later attempt that failed
    await suite.env.prisma.$executeRawUnsafe(
      `UPDATE transaction_tokens
          SET data = jsonb_set(data, '{cvv_authorize,status}', '"failed"'), updated_on = now()
        WHERE id = $1::uuid`,
      token.id,
    );
    expect(await cvvStatus()).toBe('failed');
    await advance(clock, '2025-04-01T00:30:00Z');
    let subscription = await get(created.id);
    expect(subscription.status).toBe('unpaid');
    const payment = subscription.nextPayment;
    const [refused] = await triesOf(created.id, payment.id);
    expect(refused).toMatchObject({
      status: 'failed',
      error: { code: 309, message: 'PROCESSING_ERROR', detail: 'CVV_AUTHORIZATION_NOT_COMPLETED' },
    });

    // the merchant authorizes the CVV again (PATCH with a new CVV): current, and the retry is paid
    await sdk().transactionTokens.update(storeId(), token.id, {
      data: { cvv: '456', cvvAuthorize: { enabled: true } },
    });
    await eventually(async () => (await cvvStatus()) === 'current', {
      timeoutMs: 15_000,
      what: 'the new CVV authorization to be current',
    });
    await advance(clock, '2025-04-02T00:30:00Z');
    subscription = await get(created.id);
    expect(subscription.status).toBe('current');
    expect((await triesOf(created.id, payment.id)).map((c) => c.status).sort()).toEqual([
      'failed',
      'successful',
    ]);
  });
});
