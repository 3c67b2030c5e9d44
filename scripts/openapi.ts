/**
 * `npm run openapi:generate`: writes docs/openapi.json, the gateway's OpenAPI 3.1 document, from the
 * code (apps/gateway/src/openapi). `npm run openapi:check` (CI): fails when the committed document is
 * not what the code generates, or when it is not a valid OpenAPI 3.1 document.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { GATEWAY_CONTROLLERS } from '../apps/gateway/src/app.module';
import { buildOpenApiDocument } from '../apps/gateway/src/openapi/openapi-document';

export const OPENAPI_FILE = join(__dirname, '..', 'docs', 'openapi.json');

/** The document as committed: two-space JSON and a final newline. */
export function generatedOpenApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(GATEWAY_CONTROLLERS), null, 2)}\n`;
}

/** The validator's complaints about a document; empty when it is a valid OpenAPI document. */
export async function openApiProblems(document: unknown): Promise<string[]> {
  // validate() dereferences the object it is given: a copy keeps the caller's intact
  const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
  return result.valid ? [] : [compileErrors(result)];
}

async function main(command: string | undefined): Promise<number> {
  const generated = generatedOpenApiText();
  if (command === 'generate') {
    writeFileSync(OPENAPI_FILE, generated);
    console.log(`openapi: wrote ${OPENAPI_FILE}`);
    return 0;
  }
  if (command !== 'check') {
    console.error('usage: openapi.ts generate|check');
    return 64;
  }
  let committed: string;
  try {
    committed = readFileSync(OPENAPI_FILE, 'utf8');
  } catch {
    console.error(`openapi: ${OPENAPI_FILE} is missing; run npm run openapi:generate and commit it`);
    return 1;
  }
  if (committed !== generated) {
    console.error(
      "openapi: docs/openapi.json is stale (the gateway's routes or schemas changed); run " +
        'npm run openapi:generate and commit it',
    );
    return 1;
  }
  const problems = await openApiProblems(JSON.parse(committed));
  if (problems.length > 0) {
    console.error(`openapi: docs/openapi.json is not a valid OpenAPI document:\n${problems.join('\n')}`);
    return 1;
  }
  console.log('openapi: docs/openapi.json is current and valid');
  return 0;
}

if (require.main === module) {
  main(process.argv[2]).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
