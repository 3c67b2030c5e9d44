import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from '@kessai/config';
import type { IdempotencyRecordsRepository } from '@kessai/db';
import {
  ConflictError,
  IdempotentResultUnavailableError,
  ValidationError,
  WriteOutcomeUnknownError,
} from '@kessai/domain';
import type { Logger } from '@kessai/observability';
import { sendError } from '../http/error-response';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { RequestFingerprints } from './request-fingerprint';
import { ResponseSealer } from './response-sealer';

declare module 'fastify' {
  interface FastifyRequest {
    /** the idempotency record this request holds while it executes */
    idempotencyClaim?: string;
  }
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const MAX_KEY_LENGTH = 255;
const PRINTABLE_ASCII = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/** the response headers that belong to the stored response (rate-limit and request-id headers are per request) */
const STORED_HEADERS = ['content-type', 'location'];

/** Idempotency-Status values as the Java SDK reads them (api-reference §1.4). */
type IdempotencyStatus =
  | 'successfully_stored'
  | 'not_stored'
  | 'retrieved_idempotent_response'
  | 'conflicting_key'
  | 'disabled'
  | 'error';

/** The Idempotency-Status header of an answer. */
const statusHeader = (status: IdempotencyStatus) => ({ 'idempotency-status': status });

/**
 * Idempotency-Key on writes. The first request with a key claims it (one INSERT ... ON CONFLICT, so
 * concurrent requests cannot both win), runs, and its response (status, body, content headers) is
 * stored for IDEMPOTENCY_TTL_HOURS per credential. Later requests with the key get the stored
 * response when they are the same request, 409 IDEMPOTENCY_KEY_CONFLICT when they differ, and 409
 * while the first one is still running. A 5xx or 429 response is not stored: the claim is released
 * so the client may retry. A claim whose process died mid-request, or whose request failed with
 * WriteOutcomeUnknownError, stays locked until it expires, because whether its write happened is
 * unknown and a second execution could charge twice.
 */
export function registerIdempotency(
  fastify: FastifyInstance,
  records: Pick<IdempotencyRecordsRepository, 'claim' | 'complete' | 'release'>,
  config: GatewayConfig,
  logger: Logger,
  metrics: GatewayMetrics,
): void {
  const ttlMs = config.IDEMPOTENCY_TTL_HOURS * 3_600_000;
  // records stored before IDEMPOTENCY_KEY_SECRET keep working until they expire (decision 0027)
  const previous = [config.JWT_SIGNING_KEY];
  const fingerprints = new RequestFingerprints(config.IDEMPOTENCY_KEY_SECRET, previous);
  const sealer = new ResponseSealer(config.IDEMPOTENCY_KEY_SECRET, previous);

  fastify.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !WRITE_METHODS.has(request.method)) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || !PRINTABLE_ASCII.test(key)) {
      const reason =
        key.length > MAX_KEY_LENGTH || key.length === 0 ? 'INVALID_FORMAT_LENGTH' : 'INVALID_FORMAT';
      return sendError(reply, ValidationError.field('idempotency_key', reason), statusHeader('not_stored'));
    }
    // without a credential there is no one to scope the key to
    if (!request.principal) {
      void reply.header('idempotency-status', 'disabled');
      return;
    }

    const requestHash = fingerprints.of(request.method, request.url, request.body);
    const result = await records.claim({
      credentialId: request.principal.credentialId,
      key,
      method: request.method,
      path: request.url,
      requestHash,
      expiresOn: new Date(Date.now() + ttlMs),
    });
    if (result.claimed) {
      request.idempotencyClaim = result.id;
      return;
    }

    const existing = result.existing;
    if (!fingerprints.matches(existing.requestHash, requestHash, request.method, request.url, request.body)) {
      metrics.idempotencyConflict('different_request');
      return sendError(
        reply,
        new ConflictError('IDEMPOTENCY_KEY_CONFLICT', [
          { field: 'idempotency_key', reason: 'IDEMPOTENCY_KEY_CONFLICT' },
        ]),
        statusHeader('conflicting_key'),
      );
    }
    if (existing.state === 'in_flight' || existing.responseStatus === null) {
      metrics.idempotencyConflict('request_in_progress');
      return sendError(
        reply,
        new ConflictError('IDEMPOTENCY_KEY_CONFLICT', [
          { field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' },
        ]),
        statusHeader('conflicting_key'),
      );
    }
    const stored = existing.responseBody === null ? null : sealer.open(existing.responseBody, existing.id);
    if (stored === null) {
      logger.error({ reqId: request.id, record: existing.id }, 'stored idempotent response unreadable');
      return sendError(reply, new IdempotentResultUnavailableError(), statusHeader('error'));
    }
    metrics.idempotentReplay();
    return reply
      .status(existing.responseStatus)
      .headers((existing.responseHeaders ?? {}) as Record<string, string>)
      .header('idempotency-status', 'retrieved_idempotent_response')
      .send(stored);
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = undefined;
    // the write may have happened: the claim stays in flight until it expires, as after a crash,
    // so that retries get 409 and never a second execution
    if (request.failure instanceof WriteOutcomeUnknownError) {
      void reply.header('idempotency-status', 'not_stored');
      return payload;
    }

    const body =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : payload == null
            ? ''
            : null;
    try {
      // a 429 did nothing either (a rate limit, a card whose charges are busy): try again later
      if (reply.statusCode >= 500 || reply.statusCode === 429 || body === null) {
        await records.release(claim);
        void reply.header('idempotency-status', 'not_stored');
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of STORED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await records.complete(claim, { status: reply.statusCode, body: sealer.seal(body, claim), headers });
      void reply.header('idempotency-status', 'successfully_stored');
    } catch (error) {
      // the claim stays in flight until it expires: retries get 409, never a second execution
      logger.error({ err: error, reqId: request.id }, 'could not store the idempotent response');
      void reply.header('idempotency-status', 'not_stored');
    }
    return payload;
  });
}
