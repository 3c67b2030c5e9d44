import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, RawServerDefault } from 'fastify';

/** RFC 8259's insignificant whitespace: space, tab, line feed, carriage return. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Whether a body holds nothing but JSON whitespace (an empty one included). */
export function isBlankBody(body: Buffer): boolean {
  for (const byte of body) if (!JSON_WHITESPACE.has(byte)) return false;
  return true;
}

/** Fastify's default JSON parser, in the callback form it has (its type also allows a promise form). */
type JsonParser = (
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/**
 * Replaces the JSON body parser that Nest registered at init with one that reads an empty (or
 * whitespace-only) body as no body. Other SDKs and curl users send `Content-Type: application/json`
 * on a DELETE or a bodiless POST; Fastify's parser refuses that as an empty JSON body before routing
 * (so even an unknown path answered 400). A route that needs a body still answers its own validation
 * error; any other body is parsed as before (prototype-poisoning refused, the raw bytes kept as
 * `rawBody` for the signed processor callbacks). The other parsers (urlencoded) stay as Nest set them.
 * Call after `app.init()` and before the app listens.
 */
export function acceptEmptyJsonBodies(app: NestFastifyApplication, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const parseJson = fastify.getDefaultJsonParser('error', 'error') as JsonParser;
  fastify.removeContentTypeParser('application/json');
  app.useBodyParser<RawServerDefault>('application/json', { bodyLimit }, (request, body, done) => {
    if (isBlankBody(body)) {
      done(null, undefined);
      return;
    }
    parseJson(request, body.toString('utf8'), done);
  });
}
