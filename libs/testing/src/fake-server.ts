import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

// What the fakes of the outside world (a processor's API, a callback endpoint) share: a local HTTP
// server that reads each request's body whole, the faults a test injects into a processor, and
// idempotency keys kept as the processors keep them.

export interface LocalServer {
  /** the port it listens on, at 127.0.0.1 */
  port: number;
  /** stops listening and drops the connections still open */
  close(): Promise<void>;
}

/** An HTTP server on a free local port, handing each request over with its body read as UTF-8. */
export async function startLocalServer(
  handle: (request: IncomingMessage, response: ServerResponse, body: string) => void,
): Promise<LocalServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The faults a test asks of a processor fake: requests refused unexecuted, or executed and answered late. */
export class InjectedFaults {
  #failing = 0;
  #delaying = 0;
  #delayMs = 0;

  /** the next `count` requests that can fail are refused without being executed */
  failNext(count: number): void {
    this.#failing = count;
  }

  /** the next `count` answers given through `answer` are sent after `ms` */
  delayNext(count: number, ms: number): void {
    this.#delaying = count;
    this.#delayMs = ms;
  }

  /** whether this request is one of those to refuse (it is then counted off) */
  takeFailure(): boolean {
    if (this.#failing === 0) return false;
    this.#failing--;
    return true;
  }

  /** sends now, or after the delay asked when one is still owed */
  answer(send: () => void): void {
    if (this.#delaying === 0) return send();
    this.#delaying--;
    setTimeout(send, this.#delayMs).unref();
  }
}

/**
 * What a request under an idempotency key gets: the first is executed (`keep` records its answer),
 * a repeat with the same path and body replays that answer, one while the first runs is in
 * progress, one with another path or body is a mismatch.
 */
export type IdempotentTurn<A> =
  | { kind: 'first'; keep(answer: A): void; forget(): void }
  | { kind: 'replay'; answer: A }
  | { kind: 'in-progress' }
  | { kind: 'mismatch' };

export class IdempotencyKeys<A> {
  readonly #kept = new Map<string, { fingerprint: string; answer: A | null }>();

  turn(key: string, path: string, body: string): IdempotentTurn<A> {
    const fingerprint = createHash('sha256').update(`${path}\n${body}`).digest('hex');
    const kept = this.#kept.get(key);
    if (kept) {
      if (kept.fingerprint !== fingerprint) return { kind: 'mismatch' };
      return kept.answer === null ? { kind: 'in-progress' } : { kind: 'replay', answer: kept.answer };
    }
    const entry: { fingerprint: string; answer: A | null } = { fingerprint, answer: null };
    this.#kept.set(key, entry);
    return {
      kind: 'first',
      keep: (answer) => {
        entry.answer = answer;
      },
      forget: () => this.#kept.delete(key),
    };
  }
}

/** A JSON object: what a fake reads a request's body or an object's field as. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** POSTs a webhook as a processor sends one: the status answered, 0 when no answer came. */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  try {
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.text();
    return response.status;
  } catch {
    return 0;
  }
}
