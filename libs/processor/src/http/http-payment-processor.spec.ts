import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { AmountOutOfRangeError } from '../amounts';
import { ProcessorRequestRejectedError, TransientProcessorError } from '../processor-errors';
import { type AuthorizeRequest } from '../payment-processor';
import { cardWith, standalone } from '@kessai/testing';
import { HttpPaymentProcessor } from './http-payment-processor';

const PAN = '4000056655665556';
const authorization = (): AuthorizeRequest => ({
  reference: randomUUID(),
  amount: 1000,
  currency: 'JPY',
  capture: true,
  paymentMethod: { type: 'card', card: cardWith(PAN, { cvv: '987' }) },
});

function answering(status: number, body: string, headers: Record<string, string> = {}) {
  return new HttpPaymentProcessor({
    baseUrl: 'http://processor.invalid',
    fetch: () => Promise.resolve(new Response(body, { status, headers })),
  });
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('HttpPaymentProcessor failure mapping', () => {
  it.each([
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [504, 'server_error'],
    [408, 'server_error'],
    [429, 'rate_limited'],
  ])('HTTP %i is transient (%s)', async (status, kind) => {
    const error = await failureOf(answering(status, '').authorize(authorization()));
    expect(error).toBeInstanceOf(TransientProcessorError);
    expect(error).toMatchObject({ kind, httpStatus: status, retryable: true, operation: 'authorize' });
  });

  it('reads Retry-After', async () => {
    const error = await failureOf(
      answering(429, '', { 'retry-after': '2' }).capture({
        processorReference: 'p',
        idempotencyKey: 'k',
        amount: 1,
        currency: 'JPY',
      }),
    );
    expect(error).toMatchObject({ retryAfterMs: 2_000 });
  });

  it('treats an unreadable success as transient: the operation may have happened', async () => {
    expect(await failureOf(answering(200, '<html>').authorize(authorization()))).toMatchObject({
      kind: 'malformed_response',
    });
    expect(await failureOf(answering(200, '{"outcome":"maybe"}').authorize(authorization()))).toMatchObject({
      kind: 'malformed_response',
    });
  });

  it('makes other 4xx final, with the processor’s reason', async () => {
    const error = await failureOf(
      answering(
        400,
        JSON.stringify({ error: { type: 'invalid_request', message: 'amount: too_small' } }),
      ).authorize(authorization()),
    );
    expect(error).toBeInstanceOf(ProcessorRequestRejectedError);
    expect(error).toMatchObject({ httpStatus: 400, type: 'invalid_request', retryable: false });
    expect(String(error)).toContain('amount: too_small');
  });

  it('reads 404 on status as "never executed"', async () => {
    expect(await answering(404, '{}').status('r')).toEqual({ found: false });
  });

  it('turns a refused connection into a transient network failure that shows no card data', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const error = await failureOf(
      new HttpPaymentProcessor({ baseUrl: `http://127.0.0.1:${port}` }).authorize(authorization()),
    );
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    const text = `${String(error)} ${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`;
    expect(text).not.toContain(PAN);
    expect(text).not.toMatch(standalone('987'));
  });

  it('times out a processor that does not answer in time', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const processor = new HttpPaymentProcessor({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 50 });
      expect(await failureOf(processor.authorize(authorization()))).toMatchObject({ kind: 'timeout' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('sends the idempotency key, API key and the card only in the body', async () => {
    const seen: { url: string; init: { headers: Record<string, string>; body?: string } }[] = [];
    const processor = new HttpPaymentProcessor({
      baseUrl: 'http://processor.invalid/',
      apiKey: 'secret-key',
      fetch: (url, init) => {
        seen.push({ url, init });
        return Promise.resolve(new Response('', { status: 503 }));
      },
    });
    const request = authorization();
    await failureOf(processor.authorize(request));
    expect(seen[0].url).toBe('http://processor.invalid/v1/payments');
    expect(seen[0].init.headers).toMatchObject({
      'idempotency-key': request.reference,
      authorization: 'Bearer secret-key',
    });
    expect(JSON.parse(seen[0].init.body as string)).toMatchObject({
      reference: request.reference,
      payment_method: { type: 'card', card: { number: PAN, cvv: '987', exp_month: 12 } },
    });
  });

  it('refuses to send an amount that is no safe integer, and sends nothing', async () => {
    let sent = 0;
    const processor = new HttpPaymentProcessor({
      baseUrl: 'http://processor.invalid',
      fetch: () => {
        sent++;
        return Promise.resolve(new Response('', { status: 503 }));
      },
    });
    const capture = { processorReference: 'p', idempotencyKey: 'k', amount: 2 ** 53, currency: 'JPY' };
    expect(await failureOf(processor.authorize({ ...authorization(), amount: 2 ** 53 }))).toBeInstanceOf(
      AmountOutOfRangeError,
    );
    expect(await failureOf(processor.capture(capture))).toBeInstanceOf(AmountOutOfRangeError);
    expect(sent).toBe(0);
    await failureOf(processor.capture({ ...capture, amount: Number.MAX_SAFE_INTEGER }));
    expect(sent).toBe(1);
  });

  it('reads an answered amount past 2^53 - 1 as malformed: its exact value is unknown', async () => {
    const payment = {
      id: 'sim_pay_1',
      reference: 'r',
      kind: 'card',
      status: 'captured',
      amount: 1000,
      currency: 'JPY',
      captured_amount: 1000,
      refunded_amount: 0,
      error: null,
      card: null,
      three_ds: null,
      operator: null,
      created_on: new Date().toISOString(),
    };
    const capture = { processorReference: 'p', idempotencyKey: 'k', amount: 1000, currency: 'JPY' };
    const answer = (captured: number) =>
      answering(
        200,
        JSON.stringify({
          outcome: 'captured',
          payment: { ...payment, captured_amount: captured },
          error: null,
        }),
      );
    expect(await answer(1000).capture(capture)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
    expect(await failureOf(answer(2 ** 53).capture(capture))).toMatchObject({
      kind: 'malformed_response',
      retryable: true,
    });
  });
});
