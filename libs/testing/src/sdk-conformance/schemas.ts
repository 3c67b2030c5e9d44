import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createGenerator } from 'ts-json-schema-generator';
import ts from 'typescript';

/**
 * JSON Schemas of the answers of every method of the official univapay-node SDK, generated from the
 * SDK's own declarations: each method's `Promise<X>` return type becomes one definition, so an
 * answer is checked against exactly what strict TypeScript code written against the SDK relies on.
 */
export interface SdkSchemas {
  /** univapay-node's version the schemas were generated from */
  sdkVersion: string;
  /** `resource.method` → its answer's definition name, or null when it resolves to nothing (void) */
  methods: Record<string, string | null>;
  /** the definition of the SDK's error envelope (ResponseError.errorResponse) */
  errorDefinition: string;
  /** a draft-07 schema whose `definitions` hold every answer type */
  schema: { definitions: Record<string, unknown> };
}

const ERROR_DEFINITION = 'ErrorResponse__';

/**
 * Resource classes the SDK exports but does not mount on its SDK object (an integrator makes them
 * with `new X(sdk)`): their methods are checked as `Class.method`. `answers` names, for a method
 * declared to resolve to `any`, the type the same declarations give its answer.
 */
export const UNMOUNTED_RESOURCES: readonly { name: string; file: string; answers: Record<string, string> }[] =
  [
    {
      name: 'TemporaryTokenAlias',
      file: 'TemporaryTokenAlias',
      answers: { get: 'ResponseTemporaryTokenAlias' },
    },
  ];

/** univapay-node's package folder (its exports map hides package.json from require.resolve). */
function sdkRoot(): string {
  return resolve(dirname(require.resolve('univapay-node')), '..', '..');
}

export function sdkVersion(): string {
  return (JSON.parse(readFileSync(join(sdkRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** A definition name for `resource.method` (an identifier ts-json-schema-generator keeps as is). */
function definitionName(method: string): string {
  return method.replace('.', '__');
}

interface Rendered {
  imports: Map<string, { file: string; name: string }>;
}

/**
 * The source text of `node` with each type it names replaced by an imported alias, so the text can
 * be pasted into a file of its own; the class's and the method's type parameters become their
 * defaults (or `unknown`), as an integrator's `new SDK()` leaves them.
 */
function render(node: ts.Node, checker: ts.TypeChecker, out: Rendered): string {
  const source = node.getSourceFile();
  const edits: { start: number; end: number; text: string }[] = [];
  const visit = (child: ts.Node) => {
    if (ts.isTypeReferenceNode(child)) {
      const head = ts.isQualifiedName(child.typeName) ? leftmost(child.typeName) : child.typeName;
      let symbol = checker.getSymbolAtLocation(head);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declaration = symbol?.declarations?.[0];
      if (symbol && declaration && ts.isTypeParameterDeclaration(declaration)) {
        const replacement = declaration.default ?? declaration.constraint;
        edits.push({
          start: head.getStart(source),
          end: head.getEnd(),
          text: replacement ? `(${render(replacement, checker, out)})` : 'unknown',
        });
      } else if (symbol && declaration && !isGlobal(declaration)) {
        const file = declaration.getSourceFile().fileName.replace(/\.d\.ts$/, '');
        const alias = `T${out.imports.size}_${symbol.name}`;
        const known = [...out.imports].find(([, v]) => v.file === file && v.name === symbol.name);
        const name = known ? known[0] : alias;
        if (!known) out.imports.set(alias, { file, name: symbol.name });
        edits.push({ start: head.getStart(source), end: head.getEnd(), text: name });
      }
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  let text = source.text.slice(node.getStart(source), node.getEnd());
  const base = node.getStart(source);
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, edit.start - base) + edit.text + text.slice(edit.end - base);
  }
  return text;
}

function leftmost(name: ts.QualifiedName): ts.Identifier {
  let current: ts.EntityName = name;
  while (ts.isQualifiedName(current)) current = current.left;
  return current;
}

function isGlobal(declaration: ts.Declaration): boolean {
  const file = declaration.getSourceFile().fileName;
  return file.includes('/typescript/lib/') || file.includes('/@types/node/');
}

/**
 * The synthetic module: one exported alias per SDK method, equal to what the method's promise
 * resolves to; returns its text and the method → definition table.
 */
export function sdkAnswerTypes(): { source: string; methods: Record<string, string | null> } {
  const root = join(sdkRoot(), 'dist', 'cjs');
  const program = ts.createProgram([join(root, 'index.d.ts')], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(join(root, 'index.d.ts'));
  const sdkClass = index?.statements.find(
    (s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === 'SDK',
  );
  if (!sdkClass) throw new Error('univapay-node: no SDK class in its index.d.ts');
  const out: Rendered = { imports: new Map() };
  const aliases: string[] = [];
  const methods: Record<string, string | null> = {};
  const addMethod = (method: string, declaration: ts.Declaration | undefined, answerOverride?: string) => {
    if (!declaration || !ts.isMethodDeclaration(declaration) || !declaration.type) return;
    const flags = ts.getCombinedModifierFlags(declaration);
    if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return;
    if (!declaration.getSourceFile().fileName.startsWith(root)) return; // EventEmitter's
    const type = declaration.type;
    if (
      !ts.isTypeReferenceNode(type) ||
      type.typeName.getText() !== 'Promise' ||
      type.typeArguments?.length !== 1
    ) {
      return;
    }
    const answer = type.typeArguments[0];
    if (answer.kind === ts.SyntaxKind.VoidKeyword) {
      methods[method] = null;
      return;
    }
    methods[method] = definitionName(method);
    aliases.push(
      `export type ${definitionName(method)} = ${answerOverride ?? render(answer, checker, out)};`,
    );
  };
  for (const member of sdkClass.members) {
    if (!ts.isPropertyDeclaration(member) || !ts.isIdentifier(member.name)) continue;
    const resource = member.name.text;
    for (const property of checker.getTypeAtLocation(member).getProperties()) {
      addMethod(`${resource}.${property.name}`, property.valueDeclaration);
    }
  }
  // resource classes the SDK exports without mounting them on SDK, under their class names
  for (const { name, file, answers } of UNMOUNTED_RESOURCES) {
    const source = program.getSourceFile(join(root, 'resources', `${file}.d.ts`));
    const declaration = source?.statements.find(
      (s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === name,
    );
    if (!source || !declaration) throw new Error(`univapay-node: no ${name} class in resources/${file}.d.ts`);
    for (const member of declaration.members) {
      if (!member.name || !ts.isIdentifier(member.name)) continue;
      const answer = answers[member.name.text];
      let override: string | undefined;
      if (answer !== undefined) {
        const alias = `T${out.imports.size}_${answer}`;
        out.imports.set(alias, { file: join(root, 'resources', file), name: answer });
        override = alias;
      }
      addMethod(`${name}.${member.name.text}`, member, override);
    }
  }
  const restApi = join(root, 'api', 'RestAPI');
  out.imports.set('T_ErrorResponse', { file: restApi, name: 'ErrorResponse' });
  aliases.push(`export type ${ERROR_DEFINITION} = T_ErrorResponse;`);
  const imports = [...out.imports].map(
    ([alias, { file, name }]) => `import type { ${name} as ${alias} } from ${JSON.stringify(file)};`,
  );
  return { source: [...imports, '', ...aliases, ''].join('\n'), methods };
}

/** Generates the schemas (a few seconds of TypeScript): prefer loadSdkSchemas, which caches them. */
export function generateSdkSchemas(workDir: string): SdkSchemas {
  const { source, methods } = sdkAnswerTypes();
  mkdirSync(workDir, { recursive: true });
  const file = join(workDir, `answers-${process.pid}.ts`);
  writeFileSync(file, source);
  try {
    return { sdkVersion: sdkVersion(), methods, errorDefinition: ERROR_DEFINITION, schema: generate(file) };
  } finally {
    rmSync(file, { force: true });
  }
}

function generate(file: string): SdkSchemas['schema'] {
  return createGenerator({
    path: file,
    type: '*',
    expose: 'export',
    topRef: true,
    jsDoc: 'none',
    // the SDK's types list what an integrator may rely on, not all a server may send
    additionalProperties: true,
    skipTypeCheck: true,
    // a schema is generated for what a type declares; a function-typed field has no wire form
    functions: 'hide',
  }).createSchema('*') as SdkSchemas['schema'];
}

/** The cache file: keyed by the SDK's version and by this generator (its source and its version). */
export function sdkSchemasCacheFile(): string {
  const generatorVersion = (
    JSON.parse(readFileSync(require.resolve('ts-json-schema-generator/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const digest = createHash('sha256')
    .update(readFileSync(__filename))
    .update(generatorVersion)
    .digest('hex')
    .slice(0, 12);
  const cache = resolve(sdkRoot(), '..', '.cache');
  return join(cache, 'kessai-sdk-schemas', `univapay-node-${sdkVersion()}-${digest}.json`);
}

/** The schemas from the cache, generated into it first when this SDK version has none. */
export function loadSdkSchemas(): SdkSchemas {
  const file = sdkSchemasCacheFile();
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SdkSchemas;
  } catch {
    const schemas = generateSdkSchemas(dirname(file));
    // written whole then renamed: a reader at the same time sees the old state or the new, never half
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(schemas));
    renameSync(partial, file);
    return schemas;
  }
}
