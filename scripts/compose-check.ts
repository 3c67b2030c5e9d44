/**
 * `npm run compose:check` (CI): the compose files validated against the Compose Specification's JSON
 * schema as each Compose reads it, so that the file keeps to what both versions read alike (issue 34):
 * - Compose v2 (`docker compose`, what users run): the current specification's schema, as the
 *   `dclint` package ships it (`dclint/schemas/compose.schema.json`; `dclint` itself runs beside this
 *   check for its rules);
 * - Compose v1 (`docker-compose` 1.29, what Debian bookworm packages and `npm run test:compose`
 *   drives): the schema bundled in Debian's `docker-compose` package
 *   (`compose/config/compose_spec.json`), read from the installed package or, where it is not
 *   installed, from the package file `apt-get download` fetches (nothing is installed).
 * YAML merge keys (`<<: *anchor`) are resolved first, as both Composes do. What the versions read
 * differently although both schemas take it (deploy.replicas, container names) is in
 * docs/operations.md, "Compose v1 and v2".
 * It also checks that docker-compose.host-network.yml's copy of the services' environment
 * (`x-kessai-env`, which its `-2` replicas use) names what docker-compose.yml's does, with the same
 * values but for the loopback addresses (`x-loopback-env`): `npm run test:compose` refuses a replica
 * that differs from its first one, but only after the engine and images are up.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import Ajv from 'ajv';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..');
export const COMPOSE_FILES = ['docker-compose.yml', 'docker-compose.host-network.yml'];
const V1_SCHEMA_IN_PACKAGE = 'usr/lib/python3/dist-packages/compose/config/compose_spec.json';
const V1_CACHE = join(ROOT, 'node_modules', '.cache', 'kessai-compose-v1');

export type ComposeVersion = 'v1' | 'v2';
type Schema = Record<string, unknown>;

/** The current Compose Specification's schema, as dclint ships it. */
export function composeV2Schema(): Schema {
  // the package exports its code only: the schema is found beside it
  const schema = join(dirname(require.resolve('dclint')), '..', 'schemas', 'compose.schema.json');
  return JSON.parse(readFileSync(schema, 'utf8')) as Schema;
}

/**
 * docker-compose 1.29's own schema: from the installed Debian package, else from the package file
 * (`apt-get download docker-compose`, unpacked with `dpkg -x` into node_modules/.cache).
 */
export function composeV1Schema(): Schema {
  const installed = join('/', V1_SCHEMA_IN_PACKAGE);
  const cached = join(V1_CACHE, V1_SCHEMA_IN_PACKAGE);
  if (!existsSync(installed) && !existsSync(cached)) {
    const download = mkdtempSync(join(tmpdir(), 'compose-v1-'));
    try {
      const get = () =>
        execFileSync('apt-get', ['download', 'docker-compose'], { cwd: download, stdio: 'pipe' });
      try {
        get();
      } catch {
        // a fresh machine may have no package lists yet
        execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe' });
        get();
      }
      const deb = readdirSync(download).find((name) => name.endsWith('.deb'));
      if (!deb) throw new Error('apt-get download docker-compose wrote no package file');
      mkdirSync(V1_CACHE, { recursive: true });
      execFileSync('dpkg', ['-x', join(download, deb), V1_CACHE], { stdio: 'pipe' });
    } finally {
      rmSync(download, { recursive: true, force: true });
    }
  }
  return JSON.parse(readFileSync(existsSync(installed) ? installed : cached, 'utf8')) as Schema;
}

/** A compose document as both Composes see it before interpolation: YAML with merge keys resolved. */
export function readComposeDocument(text: string): unknown {
  return parse(text, { merge: true });
}

/**
 * The schema without its draft-04 `id` annotations (`"id": "#/properties/services"`), which draft
 * 2019-09 ignores (Python's jsonschema, docker-compose's validator, does) and ajv refuses. A key named
 * `id` inside a map of property schemas is a property, not the annotation, and stays.
 */
function withoutDraft4Ids(node: unknown, inPropertyMap = false): Schema {
  if (Array.isArray(node)) return node.map((item) => withoutDraft4Ids(item)) as unknown as Schema;
  if (node === null || typeof node !== 'object') return node as Schema;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => inPropertyMap || key !== 'id' || typeof value !== 'string')
      .map(([key, value]) => [
        key,
        withoutDraft4Ids(
          value,
          !inPropertyMap && ['properties', 'patternProperties', 'definitions'].includes(key),
        ),
      ]),
  );
}

export interface ComposeValidator {
  /** The schema's complaints about a document, one line each; empty when it is valid. */
  (document: unknown): string[];
}

export function composeValidator(version: ComposeVersion): ComposeValidator {
  // v1's schema is draft 2019-09 but names it with a `#` ajv does not know, and still spells `id` the
  // draft-04 way: the schemas themselves are not validated, nor strict about keywords. Formats
  // (duration, ports, …) are Compose's own, checked by each Compose when it reads the values.
  const options = { strict: false, allErrors: true, validateSchema: false, validateFormats: false };
  const ajv = version === 'v1' ? new Ajv2019(options) : new Ajv(options);
  const validate = ajv.compile(version === 'v1' ? withoutDraft4Ids(composeV1Schema()) : composeV2Schema());
  return (document) =>
    validate(document)
      ? []
      : (validate.errors ?? []).map(
          (error) =>
            `${error.instancePath || '/'} ${error.message ?? 'is invalid'}` +
            (error.keyword === 'additionalProperties'
              ? `: ${String((error.params as { additionalProperty?: string }).additionalProperty)}`
              : ''),
        );
}

type Env = Record<string, unknown>;

/**
 * Where the host-network file's copy of the environment (`x-kessai-env`) has drifted from
 * docker-compose.yml's: a setting one copy names and the other does not, or a value that differs
 * although the setting is not one of the loopback addresses (`x-loopback-env`). One line each.
 */
export function replicaEnvironmentDrift(base: unknown, hostNetwork: unknown): string[] {
  const read = (document: unknown, key: string): Env =>
    ((document as Record<string, unknown> | null)?.[key] as Env | undefined) ?? {};
  const first = read(base, 'x-kessai-env');
  const copy = read(hostNetwork, 'x-kessai-env');
  const loopback = new Set(Object.keys(read(hostNetwork, 'x-loopback-env')));
  const problems: string[] = [];
  for (const name of Object.keys(first)) {
    if (!(name in copy)) problems.push(`${name} is missing from the host-network x-kessai-env`);
    else if (!loopback.has(name) && first[name] !== copy[name])
      problems.push(
        `${name} is ${String(copy[name])} in the host-network x-kessai-env, ${String(first[name])} here`,
      );
  }
  for (const name of Object.keys(copy))
    if (!(name in first)) problems.push(`${name} is in the host-network x-kessai-env only`);
  return problems;
}

function main(): void {
  const validators = { v1: composeValidator('v1'), v2: composeValidator('v2') };
  let failed = false;
  for (const file of COMPOSE_FILES) {
    const document = readComposeDocument(readFileSync(join(ROOT, file), 'utf8'));
    for (const version of ['v1', 'v2'] as const) {
      const problems = validators[version](document);
      if (problems.length === 0) continue;
      failed = true;
      process.stderr.write(`compose:check: ${file} is not valid for Compose ${version}:\n`);
      for (const problem of problems) process.stderr.write(`  ${problem}\n`);
    }
  }
  const [base, hostNetwork] = COMPOSE_FILES.map((file) =>
    readComposeDocument(readFileSync(join(ROOT, file), 'utf8')),
  );
  const drift = replicaEnvironmentDrift(base, hostNetwork);
  if (drift.length > 0) {
    failed = true;
    process.stderr.write(`compose:check: the -2 replicas' environment differs from docker-compose.yml's:\n`);
    for (const problem of drift) process.stderr.write(`  ${problem}\n`);
  }
  if (failed) process.exit(1);
  process.stdout.write(`compose:check: ${COMPOSE_FILES.join(', ')} valid for Compose v1 and v2\n`);
}

if (require.main === module) main();
