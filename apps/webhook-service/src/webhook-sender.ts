import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import type { DeliveryToSend } from '@kessai/db';
import {
  isAllowedWebhookTarget,
  webhookTargetPolicy,
  webhookUrlTarget,
  type WebhookTargetPolicy,
} from '@kessai/domain';
import { ForbiddenAddressError, guardedLookup } from './guarded-lookup';
import { signatureOf, signingKeyOf } from './webhook-signature';

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
 * A webhook URL as its tries use it, worked out once: node:http's options of it, whether the rule
 * refuses its IP host (the rule is the process's, fixed at start), and the lookup that checks a
 * name's addresses for its port.
 */
interface PreparedTarget {
  secure: boolean;
  /** an IP host the address rule refuses: nothing is sent */
  refused: boolean;
  options: http.RequestOptions;
  lookup: ReturnType<typeof guardedLookup>;
}

/**
 * Sends one try of a delivery (docs/webhooks.md): POST of the stored body with Standard Webhooks
 * signing (`webhook-id` = the delivery id, the same on every try; `webhook-timestamp` and
 * `webhook-signature` of this try: the `standardwebhooks` package's bytes, made by node:crypto in
 * webhook-signature.ts) and, when the webhook has an auth_token, `Authorization` as UnivaPay sends
 * it (api-reference §6: as given, `Bearer ` put in front when it has no scheme). No status line
 * within WEBHOOK_TIMEOUT_MS is a failure; redirects are not followed (a 3xx is a failure); the
 * answer's first bytes are kept for the log, the rest drained. Every webhook, test or live, is held
 * to the address rule (decision 0024) against the address its connection goes to: an IP host before
 * connecting, a name through guardedLookup, so a refused address gets nothing. A try never throws:
 * whatever goes wrong is its failed result.
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

  /**
   * HMAC keys by secret and prepared URLs by text, kept while in use (a few per webhook; bounded).
   * Keyed by the secret itself, read from the webhook's row with every batch of tries: a rotated or
   * deleted secret is never used again, whatever the cache holds (decision 0082).
   */
  readonly #keys = new BoundedCache<Buffer>(10_000);
  readonly #urls = new BoundedCache<PreparedTarget | null>(10_000);

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
    const target = this.#urls.get(delivery.url, () => this.#prepare(delivery.url));
    if (target === null) return Promise.resolve(notSent(TRY_FAILURES.notSent));
    if (target.refused) return Promise.resolve(notSent(TRY_FAILURES.targetNotAllowed));
    // the body's bytes once: its length, its signatures and the request all use them
    const body = Buffer.from(delivery.body);
    const timestamp = Math.floor(now.getTime() / 1_000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'Kessai-Webhooks/1.0',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      // during a rotation's overlap, a signature by each secret (Standard Webhooks: space-separated)
      'webhook-signature': this.#signatures(delivery, timestamp, body),
    };
    if (delivery.authToken !== null) headers.authorization = authorizationOf(delivery.authToken);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      const request = (target.secure ? https : http).request({
        ...target.options,
        method: 'POST',
        headers,
        agent: target.secure ? this.#agents.https : this.#agents.http,
        lookup: target.lookup,
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
        // drained (so that the socket can be kept), one still coming the timeout after its status
        // line cut off
        const drainUntil = Date.now() + this.#timeoutMs;
        const chunks: Buffer[] = [];
        let size = 0;
        let done = false;
        let ended = false;
        let drainTimer: NodeJS.Timeout | undefined;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(snippetTimer);
          if (!ended) drainTimer = setTimeout(() => response.destroy(), Math.max(0, drainUntil - Date.now()));
          const responseSnippet = snippetOf(Buffer.concat(chunks));
          resolve({ statusCode, durationMs, error: ok ? null : `HTTP ${statusCode}`, responseSnippet });
        };
        const snippetTimer = setTimeout(finish, SNIPPET_WAIT_MS);
        const over = () => {
          ended = true;
          clearTimeout(drainTimer);
          finish();
        };
        response.on('data', (chunk: Buffer) => {
          if (size < SNIPPET_BYTES) {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= SNIPPET_BYTES) finish();
          }
        });
        response.on('end', over);
        response.on('error', finish);
        response.on('close', over);
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
      request.end(body);
    });
  }

  /** The try's webhook-signature: by the secret, and by the previous one during its overlap. */
  #signatures(delivery: DeliveryToSend, timestamp: number, body: Buffer): string {
    const sign = (secret: string) =>
      signatureOf(
        this.#keys.get(secret, () => signingKeyOf(secret)),
        delivery.id,
        timestamp,
        body,
      );
    const current = sign(delivery.signingSecret);
    return delivery.previousSigningSecret === null
      ? current
      : `${current} ${sign(delivery.previousSigningSecret)}`;
  }

  #prepare(raw: string): PreparedTarget | null {
    const target = webhookUrlTarget(raw);
    if (target === null) return null;
    const { url, host, hostIsIp, port } = target;
    return {
      secure: url.protocol === 'https:',
      refused: hostIsIp && !isAllowedWebhookTarget(host, port, this.#targets),
      options: urlToHttpOptions(url),
      lookup: guardedLookup(this.#targets, port),
    };
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
