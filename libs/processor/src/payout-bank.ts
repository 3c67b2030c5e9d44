import { z } from 'zod';
import { TransientProcessorError, ProcessorRequestRejectedError } from './processor-errors';

/** What the bank is asked to pay: Kessai's transfer, to its bank account. */
export interface PayoutRequest {
  /** the transfer's id: the bank keys the payout by it */
  reference: string;
  amount: bigint;
  currency: string;
  account: { holderName: string; bankName: string; lastFour: string };
  /** where the bank posts its signed `payout` notice */
  callbackUrl: string;
}

/** The bank side of payouts (a port: the simulator's test bank, a real bank's API). */
export interface PayoutBank {
  /** Hands a payout to the bank; the same reference again is the same payout. */
  send(request: PayoutRequest): Promise<{ payoutId: string }>;
}

export const payoutRequestWireSchema = z.object({
  reference: z.string().min(1).max(200),
  amount: z.number().int().positive().safe(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  account: z.object({ holder_name: z.string(), bank_name: z.string(), last_four: z.string() }),
  callback_url: z.string().url(),
});

const payoutAnswerSchema = z.object({ id: z.string().min(1), status: z.string() });

/** The payouts API of the simulator's test bank (docs/processor-simulator.md, "Payouts"), over HTTP. */
export class HttpPayoutBank implements PayoutBank {
  constructor(private readonly options: { baseUrl: string; apiKey?: string; timeoutMs: number }) {}

  async send(request: PayoutRequest): Promise<{ payoutId: string }> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
      'idempotency-key': `payout-${request.reference}`,
    };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const body = {
      reference: request.reference,
      amount: Number(request.amount),
      currency: request.currency,
      account: {
        holder_name: request.account.holderName,
        bank_name: request.account.bankName,
        last_four: request.account.lastFour,
      },
      callback_url: request.callbackUrl,
    } satisfies z.input<typeof payoutRequestWireSchema>;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.options.baseUrl.replace(/\/+$/, '')}/v1/payouts`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      text = await response.text();
    } catch {
      throw new TransientProcessorError('create_payout', 'network');
    }
    if (response.status >= 500 || response.status === 429)
      throw new TransientProcessorError('create_payout', 'server_error', response.status);
    if (response.status >= 300)
      throw new ProcessorRequestRejectedError('create_payout', response.status, 'rejected', 'payout refused');
    const parsed = payoutAnswerSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new TransientProcessorError('create_payout', 'malformed_response');
    return { payoutId: parsed.data.id };
  }
}
