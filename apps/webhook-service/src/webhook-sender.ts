import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import type { DeliveryToSend } from '@kessai/db';
import {
  isAllowedWebhookTarget,
  webhookTargetPolicy,
  webhookUrlTarget,
  type WebhookTargetPolicy,
  type WebhookUrlTarget,
} from '@kessai/domain';
import { ForbiddenAddressError, guardedLookup } from './guarded-lookup';

/** What one try got: the HTTP status (null: no answer), how long it took, and the failure's text. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  /** null on a 2xx; `HTTP <status>` for another answer; else one of TRY_FAILURES, never a socket's text */
  error: string | null;
  /** the answer's first bytes (at most SNIPPET_BYTES, control characters as spaces), for the log */
  responseSnippet: string | null;
  /** for the operator's log only, never the merchant's: what Node said of a try without an answer */
  cause?: string;
}

/**
 * The delivery log's reasons for a try without an answer (docs/webhooks.md): generic, so that the
 * log tells a merchant nothing of Kessai's network (no socket error, no resolved address, no bytes of
 * a target that was refused).
 */
export const TRY_FAILURES = {
  /** the host is, or resolved to, an address the rule refuses: nothing was sent */
  targetNotAllowed: 'target address not allowed',
  /** DNS, connection, TLS or socket failure before a status line */
  connectionFailed: 'connection failed',
  /** no status line within WEBHOOK_TIMEOUT_MS */
  timedOut: 'timed out',
  /** the request could not be made from the webhook's settings (its URL or auth_token): nothing was sent */
  notSent: 'request could not be made',
} as const;

/** How much of an answer the delivery log keeps. */
export const SNIPPET_BYTES = 200;

/** How long, after the status line, a try waits for the answer's first bytes. */
const SNIPPET_WAIT_MS = 1_000;

class TryTimeoutError extends Error {}

/**
 * Sends one try of a delivery (docs/webhooks.md): POST of the stored body with Standard Webhooks
 * signing (`webhook-id` = the delivery id, the same on every try; `webhook-timestamp` and
 * `webhook-signature` of this try, by the `standardwebhooks` package) and, when the webhook has an
 * auth_token, `Authorization` as UnivaPay sends it (api-reference §6: as given, `Bearer ` put in
 * front when it has no scheme). No status line within WEBHOOK_TIMEOUT_MS is a failure; redirects are
 * not followed (a 3xx is a failure); the answer's first bytes are kept for the log, the rest
 * drained. Every webhook, test or live, is held to the address rule (decision 0024) against the
 * address its connection goes to: an IP host before connecting, a name through guardedLookup, so a
 * refused address gets nothing. A try never throws: whatever goes wrong is its failed result.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  readonly #timeoutMs: number;
  readonly #targets: WebhookTargetPolicy;
  /**
   * One pair for every webhook: the rule is the same for all, and a kept-alive socket (pooled by
   * host and port) was checked when it connected. The lookup is the request's (it knows the port),
   * which these agents leave alone.
   */
  readonly #agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };

  /** signers by secret and parsed URLs by text, kept while in use (a few per webhook; bounded) */
  readonly #signers = new BoundedCache<StandardWebhook>(10_000);
  readonly #urls = new BoundedCache<WebhookUrlTarget | null>(10_000);

  constructor(
    @Inject(APP_CONFIG)
    config: Pick<
      AppConfig,
      'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_ALLOW_PRIVATE_TARGETS' | 'WEBHOOK_ALLOWED_PRIVATE_TARGETS'
    >,
  ) {
    this.#timeoutMs = config.WEBHOOK_TIMEOUT_MS;
    this.#targets = webhookTargetPolicy(
      config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      config.WEBHOOK_ALLOWED_PRIVATE_TARGETS,
    );
  }

  onModuleDestroy() {
    for (const agent of Object.values(this.#agents)) agent.destroy();
  }

  async send(delivery: DeliveryToSend, now = new Date()): Promise<SendResult> {
    try {
      return await this.#send(delivery, now);
    } catch (error) {
      // e.g. a header value Node refuses (an auth_token stored before the rule): this try fails,
      // no other
      return { ...notSent(TRY_FAILURES.notSent), cause: causeOf(error) };
    }
  }

  #send(delivery: DeliveryToSend, now: Date): Promise<SendResult> {
    const target = this.#urls.get(delivery.url, () => webhookUrlTarget(delivery.url));
    if (target === null) return Promise.resolve(notSent(TRY_FAILURES.notSent));
    const { url, host, hostIsIp, port } = target;
    if (hostIsIp && !isAllowedWebhookTarget(host, port, this.#targets))
      return Promise.resolve(notSent(TRY_FAILURES.targetNotAllowed));
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
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        headers,
        agent: secure ? this.#agents.https : this.#agents.http,
        lookup: guardedLookup(this.#targets, port),
      });
      const timer = setTimeout(
        () => request.destroy(new TryTimeoutError(`no answer within ${this.#timeoutMs} ms`)),
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
        resolve({
          statusCode: null,
          durationMs: elapsed(),
          error: reasonOf(error),
          responseSnippet: null,
          cause: causeOf(error),
        });
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

/** A try that sent nothing. */
function notSent(reason: string): SendResult {
  return { statusCode: null, durationMs: 0, error: reason, responseSnippet: null };
}

/** The delivery log's reason for a try that got no answer. */
function reasonOf(error: Error): string {
  if (error instanceof ForbiddenAddressError) return TRY_FAILURES.targetNotAllowed;
  if (error instanceof TryTimeoutError) return TRY_FAILURES.timedOut;
  return TRY_FAILURES.connectionFailed;
}

function causeOf(error: unknown): string {
  const text =
    error instanceof Error
      ? `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}`
      : String(error);
  return text.slice(0, 500);
}
