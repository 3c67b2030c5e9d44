import { randomUUID } from 'node:crypto';
import { startCallbackReceiver, startFakeKomoju, waitFor } from '@kessai/testing';
import { InvalidProcessorCallbackError } from '../processor-callback';
import { KomojuPaymentProcessor } from './komoju-payment-processor';
import { KOMOJU_SIGNATURE_HEADER, komojuEventToCallback, verifyKomojuWebhook } from './komoju-webhooks';

const WEBHOOK_SECRET = 'komoju-webhook-secret-token-0123456789';

describe('KOMOJU webhooks', () => {
  it('verifies a delivery of the fake over its raw body and turns a paid konbini into a deposit notice', async () => {
    const receiver = await startCallbackReceiver();
    const fake = await startFakeKomoju({
      secretKey: 'sk_test',
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: receiver.url,
    });
    try {
      const processor = new KomojuPaymentProcessor({ secretKey: 'sk_test', baseUrl: fake.url });
      const reference = randomUUID();
      const created = await processor.createDeferredPayment({
        reference,
        amount: 1800,
        currency: 'JPY',
        method: { type: 'konbini', convenienceStore: 'lawson', customerName: 'Taro', phoneNumber: null },
        expiresOn: new Date(Date.now() + 86_400_000),
        callbackUrl: receiver.url,
        customerEmail: 'taro@example.com',
      });
      await fake.payKonbini(created.processorReference);
      await waitFor(() => receiver.received.some((r) => r.headers['x-komoju-event'] === 'payment.captured'));
      const delivery = receiver.received.find((r) => r.headers['x-komoju-event'] === 'payment.captured')!;

      const event = verifyKomojuWebhook({
        rawBody: delivery.body,
        signatureHeader: delivery.headers[KOMOJU_SIGNATURE_HEADER],
        secret: WEBHOOK_SECRET,
      });
      expect(komojuEventToCallback(event)).toMatchObject({
        notificationId: event.id,
        event: 'deferred_payment',
        status: 'deposit_received',
        reference,
        processorReference: created.processorReference,
        depositId: created.processorReference,
        amount: 1800,
        currency: 'JPY',
      });

      // the konbini's creation (payment.authorized) is no money: nothing for the charge path
      const authorized = receiver.received.find((r) => r.headers['x-komoju-event'] === 'payment.authorized')!;
      const signature = authorized.headers[KOMOJU_SIGNATURE_HEADER];
      expect(
        komojuEventToCallback(
          verifyKomojuWebhook({
            rawBody: authorized.body,
            signatureHeader: signature,
            secret: WEBHOOK_SECRET,
          }),
        ),
      ).toBeNull();

      // one byte changed, another secret, no header: refused
      const bad =
        (rawBody: string, header: string | undefined, secret = WEBHOOK_SECRET) =>
        () =>
          verifyKomojuWebhook({ rawBody, signatureHeader: header, secret });
      const header = delivery.headers[KOMOJU_SIGNATURE_HEADER] as string;
      expect(bad(delivery.body.replace('1800', '1900'), header)).toThrow(InvalidProcessorCallbackError);
      expect(bad(delivery.body, header, 'another-secret')).toThrow('signature does not match');
      expect(bad(delivery.body, undefined)).toThrow('signature header missing');
      expect(bad(delivery.body, 'abc')).toThrow('signature header malformed');
    } finally {
      await fake.close();
      await receiver.close();
    }
  });

  it('turns a card payment captured, authorized or failed into a 3-D Secure notice; a refund into nothing', () => {
    const event = (type: string, status: string) => ({
      id: `ev_${type}`,
      type,
      resource: 'event' as const,
      created_at: '2026-12-01T00:00:00Z',
      data: {
        id: 'pay_1',
        resource: 'payment',
        status,
        amount: 1000,
        currency: 'JPY',
        external_order_num: 'charge-1',
        payment_details: { type: 'credit_card', redirect_url: 'https://komoju.example/3ds' },
      },
    });
    for (const [type, status, notice] of [
      ['payment.captured', 'captured', 'captured'],
      ['payment.authorized', 'authorized', 'authorized'],
      ['payment.failed', 'failed', 'declined'],
    ] as const) {
      expect(komojuEventToCallback(event(type, status))).toEqual({
        notificationId: `ev_${type}`,
        event: 'three_ds',
        processorReference: 'pay_1',
        reference: 'charge-1',
        status: notice,
        error: null,
        occurredOn: new Date('2026-12-01T00:00:00Z'),
      });
    }
    expect(komojuEventToCallback(event('payment.refunded', 'refunded'))).toBeNull();
  });

  it('turns a PayPay payment captured, failed or expired into an operator payment notice; its cancel or refund into nothing', () => {
    const event = (type: string, status: string) => ({
      id: `ev_${type}`,
      type,
      resource: 'event' as const,
      created_at: '2026-12-01T00:00:00Z',
      data: {
        id: 'pay_2',
        resource: 'payment',
        status,
        amount: 3000,
        currency: 'JPY',
        external_order_num: 'charge-2',
        payment_details: {
          type: 'paypay',
          redirect_url: 'https://komoju.example/paypay',
          external_payment_id: null,
        },
      },
    });
    for (const [type, status, notice] of [
      ['payment.captured', 'captured', 'paid'],
      ['payment.failed', 'failed', 'failed'],
      ['payment.expired', 'expired', 'expired'],
    ] as const) {
      expect(komojuEventToCallback(event(type, status))).toEqual({
        notificationId: `ev_${type}`,
        event: 'operator_payment',
        operatorPaymentId: 'pay_2',
        processorReference: 'pay_2',
        reference: 'charge-2',
        status: notice,
        amount: 3000,
        currency: 'JPY',
        occurredOn: new Date('2026-12-01T00:00:00Z'),
      });
    }
    expect(komojuEventToCallback(event('payment.cancelled', 'cancelled'))).toBeNull();
    expect(komojuEventToCallback(event('payment.refunded', 'refunded'))).toBeNull();
    // a card's expiry is Kessai's own decision, as before
    const card = event('payment.expired', 'expired');
    card.data.payment_details = {
      type: 'credit_card',
      redirect_url: null as never,
      external_payment_id: null,
    };
    expect(komojuEventToCallback(card)).toBeNull();
  });
});
