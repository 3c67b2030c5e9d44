import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import { ValidationError } from '@kessai/domain';
import { jsonShapeError, scanJsonText } from './json-text';
import { findInvalidText } from './nul-guard';

/** RFC 8259's insignificant whitespace: space, tab, line feed, carriage return. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Whether a body holds nothing but JSON whitespace (an empty one included). */
export function isBlankBody(body: Buffer): boolean {
  for (const byte of body) if (!JSON_WHITESPACE.has(byte)) return false;
  return true;
}

/**
 * Whether a Content-Type names no charset, or UTF-8 (RFC 8259 §8.1: JSON exchanged between systems
 * is UTF-8; the parameter has no meaning for it, but a client that sends another one means it).
 */
export function isUtf8ContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  for (const parameter of contentType.split(';').slice(1)) {
    const at = parameter.indexOf('=');
    if (at < 0 || parameter.slice(0, at).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

/** A route whose JSON body is kept as bytes only (`rawBody`), to be verified before it is parsed. */
export interface RawJsonRouteConfig {
  rawJsonBody?: boolean;
}

/**
 * The largest body a `rawJsonBody` route (the processor's signed notices, a few hundred bytes
 * each) reads. Such a route is open: before its signature can be checked its body must be read and
 * hashed, so a flood of forged 1 MiB notices cost the gateway 1 MiB of reading and hashing each
 * (another tenant's p95 rose tenfold in bench:availability). Refused with 413 from its
 * Content-Length, before a byte of it is read.
 */
export const RAW_JSON_BODY_LIMIT_BYTES = 64 * 1024;

export function registerRawJsonBodyLimit(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const raw = (request.routeOptions.config as RawJsonRouteConfig | undefined)?.rawJsonBody === true;
    const length = Number(request.headers['content-length'] ?? 0);
    if (raw && length > RAW_JSON_BODY_LIMIT_BYTES) {
      done(Object.assign(new Error('request body too large'), { statusCode: 413 }));
      return;
    }
    done();
  });
}

/** Fastify's default JSON parser, in the callback form it has (its type also allows a promise form). */
type JsonParser = (
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, body?: unknown) => void,
) => void;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** 415 in the envelope, as for any other media type the API does not take. */
const unsupportedCharset = () => Object.assign(new Error('JSON is read as UTF-8 only'), { statusCode: 415 });

/**
 * Replaces the JSON body parser that Nest registered at init. On the way to Fastify's own parser
 * (prototype-poisoning refused, the raw bytes kept as `rawBody`), a body is:
 * - refused with 415 when its Content-Type names a charset other than UTF-8, and with 400 when its
 *   bytes are not UTF-8 (they were read with replacement characters, or as another encoding);
 * - read as no body when empty or whitespace-only: other SDKs and curl users send
 *   `Content-Type: application/json` on a DELETE or a bodiless POST, which Fastify's parser refuses
 *   before routing (a route that needs a body still answers its own validation error);
 * - held to JSON_LIMITS (depth, members, items) before it is parsed, so that nothing after (the
 *   idempotency fingerprint, the schemas, the repositories) ever sees a body nested or wide
 *   enough to cost it: 400 VALIDATION_ERROR;
 * - refused with 400 VALIDATION_ERROR naming the field (INVALID_FORMAT) when a string or key spells
 *   U+0000 or a lone surrogate, which Postgres cannot keep (the one place strings are checked).
 * A route marked `rawJsonBody` in its config (the signed processor callbacks) gets no parsed body,
 * only `rawBody`: its handler verifies the bytes before it parses them.
 * Call after `app.init()` and before the app listens.
 */
export function acceptEmptyJsonBodies(app: NestFastifyApplication, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const parseJson = fastify.getDefaultJsonParser('error', 'error') as JsonParser;
  fastify.removeContentTypeParser('application/json');
  app.useBodyParser<RawServerDefault>('application/json', { bodyLimit }, (request, body, done) => {
    if (!isUtf8ContentType(request.headers['content-type'])) {
      done(unsupportedCharset());
      return;
    }
    if ((request.routeOptions.config as RawJsonRouteConfig | undefined)?.rawJsonBody === true) {
      done(null, undefined);
      return;
    }
    if (isBlankBody(body)) {
      done(null, undefined);
      return;
    }
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(ValidationError.field(null, 'INVALID_FORMAT_OBJECT'));
      return;
    }
    const scan = scanJsonText(text);
    if (scan.refused) {
      done(jsonShapeError(scan.refused));
      return;
    }
    parseJson(request, text, (error, value) => {
      if (error) return done(error);
      const found = scan.suspectText ? findInvalidText(value) : null;
      if (found) return done(ValidationError.field(found.join('.') || null, 'INVALID_FORMAT'));
      done(null, value);
    });
  });
}
