import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { GatewayConfig } from '@kessai/config';
import type { ClaimResult, IdempotencyClaim, IdempotencyRecordsRepository, StoredResponse } from '@kessai/db';
import { WriteOutcomeUnknownError } from '@kessai/domain';
import { createLogger } from '@kessai/observability';
import type { Principal } from '../auth/principal';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { registerIdempotency } from './idempotency.hooks';

type StoredRecord = Extract<ClaimResult, { claimed: false }>['existing'];
type Records = Pick<IdempotencyRecordsRepository, 'claim' | 'complete' | 'release'>;

/**
 * The repository's contract without Postgres: one record per credential and key, which a claim
 * takes over once expired; only a claim still in flight is completed or released.
 */
class InMemoryRecords implements Records {
  readonly bySlot = new Map<string, StoredRecord>();
  failNextComplete = false;
  #ids = 0;

  claim(claim: IdempotencyClaim): Promise<ClaimResult> {
    const slot = `${claim.credentialId} ${claim.key}`;
    const held = this.bySlot.get(slot);
    if (held && held.expiresOn > new Date()) return Promise.resolve({ claimed: false, existing: held });
    const now = new Date();
    const record: StoredRecord = {
      id: `record-${++this.#ids}`,
      ...claim,
      state: 'in_flight',
      responseStatus: null,
      responseBody: null,
      responseHeaders: null,
      createdOn: now,
      updatedOn: now,
    };
    this.bySlot.set(slot, record);
    return Promise.resolve({ claimed: true, id: record.id });
  }

  complete(id: string, response: StoredResponse): Promise<void> {
    if (this.failNextComplete) {
      this.failNextComplete = false;
      return Promise.reject(new Error('connection lost while storing'));
    }
    const record = this.#find(id);
    if (record?.state === 'in_flight') {
      Object.assign(record, {
        state: 'completed',
        responseStatus: response.status,
        responseBody: response.body,
        responseHeaders: response.headers,
      });
    }
    return Promise.resolve();
  }

  release(id: string): Promise<void> {
    for (const [slot, record] of this.bySlot)
      if (record.id === id && record.state === 'in_flight') this.bySlot.delete(slot);
    return Promise.resolve();
  }

  only(): StoredRecord {
    expect(this.bySlot.size).toBe(1);
    return [...this.bySlot.values()][0];
  }

  #find(id: string): StoredRecord | undefined {
    return [...this.bySlot.values()].find((record) => record.id === id);
  }
}

const JWT_SIGNING_KEY = 'j'.repeat(32);
const configWith = (secret: string) =>
  ({ IDEMPOTENCY_TTL_HOURS: 24, IDEMPOTENCY_KEY_SECRET: secret, JWT_SIGNING_KEY }) as GatewayConfig;

interface Gateway {
  app: FastifyInstance;
  /** how many times each route's handler ran */
  runs: Map<string, number>;
  metrics: Registry;
  logLines: string[];
  /** the gate a request to /slow waits on */
  release: () => void;
}

/**
 * A bare Fastify app with the hooks: a principal from `x-credential` (as authentication sets it),
 * and routes that answer 201, 500, 429, a failure whose write may have happened, and one held open.
 */
async function gatewayWith(records: Records, secret = 'i'.repeat(32)): Promise<Gateway> {
  const app = Fastify();
  const runs = new Map<string, number>();
  const ran = (route: string) => runs.set(route, (runs.get(route) ?? 0) + 1);
  const registry = new Registry();
  const logLines: string[] = [];
  const destination = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));

  app.addHook('onRequest', (request, _reply, done) => {
    const credentialId = request.headers['x-credential'];
    if (typeof credentialId === 'string') request.principal = { credentialId } as Principal;
    done();
  });
  registerIdempotency(
    app,
    records,
    configWith(secret),
    createLogger({ service: 'gateway', level: 'error', destination }),
    new GatewayMetrics(registry),
  );
  app.post('/charges', (request, reply) => {
    ran('charges');
    return reply.status(201).header('location', '/charges/c-1').send({ id: 'c-1', body: request.body });
  });
  app.post('/failing', (_request, reply) => {
    ran('failing');
    return reply.status(500).send({ status: 'error', code: 'INTERNAL_SERVER_ERROR', errors: [] });
  });
  app.post('/busy', (_request, reply) => {
    ran('busy');
    return reply
      .status(429)
      .header('retry-after', '1')
      .send({ status: 'error', code: 'TOO_MANY_REQUESTS', errors: [] });
  });
  app.post('/unknown-outcome', (request, reply) => {
    ran('unknown-outcome');
    request.failure = new WriteOutcomeUnknownError('the charge insert', new Error('answer lost'));
    return reply.status(503).send({ status: 'error', code: 'SERVICE_UNAVAILABLE_TRY_AGAIN', errors: [] });
  });
  app.post('/slow', async () => {
    ran('slow');
    await gate;
    return { done: true };
  });
  app.get('/charges', () => ({ items: [] }));
  await app.ready();
  return { app, runs, metrics: registry, logLines, release: () => open() };
}

function post(
  gateway: Gateway,
  url: string,
  body: unknown,
  { key = 'key-1', credential = 'credential-1' }: { key?: string | null; credential?: string | null } = {},
) {
  return gateway.app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      ...(key === null ? {} : { 'idempotency-key': key }),
      ...(credential === null ? {} : { 'x-credential': credential }),
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function counter(gateway: Gateway, name: string, labels: Record<string, string> = {}) {
  const metric = await gateway.metrics.getSingleMetric(name)?.get();
  const values = metric?.values ?? [];
  return values
    .filter((value) => Object.entries(labels).every(([label, v]) => value.labels[label] === v))
    .reduce((sum, value) => sum + value.value, 0);
}

describe('the Idempotency-Key hooks', () => {
  let records: InMemoryRecords;
  let gateway: Gateway;

  beforeEach(async () => {
    records = new InMemoryRecords();
    gateway = await gatewayWith(records);
  });

  afterEach(async () => {
    gateway.release();
    await gateway.app.close();
  });

  it('claims the key for the first request, runs it and stores its answer, sealed', async () => {
    const first = await post(gateway, '/charges', { amount: 1200, currency: 'JPY' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotency-status']).toBe('successfully_stored');
    expect(gateway.runs.get('charges')).toBe(1);

    const record = records.only();
    expect(record).toMatchObject({
      credentialId: 'credential-1',
      key: 'key-1',
      method: 'POST',
      path: '/charges',
      state: 'completed',
      responseStatus: 201,
      responseHeaders: { 'content-type': 'application/json; charset=utf-8', location: '/charges/c-1' },
    });
    // neither the answer nor the request is readable in the row
    expect(record.responseBody).not.toContain('c-1');
    expect(record.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.expiresOn.getTime() - Date.now()).toBeGreaterThan(23 * 3_600_000);
  });

  it('replays the stored answer to the same request, without running it again', async () => {
    const first = await post(gateway, '/charges', { amount: 1200, currency: 'JPY' });
    // the same request: key order and whitespace do not make another one
    const again = await post(gateway, '/charges', '{ "currency": "JPY",  "amount": 1200 }');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotency-status']).toBe('retrieved_idempotent_response');
    expect(again.headers.location).toBe('/charges/c-1');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(gateway.runs.get('charges')).toBe(1);
    expect(await counter(gateway, 'kessai_idempotency_replays_total')).toBe(1);
  });

  it('refuses another request under the key with 409 IDEMPOTENCY_KEY_CONFLICT, running nothing', async () => {
    await post(gateway, '/charges', { amount: 1200, currency: 'JPY' });
    for (const [url, body] of [
      ['/charges', { amount: 1300, currency: 'JPY' }],
      ['/charges?capture=false', { amount: 1200, currency: 'JPY' }],
      ['/failing', { amount: 1200, currency: 'JPY' }],
    ] as const) {
      const other = await post(gateway, url, body);
      expect([url, other.statusCode, other.headers['idempotency-status']]).toEqual([
        url,
        409,
        'conflicting_key',
      ]);
      expect(other.json()).toEqual({
        status: 'error',
        code: 'IDEMPOTENCY_KEY_CONFLICT',
        errors: [{ field: 'idempotency_key', reason: 'IDEMPOTENCY_KEY_CONFLICT' }],
      });
    }
    expect([gateway.runs.get('charges'), gateway.runs.get('failing')]).toEqual([1, undefined]);
    expect(
      await counter(gateway, 'kessai_idempotency_conflicts_total', { reason: 'different_request' }),
    ).toBe(3);
  });

  it('keeps each credential’s keys apart', async () => {
    await post(gateway, '/charges', { amount: 1200 });
    const elsewhere = await post(gateway, '/charges', { amount: 1200 }, { credential: 'credential-2' });
    expect(elsewhere.headers['idempotency-status']).toBe('successfully_stored');
    expect(gateway.runs.get('charges')).toBe(2);
  });

  it('answers 409 REQUEST_IN_PROGRESS while the first request still runs, then replays it', async () => {
    const first = post(gateway, '/slow', { n: 1 });
    await new Promise<void>((resolve) => {
      const waitForRun = () => (gateway.runs.get('slow') ? resolve() : setImmediate(waitForRun));
      waitForRun();
    });
    const meanwhile = await post(gateway, '/slow', { n: 1 });
    expect([meanwhile.statusCode, meanwhile.headers['idempotency-status']]).toEqual([409, 'conflicting_key']);
    expect(meanwhile.json().errors).toEqual([{ field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' }]);
    expect(
      await counter(gateway, 'kessai_idempotency_conflicts_total', { reason: 'request_in_progress' }),
    ).toBe(1);

    gateway.release();
    expect((await first).statusCode).toBe(200);
    const after = await post(gateway, '/slow', { n: 1 });
    expect([after.statusCode, after.headers['idempotency-status']]).toEqual([
      200,
      'retrieved_idempotent_response',
    ]);
    expect(gateway.runs.get('slow')).toBe(1);
  });

  it('stores no 5xx answer: the claim is released, and the retry runs', async () => {
    const failed = await post(gateway, '/failing', {});
    expect([failed.statusCode, failed.headers['idempotency-status']]).toEqual([500, 'not_stored']);
    expect(records.bySlot.size).toBe(0);
    const retry = await post(gateway, '/failing', {});
    expect(retry.statusCode).toBe(500);
    expect(gateway.runs.get('failing')).toBe(2);
  });

  it('stores no 429 answer either (nothing was done): the claim is released, and the retry runs', async () => {
    const busy = await post(gateway, '/busy', {});
    expect([busy.statusCode, busy.headers['idempotency-status']]).toEqual([429, 'not_stored']);
    expect(records.bySlot.size).toBe(0);
    await post(gateway, '/busy', {});
    expect(gateway.runs.get('busy')).toBe(2);
  });

  it('keeps the claim in flight when the write may have happened: a retry is refused, never run', async () => {
    const lost = await post(gateway, '/unknown-outcome', {});
    expect([lost.statusCode, lost.headers['idempotency-status']]).toEqual([503, 'not_stored']);
    expect(records.only()).toMatchObject({ state: 'in_flight', responseStatus: null });
    const retry = await post(gateway, '/unknown-outcome', {});
    expect(retry.statusCode).toBe(409);
    expect(retry.json().errors).toEqual([{ field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' }]);
    expect(gateway.runs.get('unknown-outcome')).toBe(1);
  });

  it('keeps the claim in flight when the answer could not be stored: retries are refused', async () => {
    records.failNextComplete = true;
    const first = await post(gateway, '/charges', { amount: 1200 });
    expect([first.statusCode, first.headers['idempotency-status']]).toEqual([201, 'not_stored']);
    expect(gateway.logLines.join('')).toContain('could not store the idempotent response');
    const retry = await post(gateway, '/charges', { amount: 1200 });
    expect(retry.statusCode).toBe(409);
    expect(gateway.runs.get('charges')).toBe(1);
  });

  it('answers UNABLE_TO_GET_IDEMPOTENT_REQUEST when the stored answer cannot be opened', async () => {
    await post(gateway, '/charges', { amount: 1200 });
    const record = records.only();
    record.responseBody = `${record.responseBody?.slice(0, -4)}AAAA`;
    const again = await post(gateway, '/charges', { amount: 1200 });
    expect(again.headers['idempotency-status']).toBe('error');
    expect(again.json()).toMatchObject({ status: 'error', code: 'UNABLE_TO_GET_IDEMPOTENT_REQUEST' });
    expect(gateway.logLines.join('')).toContain('stored idempotent response unreadable');
    expect(gateway.runs.get('charges')).toBe(1);
  });

  it('replays what was stored under the previous secret, JWT_SIGNING_KEY (decision 0027)', async () => {
    const before = await gatewayWith(records, JWT_SIGNING_KEY);
    try {
      const first = await post(before, '/charges', { amount: 1200 });
      expect(first.headers['idempotency-status']).toBe('successfully_stored');
    } finally {
      await before.app.close();
    }
    const again = await post(gateway, '/charges', { amount: 1200 });
    expect([again.statusCode, again.headers['idempotency-status']]).toEqual([
      201,
      'retrieved_idempotent_response',
    ]);
    expect(gateway.runs.get('charges')).toBeUndefined();
  });

  it('refuses a malformed key with 400, and lets a request without key, credential or write through', async () => {
    for (const [key, reason] of [
      ['', 'INVALID_FORMAT_LENGTH'],
      ['k'.repeat(256), 'INVALID_FORMAT_LENGTH'],
      [' padded', 'INVALID_FORMAT'],
      ['tab\tinside', 'INVALID_FORMAT'],
    ] as const) {
      const refused = await post(gateway, '/charges', {}, { key });
      expect([reason, refused.statusCode, refused.headers['idempotency-status']]).toEqual([
        reason,
        400,
        'not_stored',
      ]);
      expect(refused.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'idempotency_key', reason }],
      });
    }
    const anonymous = await post(gateway, '/charges', {}, { credential: null });
    expect([anonymous.statusCode, anonymous.headers['idempotency-status']]).toEqual([201, 'disabled']);
    const keyless = await post(gateway, '/charges', {}, { key: null });
    expect([keyless.statusCode, keyless.headers['idempotency-status']]).toEqual([201, undefined]);
    const read = await gateway.app.inject({
      method: 'GET',
      url: '/charges',
      headers: { 'idempotency-key': 'key-1', 'x-credential': 'credential-1' },
    });
    expect([read.statusCode, read.headers['idempotency-status']]).toEqual([200, undefined]);
    expect(records.bySlot.size).toBe(0);
    expect(gateway.runs.get('charges')).toBe(2);
  });
});
