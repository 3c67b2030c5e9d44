import Busboy from '@fastify/busboy';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, RawServerDefault } from 'fastify';
import { createHash } from 'node:crypto';
import { z, type ZodTypeAny } from 'zod';
import { ValidationError, type FieldError } from '@kessai/domain';
import { findInvalidText } from './nul-guard';

/**
 * multipart/form-data bodies, as the official SDK sends a payload holding a Blob (api-reference §1:
 * `stores.create` / `stores.update` with a `logo`): keys snake_cased and flattened (`a.b`, `a[0]`),
 * every value a string, a file a part of its own. Taken only by the routes below; any other route
 * answers 415 as before, since its typed fields would arrive as strings.
 */
export const FORM_ROUTES: ReadonlySet<string> = new Set(['POST /stores', 'PATCH /stores/:storeId']);

/** Parts and fields a form may carry: far more than the store's configuration has. */
const MAX_FIELDS = 300;
/** The one file a form may carry, and its size bound (the parser keeps one byte more to tell). */
const MAX_FILES = 1;
/** A field name: snake_case segments joined by dots, each with optional `[index]` suffixes. */
const FIELD_NAME = /^[a-z0-9_]+(\[\d{1,3}\])*(\.[a-z0-9_]+(\[\d{1,3}\])*)*$/i;
const SEGMENT = /([a-z0-9_]+)|\[(\d{1,3})\]/gi;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** The longest field name: the store's deepest keys are a fraction of it. */
const MAX_NAME_LENGTH = 200;

/**
 * A file of a form: its bytes and what the sender said of it. Only `size` and `sha256` are
 * enumerable, so a body holding one fingerprints (idempotency) and walks (the NUL guard) as a small
 * object; the bytes are read through `bytes`.
 */
export class FormFile {
  readonly #bytes: Buffer;
  readonly size: number;
  readonly sha256: string;

  constructor(
    bytes: Buffer,
    /** whether the sender's file was longer than the parser's bound (its bytes are cut there) */
    readonly truncated: boolean,
  ) {
    this.#bytes = bytes;
    this.size = bytes.length;
    this.sha256 = createHash('sha256').update(bytes).digest('hex');
  }

  get bytes(): Buffer {
    return this.#bytes;
  }
}

/** The bodies this parser made: a service reads them with `formInput`, anything else as JSON. */
const formBodies = new WeakSet<object>();

export function isFormBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && formBodies.has(body);
}

interface Part {
  name: string;
  value: string | FormFile;
}

/**
 * Registers the multipart/form-data parser (after `app.init()`, as `acceptEmptyJsonBodies`). The
 * body, at most `bodyLimit` bytes like any other, becomes the object the SDK flattened — nested
 * again, values still strings — for the route to type with `formInput`; a file field becomes a
 * FormFile of at most `maxFileBytes` (+1, to tell a bigger one).
 */
export function acceptFormBodies(app: NestFastifyApplication, bodyLimit: number, maxFileBytes: number): void {
  app.useBodyParser<RawServerDefault>('multipart/form-data', { bodyLimit }, (request, body, done) => {
    // no route: nothing to parse it for (the 404 follows)
    if (request.routeOptions.url === undefined) {
      done(null, undefined);
      return;
    }
    if (!FORM_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) {
      done(
        Object.assign(new Error('multipart/form-data is taken by POST and PATCH /stores only'), {
          statusCode: 415,
        }),
      );
      return;
    }
    readParts(request, body, maxFileBytes).then(
      (parts) => {
        try {
          const form = nest(parts);
          // the string rules of JSON bodies (json-body-parser.ts): a field may hold a NUL byte, or
          // declare another charset (busboy decodes UTF-16 as it comes, lone surrogates included)
          const invalid = findInvalidText(form);
          if (invalid) throw ValidationError.field(invalid.join('.'), 'INVALID_FORMAT');
          formBodies.add(form);
          done(null, form);
        } catch (error) {
          done(error as Error);
        }
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

function readParts(request: FastifyRequest, body: Buffer, maxFileBytes: number): Promise<Part[]> {
  return new Promise((resolve, reject) => {
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        limits: {
          // (busboy takes no bound on field names: nest() refuses a long one)
          fieldSize: 10_000,
          fields: MAX_FIELDS,
          files: MAX_FILES,
          fileSize: maxFileBytes + 1,
          parts: MAX_FIELDS + MAX_FILES,
          headerPairs: 20,
        },
      });
    } catch {
      // no boundary, or not multipart after all
      reject(ValidationError.field(null, 'INVALID_FORMAT_OBJECT'));
      return;
    }
    const parts: Part[] = [];
    const files: Promise<void>[] = [];
    let refused: FieldError | null = null;
    const refuse = (error: FieldError) => (refused ??= error);
    parser.on('field', (name: string | undefined, value, nameTruncated, valueTruncated) => {
      // a part without a name (Content-Disposition without name=)
      if (typeof name !== 'string') refuse({ field: null, reason: 'INVALID_FORMAT' });
      else if (nameTruncated || valueTruncated) refuse({ field: name, reason: 'INVALID_FORMAT_LENGTH' });
      else parts.push({ name, value });
    });
    parser.on('file', (name: string | undefined, stream) => {
      if (typeof name !== 'string') {
        refuse({ field: null, reason: 'INVALID_FORMAT' });
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      files.push(
        new Promise((done, fail) => {
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', fail);
          stream.on('end', () => {
            parts.push({ name, value: new FormFile(Buffer.concat(chunks), stream.truncated) });
            done();
          });
        }),
      );
    });
    const tooMany = () => refuse({ field: null, reason: 'INVALID_FORMAT_LENGTH' });
    parser.on('fieldsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', () => reject(ValidationError.field(null, 'INVALID_FORMAT_OBJECT')));
    parser.on('finish', () => {
      Promise.all(files).then(() => {
        if (refused) reject(new ValidationError([refused]));
        else resolve(parts);
      }, reject);
    });
    parser.end(body);
  });
}

/**
 * The SDK's flattening undone: `a.b[0].c` → `{a: {b: [{c}]}}`. A name in another form, a key that
 * could reach an object's prototype, a name given twice, or one that is both a value and a parent
 * is refused (VALIDATION_ERROR on that field).
 */
export function nest(parts: readonly Part[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const { name, value } of parts) {
    const invalid = () => ValidationError.field(name, 'INVALID_FORMAT');
    if (name.length > MAX_NAME_LENGTH || !FIELD_NAME.test(name)) throw invalid();
    const path: (string | number)[] = [];
    for (const [, key, index] of name.matchAll(SEGMENT)) {
      if (key !== undefined && FORBIDDEN_KEYS.has(key)) throw invalid();
      path.push(key ?? Number(index));
    }
    let parent: Record<string | number, unknown> = root;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i];
      const child = parent[key];
      if (child === undefined) {
        const next = typeof path[i + 1] === 'number' ? [] : {};
        parent[key] = next;
        parent = next;
      } else if (typeof child === 'object' && child !== null && !(child instanceof FormFile)) {
        if (Array.isArray(child) !== (typeof path[i + 1] === 'number')) throw invalid();
        parent = child as Record<string | number, unknown>;
      } else throw invalid();
    }
    const last = path[path.length - 1];
    if (Array.isArray(parent) !== (typeof last === 'number') || parent[last] !== undefined) throw invalid();
    parent[last] = value;
  }
  return root;
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A form's string values typed as `schema` expects them (`"true"`/`"false"` where it wants a
 * boolean, a decimal where it wants a number), so that the schema then judges the form as it judges
 * JSON. What does not read as the expected type is left alone, for the schema's own error.
 */
export function coerceForm(schema: ZodTypeAny, value: unknown): unknown {
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodCatch ||
    schema instanceof z.ZodBranded ||
    schema instanceof z.ZodReadonly
  )
    return coerceForm((schema._def as { innerType: ZodTypeAny }).innerType, value);
  if (schema instanceof z.ZodEffects) return coerceForm(schema.innerType() as ZodTypeAny, value);
  if (schema instanceof z.ZodPipeline) return coerceForm(schema._def.in as ZodTypeAny, value);
  if (schema instanceof z.ZodLazy) return coerceForm(schema.schema as ZodTypeAny, value);
  if (typeof value === 'string') {
    if (schema instanceof z.ZodBoolean) return value === 'true' ? true : value === 'false' ? false : value;
    if (schema instanceof z.ZodNumber) return NUMBER.test(value) ? Number(value) : value;
    if (schema instanceof z.ZodLiteral && typeof schema.value !== 'string')
      return String(schema.value) === value ? schema.value : value;
    return value;
  }
  if (Array.isArray(value)) {
    if (schema instanceof z.ZodArray)
      return value.map((item) => coerceForm(schema.element as ZodTypeAny, item));
    return value;
  }
  if (typeof value === 'object' && value !== null && !(value instanceof FormFile)) {
    const entries = Object.entries(value);
    if (schema instanceof z.ZodObject) {
      const shape = schema.shape as Record<string, ZodTypeAny>;
      return Object.fromEntries(
        entries.map(([key, item]) => [key, Object.hasOwn(shape, key) ? coerceForm(shape[key], item) : item]),
      );
    }
    if (schema instanceof z.ZodRecord)
      return Object.fromEntries(
        entries.map(([key, item]) => [key, coerceForm(schema.valueSchema as ZodTypeAny, item)]),
      );
  }
  return value;
}

/** The route's input: a form's values typed by `schema` first (`coerceForm`), JSON as it came. */
export function formInput(schema: ZodTypeAny, body: unknown): unknown {
  return isFormBody(body) ? coerceForm(schema, body) : body;
}
