// The chaos suite's HTTP client: a merchant's integration done right — every POST under an
// Idempotency-Key, asked again under the same key on 503, other 5xx, 409 REQUEST_IN_PROGRESS, 429
// and connection errors, with backoff — and a record of every answer, for the 5xx count.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer, cardData, ordinaryCardNumber, type Credentials } from '@kessai/testing';

/** One answer the gateway gave (or the connection error instead). */
export interface Answer {
  at: number;
  method: string;
  path: string;
  status: number | 'connection';
  code?: string;
  /** whether the body was the API's error envelope (an object with `code`) */
  enveloped: boolean;
  /** a connection error's cause (ECONNREFUSED, ECONNRESET, …) */
  cause?: string;
}

/** A parsed answer body: the suite reads the API's bodies freely. */
export type Body = any;

export class GaveUpError extends Error {}

/**
 * The key's first request was cut off inside the gateway (the process died, or its write's outcome
 * was lost): the gateway keeps the key in progress until it expires (IDEMPOTENCY_TTL_HOURS), since
 * whether the write happened is unknown. What the API did is unknown to the client.
 */
export class UnresolvedKeyError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly key: string,
    /** Date.now() when the key's first request was sent */
    readonly sentAt: number,
  ) {
    super(`${method} ${path}: key ${key} still in progress after ${IN_PROGRESS_PATIENCE_MS / 1000} s`);
  }
}

/** How long a 409 REQUEST_IN_PROGRESS is asked again: a request that still runs ends well within it. */
const IN_PROGRESS_PATIENCE_MS = 20_000;

export class ChaosClient {
  readonly answers: Answer[] = [];
  /** keys whose outcome the client never learnt */
  readonly unresolved: UnresolvedKeyError[] = [];
  /** stops the retry loops of calls still running (the load ends) */
  stopped = false;

  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials,
    /** how long one call retries before it gives up */
    readonly retryForMs = 120_000,
  ) {}

  /**
   * A request retried under one Idempotency-Key (POST/PATCH) until it gets an answer other than a
   * transient one; that answer. `expect` lists the statuses the caller takes; any other fails.
   */
  async call(
    method: string,
    path: string,
    body?: unknown,
    { expect = [200, 201], key = randomUUID() }: { expect?: number[]; key?: string } = {},
  ): Promise<{ status: number; body: Body }> {
    const deadline = Date.now() + this.retryForMs;
    let delay = 100;
    let last = '';
    let inProgressSince: number | undefined;
    const sentAt = Date.now();
    for (;;) {
      const answer = await this.once(method, path, body, method === 'GET' ? undefined : key);
      if (inProgress(answer.status, answer.body)) {
        inProgressSince ??= Date.now();
        if (Date.now() - inProgressSince > IN_PROGRESS_PATIENCE_MS) {
          const unresolved = new UnresolvedKeyError(method, route(path), key, sentAt);
          this.unresolved.push(unresolved);
          throw unresolved;
        }
      } else if (typeof answer.status === 'number' && !transient(answer.status)) {
        if (!expect.includes(answer.status)) {
          throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        }
        return { status: answer.status, body: answer.body };
      }
      last = `${answer.status} ${answer.body ? JSON.stringify(answer.body) : ''}`;
      if (this.stopped) throw new GaveUpError(`${method} ${path}: the load stopped (last: ${last})`);
      if (Date.now() > deadline)
        throw new GaveUpError(`${method} ${path} gave up after ${this.retryForMs} ms: ${last}`);
      await sleep(delay * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 2_000);
    }
  }

  /**
   * POST /tokens for a card (one the simulator approves, refunds and voids unless told); its id. A
   * key left unresolved by a crash is given up for a new one: a token is no money.
   */
  async cardToken(type: 'one_time' | 'subscription', cardNumber = ordinaryCardNumber()): Promise<string> {
    for (;;) {
      try {
        const { body } = await this.call(
          'POST',
          '/tokens',
          {
            payment_type: 'card',
            type,
            email: 'buyer@example.test',
            data: cardData({ card_number: cardNumber }),
          },
          { expect: [201] },
        );
        return String(body.id);
      } catch (error) {
        if (!(error instanceof UnresolvedKeyError)) throw error;
      }
    }
  }

  /** One request, recorded; a connection error is an answer too. */
  async once(
    method: string,
    path: string,
    body: unknown,
    key: string | undefined,
  ): Promise<{ status: number | 'connection'; body: Body }> {
    const headers: Record<string, string> = { authorization: bearer(this.credentials) };
    if (key) headers['idempotency-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const at = Date.now();
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let parsed: Body = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = { unparsed: text.slice(0, 200) };
      }
      const code =
        parsed && typeof parsed === 'object' && typeof parsed.code === 'string' ? parsed.code : undefined;
      this.answers.push({
        at,
        method,
        path: route(path),
        status: response.status,
        code,
        enveloped: code !== undefined,
      });
      return { status: response.status, body: parsed };
    } catch (error) {
      const cause = causeOf(error);
      this.answers.push({ at, method, path: route(path), status: 'connection', enveloped: false, cause });
      return {
        status: 'connection',
        body: { error: error instanceof Error ? error.message : String(error) },
      };
    }
  }
}

/** What fetch's "fetch failed" was: the code of its cause, or its message. */
function causeOf(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.name : String(error));
}

function transient(status: number): boolean {
  return status >= 500 || status === 429;
}

/** 409 IDEMPOTENCY_KEY_CONFLICT with reason REQUEST_IN_PROGRESS: the key's first request has not ended. */
function inProgress(status: number | 'connection', body: Body): boolean {
  return (
    status === 409 &&
    Array.isArray(body?.errors) &&
    (body.errors as Array<{ reason?: string }>).some((error) => error.reason === 'REQUEST_IN_PROGRESS')
  );
}

/** The path with its ids replaced, so that answers group by route. */
function route(path: string): string {
  return path
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':id')
    .replace(/\?.*$/, '');
}
