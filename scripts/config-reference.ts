/**
 * `npm run config:generate`: writes docs/environment.md, the reference of every process setting, from
 * the config schema (libs/config/src/config.schema.ts): each variable's type, bounds and default
 * from the zod schema, its explanation from the schema's own comments. `npm run config:check` (CI)
 * fails when that page is stale, or when .env.example leaves a setting out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { configSchema, SECRET_USERS } from '../libs/config/src/config.schema';

const ROOT = join(__dirname, '..');
const SCHEMA_FILE = 'libs/config/src/config.schema.ts';
export const CONFIG_REFERENCE_FILE = join(ROOT, 'docs', 'environment.md');
const ENV_EXAMPLE = join(ROOT, '.env.example');

interface Entry {
  name: string;
  /** the `//` comment that opens a group of settings, when one comes before this one */
  group: string | null;
  description: string;
}

/** The settings in schema order, with the comments written above each. */
function commentedEntries(): Entry[] {
  const text = readFileSync(join(ROOT, SCHEMA_FILE), 'utf8');
  const source = ts.createSourceFile(SCHEMA_FILE, text, ts.ScriptTarget.ES2022, true);
  let literal: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && node.name.getText(source) === 'configSchema' && node.initializer) {
      const find = (inner: ts.Node): void => {
        if (!literal && ts.isObjectLiteralExpression(inner)) literal = inner;
        else ts.forEachChild(inner, find);
      };
      find(node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!literal) throw new Error(`configSchema's object literal not found in ${SCHEMA_FILE}`);

  return literal.properties.map((property) => {
    const ranges = ts.getLeadingCommentRanges(text, property.getFullStart()) ?? [];
    const lineComments: string[] = [];
    let description = '';
    for (const range of ranges) {
      const raw = text.slice(range.pos, range.end);
      if (raw.startsWith('/**')) description = cleanDocComment(raw);
      else if (raw.startsWith('//')) lineComments.push(raw.replace(/^\/\/\s?/, '').trim());
    }
    return {
      name: property.name?.getText(source) ?? '',
      group: lineComments.length > 0 ? lineComments.join(' ') : null,
      description,
    };
  });
}

function cleanDocComment(raw: string): string {
  return raw
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line.length > 0)
    .join(' ');
}

interface Shape {
  accepts: string;
  default: string | null;
  required: boolean;
}

const thousands = (value: number) =>
  Number.isInteger(value) && Math.abs(value) >= 10_000 ? value.toLocaleString('en-US') : String(value);

/** What a setting accepts, its default, and whether it must be set, read from its zod schema. */
function shapeOf(schema: z.ZodTypeAny): Shape {
  let current = schema;
  let defaultValue: unknown;
  let optional = false;
  for (;;) {
    if (current instanceof z.ZodDefault) {
      const def = current._def as z.ZodDefaultDef;
      defaultValue = def.defaultValue();
      current = def.innerType;
    } else if (current instanceof z.ZodEffects) {
      current = (current as z.ZodEffects<z.ZodTypeAny>).innerType();
    } else if (current instanceof z.ZodOptional) {
      optional = true;
      current = (current as z.ZodOptional<z.ZodTypeAny>).unwrap();
    } else break;
  }
  const accepts = acceptsOf(current);
  const shownDefault =
    defaultValue === undefined
      ? null
      : typeof defaultValue === 'number'
        ? thousands(defaultValue)
        : JSON.stringify(defaultValue).replace(/^"|"$/g, '');
  return { accepts, default: shownDefault, required: defaultValue === undefined && !optional };
}

function acceptsOf(schema: z.ZodTypeAny): string {
  if (schema instanceof z.ZodEffects) return acceptsOf((schema as z.ZodEffects<z.ZodTypeAny>).innerType());
  if (schema instanceof z.ZodEnum) return (schema.options as string[]).map((v) => `\`${v}\``).join(', ');
  if (schema instanceof z.ZodNumber) {
    const checks = schema._def.checks;
    const integer = checks.some((check) => check.kind === 'int');
    const min = checks.find((check) => check.kind === 'min');
    const max = checks.find((check) => check.kind === 'max');
    const kind = integer ? 'integer' : 'number';
    if (min?.inclusive && max?.inclusive) return `${kind} ${thousands(min.value)}–${thousands(max.value)}`;
    const bounds: string[] = [];
    if (min) bounds.push(min.inclusive ? `≥ ${thousands(min.value)}` : `> ${thousands(min.value)}`);
    if (max) bounds.push(max.inclusive ? `≤ ${thousands(max.value)}` : `< ${thousands(max.value)}`);
    return [kind, bounds.join(', ')].filter(Boolean).join(' ');
  }
  if (schema instanceof z.ZodString) {
    const checks = schema._def.checks;
    const parts = ['string'];
    for (const check of checks) {
      if (check.kind === 'url') parts[0] = 'URL';
      if (check.kind === 'min' && check.value > 1) parts.push(`≥ ${check.value} characters`);
      if (check.kind === 'max') parts.push(`≤ ${check.value} characters`);
      if (check.kind === 'regex') parts.push(`matching \`${check.regex.source}\``);
    }
    return parts.join(', ');
  }
  if (schema instanceof z.ZodBoolean) return 'boolean';
  throw new Error(`config-reference: no description for a ${schema.constructor.name}`);
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The reference page, as committed. */
export function generatedConfigReference(): string {
  const shape = configSchema.shape as Record<string, z.ZodTypeAny>;
  const entries = commentedEntries();
  const named = new Set(entries.map((entry) => entry.name));
  const missing = Object.keys(shape).filter((name) => !named.has(name));
  if (missing.length > 0) throw new Error(`config-reference: not found in the source: ${missing.join(', ')}`);
  const undocumented = entries.filter((entry) => entry.description === '').map((entry) => entry.name);
  if (undocumented.length > 0)
    throw new Error(
      `config-reference: give each setting a /** comment */ in ${SCHEMA_FILE}: ${undocumented.join(', ')}`,
    );

  const lines = [
    '# Process configuration (environment variables)',
    '',
    '<!-- Generated by `npm run config:generate` from libs/config/src/config.schema.ts: edit the schema',
    'and its comments, not this page. `npm run config:check` (CI) fails when this page is stale. -->',
    '',
    'Every Kessai process (the gateway, the worker services, the admin CLI) reads these from its',
    'environment at start, through one zod schema (`libs/config`); a missing or bad value stops the',
    'process with exit code 78, naming the variable; an empty value counts as unset (its default',
    'applies). A secret is required only by the processes that use it (`SECRET_USERS`; `admin` is the',
    'CLI): a worker that never reads a card or signs a JWT starts without those keys. `npm start` writes `.env` from',
    '[`.env.example`](../.env.example) on first run. This page is generated from that schema. The',
    'processor simulator has settings of its own (`SIMULATOR_*`, [processor-simulator.md](processor-simulator.md));',
    'what a store or merchant may set through the API is [configuration.md](configuration.md).',
    '',
  ];
  const header = ['| Variable | Accepts | Default | What it does |', '| --- | --- | --- | --- |'];
  let open = false;
  for (const entry of entries) {
    if (entry.group !== null || !open) {
      if (open) lines.push('');
      if (entry.group !== null) lines.push(entry.group, '');
      lines.push(...header);
      open = true;
    }
    const { accepts, default: shownDefault, required } = shapeOf(shape[entry.name]);
    const users: readonly string[] | undefined = (SECRET_USERS as Record<string, readonly string[]>)[
      entry.name
    ];
    const defaultCell = users
      ? `**required** by ${users.join(', ')}`
      : required
        ? '**required**'
        : shownDefault === null
          ? 'unset'
          : `\`${shownDefault}\``;
    lines.push(
      `| \`${entry.name}\` | ${cell(accepts)} | ${cell(defaultCell)} | ${cell(entry.description)} |`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

/** Settings of the schema that .env.example does not mention (as `NAME=` or `# NAME=`). */
export function settingsMissingFromEnvExample(): string[] {
  const example = readFileSync(ENV_EXAMPLE, 'utf8');
  const mentioned = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));
  return Object.keys(configSchema.shape).filter((name) => !mentioned.has(name));
}

function main(command: string | undefined): number {
  const generated = generatedConfigReference();
  if (command === 'generate') {
    writeFileSync(CONFIG_REFERENCE_FILE, generated);
    console.log(`config: wrote ${CONFIG_REFERENCE_FILE}`);
    return 0;
  }
  if (command !== 'check') {
    console.error('usage: config-reference.ts generate|check');
    return 64;
  }
  let committed = '';
  try {
    committed = readFileSync(CONFIG_REFERENCE_FILE, 'utf8');
  } catch {
    // missing: stale
  }
  let status = 0;
  if (committed !== generated) {
    console.error(
      'config: docs/environment.md is stale (libs/config/src/config.schema.ts changed); run ' +
        'npm run config:generate and commit it',
    );
    status = 1;
  }
  const missing = settingsMissingFromEnvExample();
  if (missing.length > 0) {
    console.error(`config: .env.example does not mention ${missing.join(', ')}`);
    status = 1;
  }
  if (status === 0)
    console.log('config: docs/environment.md is current; .env.example mentions every setting');
  return status;
}

if (require.main === module) process.exit(main(process.argv[2]));
