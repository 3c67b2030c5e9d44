import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NotFoundError } from '@kessai/domain';
import { Open } from '../auth/decorators';

/** The gateway's OpenAPI document, serialised once on first use. */
export class OpenApiDocumentSource {
  #json: string | undefined;
  constructor(private readonly build: () => Record<string, unknown>) {}
  json(): string {
    this.#json ??= JSON.stringify(this.build());
    return this.#json;
  }
}
export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** The files of the reference page: Swagger UI from its npm package, and the page's own script. */
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
const PAGE_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
`;
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kessai API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/page.js"></script>
</body>
</html>
`;
/** Nothing but the gateway's own files; Swagger UI sets inline styles, and images as data: URLs. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GET /openapi.json (the OpenAPI 3.1 document, generated from the code: openapi-document.ts) and
 * GET /docs (a reference page on it). Open: the API's description is no secret.
 */
@Controller()
export class OpenApiController {
  readonly #assets = new Map<string, Buffer>();

  constructor(@Inject(OPENAPI_DOCUMENT) private readonly source: OpenApiDocumentSource) {}

  @Get('openapi.json')
  @Open()
  document(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.type('application/json; charset=utf-8');
    return this.source.json();
  }

  @Get('docs')
  @Open()
  page(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP);
    return PAGE;
  }

  @Get('docs/:file')
  @Open()
  asset(@Param('file') file: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer | string {
    void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600');
    if (file === 'page.js') {
      void reply.type('text/javascript; charset=utf-8');
      return PAGE_SCRIPT;
    }
    const type = Object.hasOwn(SWAGGER_UI_FILES, file) ? SWAGGER_UI_FILES[file] : undefined;
    if (type === undefined) throw new NotFoundError('file');
    let content = this.#assets.get(file);
    if (!content) {
      content = readFileSync(join(dirname(require.resolve('swagger-ui-dist/package.json')), file));
      this.#assets.set(file, content);
    }
    void reply.type(type);
    return content;
  }
}
