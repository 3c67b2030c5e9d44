import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { ISO_4217_NUMERIC } from './apple-pay';
import { parseJson, readBody, sendError, sendJson } from './http-io';
import { type Route, type SimulatorContext } from './simulator-context';

/** What the test wallet tokenises: a (test) card for one payment's amount and currency. */
const testWalletRequestSchema = z
  .object({
    card_number: z.string().regex(/^\d{12,19}$/),
    exp_month: z.number().int().min(1).max(12),
    /** four digits */
    exp_year: z.number().int().min(2000).max(2099),
    amount: z.number().int().nonnegative().safe(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    cardholder_name: z.string().min(1).max(200).optional(),
    /** hex SHA-256 of the payment request's applicationData */
    application_data: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  })
  .strict();

/**
 * Apple Pay in test mode (docs/processor-simulator.md, "Apple Pay"): the test merchant's public key
 * (what a device encrypts payment data for) and the test wallet, which makes the EC_v1 payment data
 * a device would for a test card, as Apple's sandbox wallet does for its test cards. Authorizing it
 * is POST /v1/payments with `payment_method.type: apple_pay`.
 */
export class ApplePayRoutes {
  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      {
        method: 'GET',
        pattern: /^\/apple_pay\/test_merchant$/,
        handle: (_req, res) => sendJson(res, 200, this.context.applePay.describe()),
      },
      {
        method: 'POST',
        pattern: /^\/apple_pay\/test_wallet$/,
        handle: (req, res) => this.#tokenise(req, res),
      },
    ];
  }

  async #tokenise(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(request), testWalletRequestSchema);
    const currencyCode = ISO_4217_NUMERIC[body.currency];
    if (!currencyCode)
      return sendError(response, 400, 'invalid_request', 'the test wallet does not take this currency');
    const paymentData = this.context.applePay.seal(
      {
        applicationPrimaryAccountNumber: body.card_number,
        applicationExpirationDate: `${String(body.exp_year % 100).padStart(2, '0')}${String(body.exp_month).padStart(2, '0')}28`,
        currencyCode,
        transactionAmount: body.amount,
        ...(body.cardholder_name ? { cardholderName: body.cardholder_name } : {}),
        deviceManufacturerIdentifier: '040010030273',
        paymentDataType: '3DSecure',
        paymentData: { onlinePaymentCryptogram: randomBytes(20).toString('base64'), eciIndicator: '7' },
      },
      { applicationData: body.application_data },
    );
    sendJson(response, 200, { payment_data: paymentData });
  }
}
