import type { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import type { AppConfig } from '@kessai/config';
import { WEBHOOK_DELIVERIES_QUEUE } from '@kessai/contracts';
import type { DeliveryAttemptRecord, DeliveryToSend, WebhooksRepository } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import { ContractQueue } from '@kessai/runtime';
import { WebhookSecretsCipher } from '@kessai/vault';
import { randomBytes } from 'node:crypto';
import { DeliverySecrets } from './delivery-secrets';
import { GONE_REASON, UNRECORDED_TRIES, WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookMetrics } from './webhook-metrics';
import type { SendResult, WebhookSender } from './webhook-sender';
import { authorizationOf, SNIPPET_BYTES, snippetOf } from './webhook-sender';

/**
 * The decisions of one try with a fake sender (the receiver), repository and queue: what is
 * recorded for each answer, and when the next try is queued. The real stack: test/webhooks.e2e-spec.ts.
 */

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const secrets = new DeliverySecrets(new WebhookSecretsCipher([{ id: 'k1', key: randomBytes(32) }]), silent);
const config = {
  WEBHOOK_MAX_ATTEMPTS: 3,
  WEBHOOK_RETRY_BASE_MS: 1_000,
  WEBHOOK_RETRY_FACTOR: 2,
  WEBHOOK_RETRY_MAX_DELAY_MS: 60_000,
  WEBHOOK_RETRY_JITTER: 0,
  WEBHOOK_WORKER_CONCURRENCY: 4,
  WEBHOOK_ENDPOINT_CONCURRENCY: 1,
  WEBHOOK_ENDPOINT_WAIT_MS: 50,
  WEBHOOK_ENDPOINT_BUSY_DELAY_MS: 1_000,
  WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: 3_600,
} as AppConfig;

const postponeNever = (): Promise<never> => Promise.reject(new Error('not expected to wait'));

function setup(
  delivery: Partial<DeliveryToSend> = {},
  answer: SendResult | (() => Promise<SendResult>) = ok(200),
) {
  const row: DeliveryToSend = {
    id: '00000000-0000-4000-8000-000000000001',
    webhookId: '00000000-0000-4000-8000-000000000002',
    status: 'pending',
    attemptCount: 0,
    body: '{}',
    url: 'http://127.0.0.1/hook',
    authToken: null,
    signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previousSigningSecret: null,
    mode: 'test',
    webhookActive: true,
    ...delivery,
  };
  const recorded: DeliveryAttemptRecord[] = [];
  const queued: { data: unknown; opts: { jobId: string; delay: number } }[] = [];
  const sent: string[] = [];
  const repository = {
    findDeliveries: (ids: string[]) => Promise.resolve(ids.includes(row.id) ? [row] : []),
    recordAttempts: (attempts: DeliveryAttemptRecord[]) => {
      recorded.push(...attempts);
      return Promise.resolve(new Set(attempts.map((attempt) => attempt.deliveryId)));
    },
  } as unknown as WebhooksRepository;
  const sender = {
    send: (d: DeliveryToSend) => {
      sent.push(d.id);
      return typeof answer === 'function' ? answer() : Promise.resolve(answer);
    },
  } as unknown as WebhookSender;
  const queue = {
    add: (_name: string, data: unknown, opts: { jobId: string; delay: number }) => {
      queued.push({ data, opts });
      return Promise.resolve();
    },
  } as unknown as Queue;
  const registry = new Registry();
  const service = new WebhookDeliveryService(
    repository,
    sender,
    new ContractQueue(WEBHOOK_DELIVERIES_QUEUE, queue),
    config,
    silent,
    new WebhookMetrics(registry),
    secrets,
  );
  /** kessai_webhook_tries_total by outcome */
  const counted = async () =>
    Object.fromEntries(
      ((await registry.getSingleMetric('kessai_webhook_tries_total')?.get())?.values ?? []).map((v) => [
        v.labels.outcome,
        v.value,
      ]),
    );
  return { service, recorded, queued, sent, id: row.id, counted };
}

function ok(statusCode: number): SendResult {
  return {
    statusCode,
    durationMs: 5,
    error: statusCode < 300 ? null : `HTTP ${statusCode}`,
    responseSnippet: 'ok',
  };
}

describe('a webhook delivery try', () => {
  it('a 2xx delivers it; nothing more is queued', async () => {
    const { service, recorded, queued, id, counted } = setup({}, ok(204));
    await service.deliver([{ deliveryId: id, attempt: 1 }], postponeNever);
    expect(recorded).toMatchObject([
      { number: 1, statusCode: 204, status: 'delivered', disableReason: null },
    ]);
    expect(queued).toEqual([]);
    expect(await counted()).toEqual({ delivered: 1 });
  });

  it('another answer queues the next try on the schedule, with its own job id, and stays pending', async () => {
    const { service, recorded, queued, id } = setup({ attemptCount: 1 }, ok(500));
    await service.deliver([{ deliveryId: id, attempt: 2 }], postponeNever);
    expect(queued).toEqual([
      { data: { deliveryId: id, attempt: 3 }, opts: { jobId: `deliver_webhook.${id}.3`, delay: 2_000 } },
    ]);
    expect(recorded).toMatchObject([
      { number: 2, statusCode: 500, status: 'pending', errorMessage: 'HTTP 500' },
    ]);
    expect(recorded[0]?.nextAttemptOn).toBeInstanceOf(Date);
  });

  it('no answer (timeout, refused) is retried the same way', async () => {
    const { service, recorded, queued, id } = setup(
      {},
      { statusCode: null, durationMs: 15_000, error: 'no answer', responseSnippet: null },
    );
    await service.deliver([{ deliveryId: id, attempt: 1 }], postponeNever);
    expect(queued).toHaveLength(1);
    expect(recorded).toMatchObject([{ statusCode: null, status: 'pending' }]);
  });

  it('the last try’s failure ends it failed', async () => {
    const { service, recorded, queued, id } = setup({ attemptCount: 2 }, ok(502));
    await service.deliver([{ deliveryId: id, attempt: 3 }], postponeNever);
    expect(queued).toEqual([]);
    expect(recorded).toMatchObject([{ number: 3, status: 'failed', disableReason: null }]);
  });

  it('410 Gone ends it and turns the webhook off', async () => {
    const { service, recorded, queued, id, counted } = setup({}, ok(410));
    await service.deliver([{ deliveryId: id, attempt: 1 }], postponeNever);
    expect(queued).toEqual([]);
    expect(recorded).toMatchObject([{ status: 'failed', disableReason: GONE_REASON }]);
    expect(await counted()).toEqual({ gone: 1 });
  });

  it('does nothing for a try already recorded or a delivery no longer pending; an inactive webhook gets nothing', async () => {
    for (const row of [{ attemptCount: 1 }, { status: 'delivered' as const }]) {
      const { service, recorded, sent, id } = setup(row);
      await service.deliver([{ deliveryId: id, attempt: 1 }], postponeNever);
      expect([recorded, sent]).toEqual([[], []]);
    }
    const inactive = setup({ webhookActive: false });
    await inactive.service.deliver([{ deliveryId: inactive.id, attempt: 1 }], postponeNever);
    expect(inactive.sent).toEqual([]);
    expect(inactive.recorded).toMatchObject([{ status: 'failed', statusCode: null, judged: false }]);
  });
});

describe('the per-endpoint bound', () => {
  it('a try to a webhook with its tries in flight waits, then goes back as a delayed job; the slot frees when the try ends', async () => {
    let answer: (result: SendResult) => void = () => undefined;
    const hanging = new Promise<SendResult>((resolve) => (answer = resolve));
    const { service, recorded, sent, id } = setup({}, () => hanging);
    const first = service.deliver([{ deliveryId: id, attempt: 1 }], postponeNever);
    const postponed: { tries: unknown[]; at: number }[] = [];
    const postpone = (tries: unknown[], at: number): Promise<never> => {
      postponed.push({ tries, at });
      return Promise.reject(new Error('postponed'));
    };
    const before = Date.now();
    await expect(service.deliver([{ deliveryId: id, attempt: 1 }], postpone)).rejects.toThrow('postponed');
    expect(postponed).toEqual([{ tries: [{ deliveryId: id, attempt: 1 }], at: expect.any(Number) }]);
    expect(postponed[0]?.at).toBeGreaterThanOrEqual(before + 500);
    expect(sent).toHaveLength(1);
    answer(ok(200));
    await first;
    expect(recorded).toMatchObject([{ status: 'delivered' }]);
  });
});

describe('the tries waiting for their records', () => {
  it('are at most UNRECORDED_TRIES: a try beyond them is sent once an earlier record is written', async () => {
    const count = UNRECORDED_TRIES + 50;
    const sent: string[] = [];
    let unblock: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const recorded: DeliveryAttemptRecord[] = [];
    let submitted = 0;
    let allInFlight: () => void = () => undefined;
    const recordsInFlight = new Promise<void>((resolve) => (allInFlight = resolve));
    const repository = {
      // every record waits until `unblock`: as when Postgres falls behind the receiver
      recordAttempts: async (attempts: DeliveryAttemptRecord[]) => {
        submitted += attempts.length;
        if (submitted >= UNRECORDED_TRIES) allInFlight();
        await blocked;
        recorded.push(...attempts);
        return new Set(attempts.map((attempt) => attempt.deliveryId));
      },
    } as unknown as WebhooksRepository;
    const sender = {
      send: (d: DeliveryToSend) => {
        sent.push(d.id);
        return Promise.resolve(ok(200));
      },
    } as unknown as WebhookSender;
    const service = new WebhookDeliveryService(
      repository,
      sender,
      new ContractQueue(WEBHOOK_DELIVERIES_QUEUE, {} as Queue),
      {
        ...config,
        WEBHOOK_WORKER_CONCURRENCY: 64,
        WEBHOOK_ENDPOINT_CONCURRENCY: 64,
        WEBHOOK_ENDPOINT_WAIT_MS: 60_000,
      },
      silent,
      new WebhookMetrics(new Registry()),
      secrets,
    );
    const tries = Array.from({ length: count }, (_, i) => ({
      delivery: {
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        webhookId: `00000000-0000-4000-9000-${String(i % 8).padStart(12, '0')}`,
        status: 'pending' as const,
        attemptCount: 0,
        body: '{}',
        url: 'http://127.0.0.1/hook',
        authToken: null,
        signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        previousSigningSecret: null,
        mode: 'test' as const,
        webhookActive: true,
      },
      attempt: 1,
    }));
    const done = service.deliverLoaded(tries, postponeNever);
    // the record statements hold UNRECORDED_TRIES tries: none beyond them has been sent
    await recordsInFlight;
    expect(sent).toHaveLength(UNRECORDED_TRIES);
    unblock();
    await done;
    expect(new Set(sent).size).toBe(count);
    expect(new Set(recorded.map((attempt) => attempt.deliveryId)).size).toBe(count);
  });
});

describe('the Authorization header from auth_token', () => {
  it('is sent as given with a scheme, with Bearer in front without one', () => {
    expect(authorizationOf('Bearer mytoken')).toBe('Bearer mytoken');
    expect(authorizationOf('Basic dXNlcjpwYXNz')).toBe('Basic dXNlcjpwYXNz');
    expect(authorizationOf('mytoken')).toBe('Bearer mytoken');
  });
});

describe('the response snippet of the delivery log', () => {
  it('keeps the first SNIPPET_BYTES bytes, control characters as spaces, and nothing for an empty answer', () => {
    expect(snippetOf(Buffer.from('line 1\r\nline\t2\u0000\u007f😀'))).toBe('line 1  line 2  😀');
    expect(snippetOf(Buffer.alloc(SNIPPET_BYTES + 50, 'a'))).toBe('a'.repeat(SNIPPET_BYTES));
    expect(snippetOf(Buffer.alloc(0))).toBeNull();
  });
});
