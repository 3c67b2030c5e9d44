import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import type { DeliveryToSend } from '@kessai/db';
import { isForbiddenWebhookAddress } from '@kessai/domain';
import { ForbiddenAddressError, guardedLookup } from './guarded-lookup';

/** What one try got: the HTTP status (null: no answer), how long it took, and the failure's text. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** the answer's first bytes (at most SNIPPET_BYTES, control characters as spaces), for the log */
  responseSnippet: string | null;
}

/** How much of an answer the delivery log keeps. */
export const SNIPPET_BYTES = 200;

/** How long, after the status line, a try waits for the answer's first bytes. */
const SNIPPET_WAIT_MS = 1_000;

/**
 * Sends one try of a delivery (docs/webhooks.md): POST of the stored body with Standard Webhooks
 * signing (`webhook-id` = the delivery id, the same on every try; `webhook-timestamp` and
 * `webhook-signature` of this try, by the `standardwebhooks` package) and, when the webhook has an
 * auth_token, `Authorization` as UnivaPay sends it (api-reference §6: as given, `Bearer ` put in
 * front when it has no scheme). No status line within WEBHOOK_TIMEOUT_MS is a failure; redirects are
 * not followed (a 3xx is a failure); the answer's first bytes are kept for the log, the rest
 * drained. A live webhook's connections resolve through guardedLookup, on keep-alive sockets of
 * their own (never one a test webhook opened), so a forbidden address is refused at connect time
 * with nothing sent.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  readonly #timeoutMs: number;
  readonly #agents = {
    test: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
    live: {
      http: new http.Agent({ keepAlive: true, lookup: guardedLookup() }),
      https: new https.Agent({ keepAlive: true, lookup: guardedLookup() }),
    },
  };

  /** signers by secret and parsed URLs by text, kept while in use (a few per webhook; bounded) */
  readonly #signers = new BoundedCache<StandardWebhook>(10_000);
  readonly #urls = new BoundedCache<URL>(10_000);

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.#timeoutMs = config.WEBHOOK_TIMEOUT_MS;
  }

  onModuleDestroy() {
    for (const agents of Object.values(this.#agents))
      for (const agent of Object.values(agents)) agent.destroy();
  }

  send(delivery: DeliveryToSend, now = new Date()): Promise<SendResult> {
    const url = this.#urls.get(delivery.url, () => new URL(delivery.url));
    const live = delivery.mode === 'live';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (live && isIP(host) !== 0 && isForbiddenWebhookAddress(host))
      return Promise.resolve({
        statusCode: null,
        durationMs: 0,
        error: failureOf(new ForbiddenAddressError(host, host)),
        responseSnippet: null,
      });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(delivery.body)),
      'user-agent': 'Kessai-Webhooks/1.0',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1_000)),
      // during a rotation's overlap, a signature by each secret (Standard Webhooks: space-separated)
      'webhook-signature': [delivery.signingSecret, delivery.previousSigningSecret]
        .flatMap((secret) =>
          secret === null
            ? []
            : [
                this.#signers
                  .get(secret, () => new StandardWebhook(secret))
                  .sign(delivery.id, now, delivery.body),
              ],
        )
        .join(' '),
    };
    if (delivery.authToken !== null) headers.authorization = authorizationOf(delivery.authToken);
    const secure = url.protocol === 'https:';
    const agents = this.#agents[live ? 'live' : 'test'];
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        headers,
        agent: secure ? agents.https : agents.http,
      });
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
      request.on('response', (response) => {
        clearTimeout(timer);
        const statusCode = response.statusCode ?? 0;
        const ok = statusCode >= 200 && statusCode < 300;
        const durationMs = elapsed();
        // the answer counts from its status line; its first bytes are kept for the log, the rest
        // drained (so that the socket can be kept), an endless one cut off after the timeout
        const chunks: Buffer[] = [];
        let size = 0;
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(snippetTimer);
          const responseSnippet = snippetOf(Buffer.concat(chunks));
          resolve({ statusCode, durationMs, error: ok ? null : `HTTP ${statusCode}`, responseSnippet });
        };
        const snippetTimer = setTimeout(finish, SNIPPET_WAIT_MS);
        const drainTimer = setTimeout(() => response.destroy(), this.#timeoutMs);
        response.on('data', (chunk: Buffer) => {
          if (size < SNIPPET_BYTES) {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= SNIPPET_BYTES) finish();
          }
        });
        response.on('end', () => {
          clearTimeout(drainTimer);
          finish();
        });
        response.on('error', finish);
        response.on('close', () => {
          clearTimeout(drainTimer);
          finish();
        });
      });
      request.on('error', (error) => {
        clearTimeout(timer);
        resolve({ statusCode: null, durationMs: elapsed(), error: failureOf(error), responseSnippet: null });
      });
      request.end(delivery.body);
    });
  }
}

/** The auth_token as the receiver's Authorization header: as stored, with `Bearer ` when it has no scheme. */
export function authorizationOf(authToken: string): string {
  return /^[A-Za-z][A-Za-z0-9._~+/-]*\s/.test(authToken) ? authToken : `Bearer ${authToken}`;
}

/** A map that forgets everything when it reaches `max` entries: a cache of few, long-lived keys. */
class BoundedCache<V> {
  readonly #entries = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string, make: () => V): V {
    let value = this.#entries.get(key);
    if (value === undefined) {
      if (this.#entries.size >= this.max) this.#entries.clear();
      value = make();
      this.#entries.set(key, value);
    }
    return value;
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

export function snippetOf(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  return bytes.subarray(0, SNIPPET_BYTES).toString('utf8').replace(CONTROL_CHARACTERS, ' ');
}

function failureOf(error: unknown): string {
  const text =
    error instanceof Error
      ? `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}`
      : String(error);
  return text.slice(0, 500);
}
