import { randomUUID } from 'node:crypto';
import {
  InvalidProcessorCallbackError,
  type ProcessorCallbackWire,
  signProcessorCallback,
  verifyProcessorCallback,
} from './processor-callback';

const SECRET = 'callback-secret-for-tests';
const NOW = new Date('2025-06-15T10:00:00Z');
const notice: ProcessorCallbackWire = {
  id: randomUUID(),
  event: 'operator_payment',
  operator_payment_id: 'sim_op_1',
  payment_id: 'sim_pay_1',
  reference: randomUUID(),
  status: 'paid',
  amount: 1000,
  currency: 'JPY',
  occurred_on: NOW.toISOString(),
};
const rawBody = JSON.stringify(notice);

describe('processor callback signatures', () => {
  it('verify what was signed and return the notice parsed', () => {
    const signatureHeader = signProcessorCallback(rawBody, SECRET, NOW);
    expect(signatureHeader).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(
      verifyProcessorCallback({ rawBody: Buffer.from(rawBody), signatureHeader, secret: SECRET, now: NOW }),
    ).toEqual({
      notificationId: notice.id,
      event: 'operator_payment',
      operatorPaymentId: 'sim_op_1',
      processorReference: 'sim_pay_1',
      reference: notice.reference,
      status: 'paid',
      amount: 1000,
      currency: 'JPY',
      occurredOn: NOW,
    });
  });

  it.each<[string, () => Parameters<typeof verifyProcessorCallback>[0], RegExp]>([
    [
      'a missing header',
      () => ({ rawBody, signatureHeader: undefined, secret: SECRET, now: NOW }),
      /missing/,
    ],
    [
      'a malformed header',
      () => ({ rawBody, signatureHeader: 'sha256=abc', secret: SECRET, now: NOW }),
      /malformed/,
    ],
    [
      'another secret',
      () => ({
        rawBody,
        signatureHeader: signProcessorCallback(rawBody, 'other', NOW),
        secret: SECRET,
        now: NOW,
      }),
      /does not match/,
    ],
    [
      'an altered body',
      () => ({
        rawBody: rawBody.replace('1000', '1'),
        signatureHeader: signProcessorCallback(rawBody, SECRET, NOW),
        secret: SECRET,
        now: NOW,
      }),
      /does not match/,
    ],
    [
      'an old signature',
      () => ({
        rawBody,
        signatureHeader: signProcessorCallback(rawBody, SECRET, new Date(NOW.getTime() - 301_000)),
        secret: SECRET,
        now: NOW,
      }),
      /tolerance/,
    ],
    [
      'a signed body that is not a notice',
      () => ({
        rawBody: '{"x":1}',
        signatureHeader: signProcessorCallback('{"x":1}', SECRET, NOW),
        secret: SECRET,
        now: NOW,
      }),
      /known notice/,
    ],
  ])('refuse %s', (_name, input, message) => {
    expect(() => verifyProcessorCallback(input())).toThrow(InvalidProcessorCallbackError);
    expect(() => verifyProcessorCallback(input())).toThrow(message);
  });
});
