// A local webhook receiver for suites: the merchant's endpoint, the outside world that webhooks reach.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { eventually } from './eventually';

/** What the receiver got: one entry per request, per path. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** A planned "status" that never answers: the request hangs until the client gives up. */
export const HANG = 0;

/**
 * A local webhook receiver: records every request under its path and answers the statuses planned
 * for that path, in order (HANG: no answer), then 200.
 */
export class WebhookReceiver {
  readonly received = new Map<string, Received[]>();
  readonly #plans = new Map<string, number[]>();
  readonly #open = new Map<string, number>();
  #server: Server | undefined;
  url = '';

  /**
   * Listens on `host` (loopback unless told: a deployment in containers may reach the host elsewhere)
   * and `port` (any free one unless told: an operator's allow-list names exact ports).
   */
  async start(host = '127.0.0.1', port = 0): Promise<void> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const list = this.received.get(path) ?? [];
        const body = Buffer.concat(chunks).toString('utf8');
        list.push({ headers: request.headers, body, receivedAt: Date.now() });
        this.received.set(path, list);
        const status = this.#plans.get(path)?.shift() ?? 200;
        if (status === HANG) {
          this.#open.set(path, this.open(path) + 1);
          response.on('close', () => this.#open.set(path, this.open(path) - 1));
          return;
        }
        response.statusCode = status;
        if (status >= 300 && status < 400) response.setHeader('location', `${this.url}/redirected`);
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(port, host, resolve));
    this.url = `http://${host}:${(this.#server.address() as AddressInfo).port}`;
  }

  plan(path: string, statuses: number[]): void {
    this.#plans.set(path, [...statuses]);
  }

  /** requests on `path` still waiting for an answer */
  open(path: string): number {
    return this.#open.get(path) ?? 0;
  }

  of(path: string): Received[] {
    return this.received.get(path) ?? [];
  }

  close(): Promise<void> {
    this.#server?.closeAllConnections();
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** Waits until `count` requests on `path` carry this event about the resource `dataId`. */
  waitFor(path: string, event: string, dataId: string, count = 1, timeoutMs = 15_000) {
    return eventually(
      () => {
        const matching = this.of(path).filter((request) => {
          const body = JSON.parse(request.body) as { event: string; data: { id: string } };
          return body.event === event && body.data.id === dataId;
        });
        return matching.length >= count ? matching : null;
      },
      { timeoutMs, what: `${count} ${event} on ${path}` },
    );
  }
}

/** A received delivery verified with the webhook's signing secret (Standard Webhooks); throws if it is not. */
export function verifiedWebhook(secret: string, request: Received) {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new StandardWebhook(secret).verify(request.body, headers) as {
    id: string;
    event: string;
    data: Record<string, unknown>;
  };
}
