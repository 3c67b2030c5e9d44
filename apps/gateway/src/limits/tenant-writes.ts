import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '@kessai/config';
import { ServiceUnavailableError } from '@kessai/domain';
import { sendError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/error-response';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * How many write requests of one merchant a gateway process runs at once: its share of the
 * process's Postgres pool. TENANT_WRITE_CONCURRENCY when set; otherwise the pool less a reserve
 * (a quarter of it, at least 2 connections) that one merchant can never take.
 */
export function tenantWriteConcurrency(
  config: Pick<AppConfig, 'DB_POOL_SIZE' | 'TENANT_WRITE_CONCURRENCY'>,
): number {
  if (config.TENANT_WRITE_CONCURRENCY !== undefined) return config.TENANT_WRITE_CONCURRENCY;
  const reserve = Math.max(2, Math.ceil(config.DB_POOL_SIZE / 4));
  return Math.max(1, config.DB_POOL_SIZE - reserve);
}

interface Waiter {
  grant(): void;
  timer: NodeJS.Timeout;
}

/** Per-merchant counting semaphores, in this process. */
export class TenantWriteLimiter {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(
    readonly concurrency: number,
    private readonly maxWaitMs: number,
    /** waiters beyond this many per merchant are refused at once */
    private readonly maxQueue: number,
  ) {}

  /** Resolves true once `tenant` has a slot; false when none came within the wait (or the queue is full). */
  acquire(tenant: string): Promise<boolean> {
    const running = this.running.get(tenant) ?? 0;
    if (running < this.concurrency) {
      this.running.set(tenant, running + 1);
      return Promise.resolve(true);
    }
    const queue = this.waiting.get(tenant) ?? [];
    if (queue.length >= this.maxQueue) return Promise.resolve(false);
    this.waiting.set(tenant, queue);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => resolve(true),
        timer: setTimeout(() => {
          const current = this.waiting.get(tenant) ?? [];
          const index = current.indexOf(waiter);
          if (index >= 0) current.splice(index, 1);
          if (current.length === 0) this.waiting.delete(tenant);
          resolve(false);
        }, this.maxWaitMs),
      };
      queue.push(waiter);
    });
  }

  /** Gives a slot back: to the merchant's next waiter, if any. */
  release(tenant: string): void {
    const queue = this.waiting.get(tenant);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(tenant);
    if (next) {
      clearTimeout(next.timer);
      next.grant();
      return;
    }
    const running = (this.running.get(tenant) ?? 1) - 1;
    if (running <= 0) this.running.delete(tenant);
    else this.running.set(tenant, running);
  }

  /** Slots in use by `tenant` (tests, metrics). */
  inUse(tenant: string): number {
    return this.running.get(tenant) ?? 0;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the merchant whose write slot this request holds, until its answer is sent */
    tenantWriteSlot?: string;
  }
}

/**
 * One merchant's write requests hold at most its share of the gateway's Postgres pool at once
 * (issue 27: concurrent PATCHes of one store waited on the store's row lock while holding every
 * pooled connection, and other merchants' reads stalled). A write beyond the share waits for a slot
 * of its own merchant, before it touches Postgres; one that waits longer than TENANT_WRITE_WAIT_MS
 * answers 503 SERVICE_UNAVAILABLE_TRY_AGAIN with Retry-After. Reads are not counted: they take no
 * row locks and hold a connection for one statement.
 */
export function registerTenantWriteLimit(fastify: FastifyInstance, config: AppConfig): TenantWriteLimiter {
  const concurrency = tenantWriteConcurrency(config);
  const limiter = new TenantWriteLimiter(concurrency, config.TENANT_WRITE_WAIT_MS, concurrency * 50);
  const release = (request: FastifyRequest) => {
    const tenant = request.tenantWriteSlot;
    if (tenant === undefined) return;
    request.tenantWriteSlot = undefined;
    limiter.release(tenant);
  };
  fastify.addHook('preHandler', async (request, reply) => {
    const tenant = request.principal?.merchantId;
    if (tenant === undefined || !WRITE_METHODS.has(request.method)) return;
    if (!(await limiter.acquire(tenant))) {
      return sendError(reply, new ServiceUnavailableError(), {
        'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
      });
    }
    request.tenantWriteSlot = tenant;
  });
  fastify.addHook('onResponse', (request, _reply, done) => {
    release(request);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    release(request);
    done();
  });
  return limiter;
}
