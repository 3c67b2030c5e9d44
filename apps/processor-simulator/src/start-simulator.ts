import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ApplePayTestKeys } from './apple-pay';
import { ApplePayRoutes } from './apple-pay-routes';
import { CallbackDelivery } from './callback-delivery';
import { CardPaymentRoutes } from './card-payment-routes';
import { BadRequest, BodyTooLargeError, sendError, sendHtml, sendJson } from './http-io';
import { DeferredPaymentRoutes } from './deferred-payment-routes';
import { OperatorPaymentRoutes } from './operator-payment-routes';
import { PaidyRoutes } from './paidy-routes';
import { PayoutRoutes } from './payout-routes';
import { notFoundPage } from './pages';
import {
  type Route,
  type SimulatorContext,
  type SimulatorSettings,
  SimulatorTimers,
} from './simulator-context';
import { SimulatorState, type SimulatorStats } from './simulator-state';
import { ThreeDsRoutes } from './three-ds-routes';

export interface ProcessorSimulatorOptions extends Partial<SimulatorSettings> {
  /** 0 picks a free port */
  port?: number;
  host?: string;
  /** the base of the URLs handed to customers (payment pages, 3DS), when they differ from `url` */
  publicBaseUrl?: string;
  /** when set, /v1 calls need `Authorization: Bearer <apiKey>` */
  apiKey?: string;
  /** HMAC key of the callback signatures; random when not given (read it from the handle) */
  callbackSecret?: string;
  /**
   * the Apple Pay test merchant's payment processing key and the test wallet's signing key (PEM,
   * PKCS #8, P-256); random per start when not given (docs/processor-simulator.md, "Apple Pay")
   */
  applePayMerchantKeyPem?: string;
  applePayWalletKeyPem?: string;
}

export interface ProcessorSimulator {
  /** where the simulator listens, e.g. http://127.0.0.1:41234 */
  url: string;
  publicBaseUrl: string;
  callbackSecret: string;
  stats(): SimulatorStats;
  /** forgets every payment, key and counter */
  reset(): void;
  close(): Promise<void>;
}

export const SIMULATOR_DEFAULTS: SimulatorSettings & { host: string } = {
  host: '127.0.0.1',
  latencyMs: 10,
  latencyJitterMs: 0,
  timeoutHoldMs: 30_000,
  unavailableAttempts: 2,
  operatorPaymentTtlMs: 15 * 60_000,
  callbackMaxAttempts: 5,
  callbackRetryBaseDelayMs: 500,
  callbackTimeoutMs: 5_000,
};

/**
 * Starts the processor simulator: a card acquirer, a wallet that accepts scanned codes and an
 * online/QR operator, in memory, over HTTP. See docs/processor-simulator.md.
 */
export async function startProcessorSimulator(
  options: ProcessorSimulatorOptions = {},
): Promise<ProcessorSimulator> {
  return new SimulatorServer(options).listen(options.port ?? 0, options.host ?? SIMULATOR_DEFAULTS.host);
}

class SimulatorServer {
  readonly #context: SimulatorContext;
  readonly #server: Server;
  readonly #callbackSecret: string;
  readonly #routes: Route[];
  readonly #payouts: PayoutRoutes;
  #publicBaseUrl = '';

  constructor(private readonly options: ProcessorSimulatorOptions) {
    const settings: SimulatorSettings = {
      latencyMs: options.latencyMs ?? SIMULATOR_DEFAULTS.latencyMs,
      latencyJitterMs: options.latencyJitterMs ?? SIMULATOR_DEFAULTS.latencyJitterMs,
      timeoutHoldMs: options.timeoutHoldMs ?? SIMULATOR_DEFAULTS.timeoutHoldMs,
      unavailableAttempts: options.unavailableAttempts ?? SIMULATOR_DEFAULTS.unavailableAttempts,
      operatorPaymentTtlMs: options.operatorPaymentTtlMs ?? SIMULATOR_DEFAULTS.operatorPaymentTtlMs,
      callbackMaxAttempts: options.callbackMaxAttempts ?? SIMULATOR_DEFAULTS.callbackMaxAttempts,
      callbackRetryBaseDelayMs:
        options.callbackRetryBaseDelayMs ?? SIMULATOR_DEFAULTS.callbackRetryBaseDelayMs,
      callbackTimeoutMs: options.callbackTimeoutMs ?? SIMULATOR_DEFAULTS.callbackTimeoutMs,
    };
    this.#callbackSecret = options.callbackSecret ?? randomBytes(32).toString('base64url');
    const state = new SimulatorState();
    const callbacks = new CallbackDelivery(
      {
        secret: this.#callbackSecret,
        maxAttempts: settings.callbackMaxAttempts,
        retryBaseDelayMs: settings.callbackRetryBaseDelayMs,
        timeoutMs: settings.callbackTimeoutMs,
      },
      (stats) => state.callbacks.push(stats),
    );
    this.#context = {
      state,
      settings,
      callbacks,
      timers: new SimulatorTimers(),
      applePay: new ApplePayTestKeys({
        merchantKeyPem: options.applePayMerchantKeyPem,
        walletKeyPem: options.applePayWalletKeyPem,
      }),
      publicBaseUrl: () => this.#publicBaseUrl,
    };

    const cards = new CardPaymentRoutes(this.#context).routes();
    const operator = new OperatorPaymentRoutes(this.#context).routes();
    const threeDs = new ThreeDsRoutes(this.#context).routes();
    const deferred = new DeferredPaymentRoutes(this.#context).routes();
    const applePay = new ApplePayRoutes(this.#context).routes();
    const paidy = new PaidyRoutes(this.#context).routes();
    this.#payouts = new PayoutRoutes(this.#context);
    const testHooks: Route[] = [
      { method: 'GET', pattern: /^\/_sim\/stats$/, handle: (_req, res) => sendJson(res, 200, state.stats()) },
      { method: 'POST', pattern: /^\/_sim\/reset$/, handle: (_req, res) => this.#reset(res) },
      {
        method: 'GET',
        pattern: /^\/_sim\/health$/,
        handle: (_req, res) => sendJson(res, 200, { status: 'ok' }),
      },
    ];
    this.#routes = [
      ...cards,
      ...operator,
      ...threeDs,
      ...deferred,
      ...applePay,
      ...paidy,
      ...this.#payouts.routes(),
      ...testHooks,
    ];

    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch(() =>
        sendError(response, 500, 'internal_error', 'simulator failure'),
      );
    });
  }

  async listen(port: number, host: string): Promise<ProcessorSimulator> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const address = this.#server.address() as AddressInfo;
    const reachableHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
    const url = `http://${reachableHost}:${address.port}`;
    this.#publicBaseUrl = (this.options.publicBaseUrl ?? url).replace(/\/+$/, '');
    return {
      url,
      publicBaseUrl: this.#publicBaseUrl,
      callbackSecret: this.#callbackSecret,
      stats: () => this.#context.state.stats(),
      reset: () => this.#clear(),
      close: () => this.#close(),
    };
  }

  /**
   * /v1 is the processor's API: API key and latency apply. Everything else (customer pages, test
   * hooks) answers at once.
   */
  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://simulator');
    const isApi = url.pathname.startsWith('/v1/');
    const candidates = this.#routes
      .map((route) => ({ route, match: route.pattern.exec(url.pathname) }))
      .filter(({ match }) => match !== null);
    const found = candidates.find(({ route }) => route.method === request.method);
    if (!found?.match) {
      if (candidates.length > 0) return sendError(response, 405, 'method_not_allowed', 'method not allowed');
      if (isApi) return sendError(response, 404, 'not_found', 'no such endpoint');
      return sendHtml(response, 404, notFoundPage());
    }
    if (isApi) {
      if (!this.#authorized(request))
        return sendError(response, 401, 'unauthorized', 'missing or wrong API key');
      await this.#simulateLatency();
    }
    try {
      await found.route.handle(request, response, found.match.slice(1), url);
    } catch (error) {
      if (error instanceof BadRequest) return sendError(response, 400, 'invalid_request', error.message);
      if (error instanceof BodyTooLargeError)
        return sendError(response, 413, 'invalid_request', error.message);
      throw error;
    }
  }

  #authorized(request: IncomingMessage): boolean {
    if (!this.options.apiKey) return true;
    const presented = Buffer.from(request.headers.authorization ?? '');
    const expected = Buffer.from(`Bearer ${this.options.apiKey}`);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  async #simulateLatency(): Promise<void> {
    const delay = simulatedDelayMs(this.#context.settings);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }

  #reset(response: ServerResponse): void {
    this.#clear();
    response.writeHead(204).end();
  }

  #clear(): void {
    this.#context.timers.clearExpiries();
    this.#context.state.clear();
    this.#payouts.reset();
  }

  async #close(): Promise<void> {
    this.#context.callbacks.close();
    this.#context.timers.clearAll();
    this.#context.state.clear();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

/**
 * How long the simulator holds an answer back: the configured latency plus a random share of the
 * jitter (`random` in [0, 1), Math.random unless a test gives its own).
 */
export function simulatedDelayMs(
  settings: { latencyMs: number; latencyJitterMs: number },
  random: () => number = Math.random,
): number {
  return settings.latencyMs + random() * settings.latencyJitterMs;
}
