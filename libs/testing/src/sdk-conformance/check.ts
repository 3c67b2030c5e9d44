import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { SdkSchemas } from './schemas';

/**
 * What an answer breaks of its SDK type: `missing` a required key, `null` where the type has none,
 * `type` another JSON type, `enum` a value outside the SDK's enum or literal union (an error code or
 * reason outside ResponseErrorCode included), `union` a value matching no member of a union whose
 * members differ in more than one place.
 */
export type ViolationKind = 'missing' | 'null' | 'type' | 'enum' | 'union';

export interface Violation {
  /** a JSON pointer into the answer as the SDK yields it (camelCase keys); array indices as `*` */
  path: string;
  kind: ViolationKind;
  /** the value outside the enum, for `enum` (each unknown code is its own violation) */
  value?: string;
}

/** A JSON pointer's segments (ajv's instancePath: `/a/0/b`, with `~1` and `~0` escapes). */
function segments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const segment of segments(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function normalise(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, '/*');
}

function within(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Validates answers against the SDK's schemas and names each place an answer breaks its type. */
export class SdkAnswerChecker {
  // verbose: a union's error carries its members' schemas, to try each one alone
  private readonly ajv = new Ajv({
    allErrors: true,
    strict: false,
    allowUnionTypes: true,
    verbose: true,
  });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly schemas: SdkSchemas) {
    this.ajv.addSchema(schemas.schema, 'sdk');
  }

  /** Whether the SDK declares an answer for this method (false for unknown and void methods). */
  typed(method: string): boolean {
    return typeof this.schemas.methods[method] === 'string';
  }

  /** The violations of a method's answer; none for a method without a declared answer. */
  checkAnswer(method: string, answer: unknown): Violation[] {
    const definition = this.schemas.methods[method];
    if (typeof definition !== 'string') return [];
    return this.violations({ $ref: `#/definitions/${definition}` }, answer);
  }

  /** The violations of an error envelope (ResponseError.errorResponse): code and reasons in the SDK's enums. */
  checkError(errorResponse: unknown): Violation[] {
    return this.violations({ $ref: `#/definitions/${this.schemas.errorDefinition}` }, errorResponse);
  }

  /** A validator of a schema of the SDK's document (its `#/definitions/…` references into it). */
  private validator(schema: unknown): ValidateFunction {
    const text = JSON.stringify(schema).replace(/"#\/definitions\//g, '"sdk#/definitions/');
    let validate = this.validators.get(text);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(text) as object);
      this.validators.set(text, validate);
    }
    return validate;
  }

  private violations(schema: unknown, value: unknown): Violation[] {
    const validate = this.validator(schema);
    if (validate(value)) return [];
    const errors = [...(validate.errors ?? [])];
    const found: Violation[] = [];
    const covered: string[] = [];
    // a union's members each fail somewhere: the member the value comes closest to is the one it
    // was meant as, and its violations are the answer's (outermost unions first)
    const unions = errors
      .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
      .sort((a, b) => a.instancePath.length - b.instancePath.length);
    for (const union of unions) {
      if (covered.some((path) => within(union.instancePath, path))) continue;
      covered.push(union.instancePath);
      found.push(...this.closestMember(union, valueAt(value, union.instancePath)));
    }
    for (const error of errors) {
      if (covered.some((path) => within(error.instancePath, path))) continue;
      const violation = classify(error, value);
      if (violation) found.push(violation);
    }
    return dedupe(found);
  }

  private closestMember(union: ErrorObject, value: unknown): Violation[] {
    // a value that is not null is judged against the members that are not null alone
    const members = ((union.schema ?? []) as unknown[]).filter(
      (member) => value === null || (member as { type?: unknown }).type !== 'null',
    );
    let best: Violation[] | undefined;
    for (const member of members) {
      const candidate = this.violations(member, value);
      if (!best || candidate.length < best.length) best = candidate;
    }
    if (!best || best.length === 0) return [{ path: normalise(union.instancePath), kind: 'union' }];
    // a value that is null where no member is: the union's one violation
    if (value === null) return [{ path: normalise(union.instancePath), kind: 'null' }];
    return best.map((v) => ({ ...v, path: normalise(union.instancePath) + v.path }));
  }
}

function classify(error: ErrorObject, root: unknown): Violation | undefined {
  const path = normalise(error.instancePath);
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return { path: `${path}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`, kind: 'missing' };
    }
    case 'type':
      return { path, kind: valueAt(root, error.instancePath) === null ? 'null' : 'type' };
    case 'enum':
    case 'const': {
      const value = valueAt(root, error.instancePath);
      if (value === null) return { path, kind: 'null' };
      return { path, kind: 'enum', value: typeof value === 'string' ? value : JSON.stringify(value) };
    }
    case 'additionalProperties':
      return undefined;
    default:
      return { path, kind: 'type' };
  }
}

function dedupe(violations: Violation[]): Violation[] {
  const seen = new Map<string, Violation>();
  for (const v of violations) seen.set(`${v.path}\u0000${v.kind}\u0000${v.value ?? ''}`, v);
  return [...seen.values()];
}
