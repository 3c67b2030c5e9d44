import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type z } from 'zod';

export const MAX_BODY_BYTES = 64 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super('request body too large');
  }
}

export async function readBody(request: IncomingMessage, limitBytes = MAX_BODY_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes unless the client already went away (e.g. it timed out while the answer was held). */
function canWrite(response: ServerResponse): boolean {
  return !response.headersSent && !response.destroyed && !response.writableEnded;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (!canWrite(response)) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export function sendError(
  response: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(response, status, { error: { type, message } }, headers);
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  if (!canWrite(response)) return;
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
  });
  response.end(html);
}

export function redirect(response: ServerResponse, location: string): void {
  if (!canWrite(response)) return;
  response.writeHead(303, { location, 'content-length': 0 });
  response.end();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A request the simulator refuses with 400 invalid_request. */
export class BadRequest extends Error {}

export function idempotencyKeyOf(request: IncomingMessage): string {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new BadRequest('an Idempotency-Key header (1-200 characters) is required');
  }
  return key;
}

/** Parses a JSON body; problems name paths and rules, never values (a value may be a card number). */
export function parseJson<S extends z.ZodTypeAny>(text: string, schema: S): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BadRequest('the body is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.code}`);
    throw new BadRequest(`invalid request: ${problems.join('; ')}`);
  }
  return parsed.data as z.infer<S>;
}
