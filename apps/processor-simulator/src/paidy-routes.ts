import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  PAIDY_TEST_AUTHORIZATION_CODE,
  PAIDY_TEST_CONSUMERS,
  PAIDY_TEST_PHONE,
  PAIDY_TEST_PUBLIC_KEY,
  paymentError,
} from '@kessai/processor';
import { type AuthorizationDecision } from './authorization-decisions';
import { parseJson, readBody, sendError, sendJson } from './http-io';
import { type Route, type SimulatorContext } from './simulator-context';
import { type SimulatedPaidyToken } from './simulator-state';

/** What the consumer enters in Paidy Checkout (token flow) for the merchant's public key. */
const checkoutRequestSchema = z
  .object({
    /** the merchant's public key (Paidy Checkout's `api_key`) */
    api_key: z.string().min(1).max(100),
    buyer: z.object({ email: z.string().max(254), phone: z.string().max(20) }).strict(),
    /** the code of the SMS Paidy sends to the consumer's phone */
    authorization_code: z.string().max(10),
  })
  .strict();

/**
 * Paidy in test mode (docs/processor-simulator.md, "Paidy"): Paidy Checkout's token flow, where the
 * consumer authenticates (email, phone, the SMS code) for the merchant's public key and Paidy gives
 * the merchant a token (`tok_…`) to create payments with. Paidy's test data decide: the consumer
 * `successful.payment@paidy.com` is approved, `rejected.payment@paidy.com` rejected at each payment,
 * with the phone 08000000001 and the code 8888. Paying is POST /v1/payments with
 * `payment_method.type: paidy`.
 */
export class PaidyRoutes {
  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      {
        method: 'POST',
        pattern: /^\/paidy\/checkout\/tokens$/,
        handle: (req, res) => this.#checkout(req, res),
      },
    ];
  }

  async #checkout(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(request), checkoutRequestSchema);
    if (body.api_key !== PAIDY_TEST_PUBLIC_KEY)
      return sendError(response, 401, 'unauthorized', 'unknown public key');
    const consumer =
      body.buyer.email === PAIDY_TEST_CONSUMERS.approved
        ? 'approved'
        : body.buyer.email === PAIDY_TEST_CONSUMERS.rejected
          ? 'rejected'
          : null;
    if (consumer === null || body.buyer.phone !== PAIDY_TEST_PHONE)
      return sendError(response, 400, 'invalid_request', 'not a test consumer of Paidy');
    if (body.authorization_code !== PAIDY_TEST_AUTHORIZATION_CODE)
      return sendError(response, 400, 'authentication_failed', 'the authorization code is wrong');
    const token: SimulatedPaidyToken = {
      id: `tok_${randomBytes(12).toString('hex')}`,
      consumer,
      status: 'active',
    };
    this.context.state.paidyTokens.set(token.id, token);
    sendJson(response, 201, { id: token.id, status: token.status });
  }
}

/** Paidy's answer to a payment with a token: an unknown token is refused, a rejected consumer declined. */
export function decidePaidy(token: SimulatedPaidyToken | undefined): AuthorizationDecision {
  if (!token || token.status !== 'active')
    return {
      kind: 'decline',
      error: paymentError('CHARGE_INVALID_DATA', 'no active Paidy token has this id'),
    };
  if (token.consumer === 'rejected')
    return { kind: 'decline', error: paymentError('PAYMENT_WALLET_REJECTED', 'Paidy rejected the payment') };
  return { kind: 'approve' };
}
