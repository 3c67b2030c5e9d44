import Busboy from '@fastify/busboy';
import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { LogoUpload } from '@kessai/accounts';
import { LOGO_MAX_BYTES } from '@kessai/domain';

/** The one route that takes multipart/form-data: a store's logo upload. */
export const LOGO_ROUTE = '/settings/stores/:id/logo';

/** The upload form's fields besides the file (the CSRF token) are short. */
const FIELD_MAX_BYTES = 1_024;

/**
 * A body bound well above the logo's, so that a file somewhat too big still reaches the use case
 * (its FILE_MAX_SIZE_EXCEEDED on the page) while the parser holds at most this much.
 */
const BODY_MAX_BYTES = 1_048_576;

/**
 * The upload form's body: its CSRF token and its file; `malformed` when it held anything else (a
 * field or file of another name, a second one, parts past the bounds, no multipart at all), which
 * the page refuses as a whole.
 */
export interface LogoForm {
  _csrf?: string;
  logo?: LogoUpload;
  malformed?: true;
}

/**
 * Registers the console's multipart/form-data parser: the logo upload form's only (any other route
 * answers 415, as before), a body of at most BODY_MAX_BYTES. The file is kept up to
 * LOGO_MAX_BYTES + 1 bytes, so that the use case
 * tells a bigger one (`truncated`): its type is decided by StoresService from the bytes, never from
 * the name or the type the browser declared.
 */
export function acceptLogoUploads(app: NestFastifyApplication): void {
  // fastify's own hook, not Nest's useBodyParser: that one would mark the parsers registered, and
  // Nest would then skip its urlencoded and JSON ones at init
  const parse = (
    request: FastifyRequest,
    body: Buffer,
    done: (error: Error | null, form?: LogoForm) => void,
  ) => {
    if (request.routeOptions.url === undefined) {
      done(null, undefined);
      return;
    }
    if (request.method !== 'POST' || request.routeOptions.url !== LOGO_ROUTE) {
      done(new UnsupportedMediaTypeException('multipart/form-data is taken by the logo upload only'));
      return;
    }
    void readLogoForm(request, body).then((form) => done(null, form));
  };
  app
    .getHttpAdapter()
    .getInstance()
    .addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: BODY_MAX_BYTES },
      (request, body, done) => parse(request, body as Buffer, done),
    );
}

/** The form's token and file; never rejects (a form it cannot read is `malformed`). */
function readLogoForm(request: FastifyRequest, body: Buffer): Promise<LogoForm> {
  return new Promise((resolve) => {
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        limits: {
          fieldSize: FIELD_MAX_BYTES,
          fields: 1,
          files: 1,
          fileSize: LOGO_MAX_BYTES + 1,
          parts: 2,
          headerPairs: 10,
        },
      });
    } catch {
      // no boundary: not a multipart form after all
      resolve({ malformed: true });
      return;
    }
    const form: LogoForm = {};
    let refused = false;
    let reading: Promise<void> = Promise.resolve();
    parser.on('field', (name: string | undefined, value: string, nameTruncated, valueTruncated) => {
      if (name !== '_csrf' || nameTruncated || valueTruncated || form._csrf !== undefined) refused = true;
      else form._csrf = value;
    });
    parser.on('file', (name: string | undefined, stream) => {
      if (name !== 'logo' || form.logo !== undefined) {
        refused = true;
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      reading = new Promise((read) => {
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', () => {
          refused = true;
          read();
        });
        stream.on('end', () => {
          const bytes = Buffer.concat(chunks);
          form.logo = {
            bytes,
            size: bytes.length,
            truncated: stream.truncated,
            sha256: createHash('sha256').update(bytes).digest('hex'),
          };
          read();
        });
      });
    });
    const tooMany = () => (refused = true);
    parser.on('fieldsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('partsLimit', tooMany);
    // a broken body: its token (if read) still decides CSRF; the form is refused
    parser.on('error', () => resolve({ ...form, logo: undefined, malformed: true }));
    parser.on('finish', () => {
      void reading.then(() => resolve(refused ? { _csrf: form._csrf, malformed: true } : form));
    });
    parser.end(body);
  });
}
