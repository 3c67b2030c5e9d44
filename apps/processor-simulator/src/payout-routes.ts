import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { payoutRequestWireSchema, type ProcessorCallbackWire } from '@kessai/processor';
import { idempotencyKeyOf, parseJson, readBody, sendError, sendJson } from './http-io';
import { type Route, type SimulatorContext } from './simulator-context';

/** An account number ending so is closed at the test bank: its payouts fail (docs/processor-simulator.md). */
export const FAILING_PAYOUT_LAST_FOUR = '0000';
const CLOSED = 'ACCOUNT_CLOSED';

interface SimulatedPayout {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  status: 'processing' | 'paid' | 'failed';
  errorCode: string | null;
  createdOn: string;
}

const toWire = (payout: SimulatedPayout) => ({
  id: payout.id,
  reference: payout.reference,
  amount: payout.amount,
  currency: payout.currency,
  status: payout.status,
  error_code: payout.errorCode,
  created_on: payout.createdOn,
});

/**
 * The test bank's payouts: `POST /v1/payouts` takes one (keyed by its reference, Kessai's transfer
 * id: the same payout asked again, after a crash, is the same payout), answers `processing`, and
 * after the simulator's latency pays it, or fails it when the account's number ends in 0000 (a
 * closed account), posting a signed `payout` notice to its callback URL. `GET /v1/payouts/:id`
 * answers it as it is.
 */
export class PayoutRoutes {
  readonly #payouts = new Map<string, SimulatedPayout>();
  readonly #byReference = new Map<string, string>();

  constructor(private readonly context: SimulatorContext) {}

  routes(): Route[] {
    return [
      { method: 'POST', pattern: /^\/v1\/payouts$/, handle: (req, res) => this.#create(req, res) },
      {
        method: 'GET',
        pattern: /^\/v1\/payouts\/([^/]+)$/,
        handle: (_req, res, [id]) => {
          const payout = this.#payouts.get(id);
          return payout
            ? sendJson(res, 200, toWire(payout))
            : sendError(res, 404, 'not_found', 'no such payout');
        },
      },
    ];
  }

  reset(): void {
    this.#payouts.clear();
    this.#byReference.clear();
  }

  async #create(request: IncomingMessage, response: ServerResponse): Promise<void> {
    idempotencyKeyOf(request);
    const body = parseJson(await readBody(request), payoutRequestWireSchema);
    const known = this.#byReference.get(body.reference);
    if (known) return sendJson(response, 200, toWire(this.#payouts.get(known)!));
    const payout: SimulatedPayout = {
      id: `po_${randomUUID()}`,
      reference: body.reference,
      amount: body.amount,
      currency: body.currency,
      status: 'processing',
      errorCode: null,
      createdOn: new Date().toISOString(),
    };
    this.#payouts.set(payout.id, payout);
    this.#byReference.set(payout.reference, payout.id);
    this.context.timers.hold(this.context.settings.latencyMs, () => {
      const fails = body.account.last_four === FAILING_PAYOUT_LAST_FOUR;
      payout.status = fails ? 'failed' : 'paid';
      payout.errorCode = fails ? CLOSED : null;
      const notice: ProcessorCallbackWire = {
        id: `ntf_${randomUUID()}`,
        event: 'payout',
        payout_id: payout.id,
        reference: payout.reference,
        status: payout.status,
        error_code: payout.errorCode,
        amount: payout.amount,
        currency: payout.currency,
        occurred_on: new Date().toISOString(),
      };
      this.context.callbacks.deliver(body.callback_url, notice);
    });
    sendJson(response, 201, toWire(payout));
  }
}
