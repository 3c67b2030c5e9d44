// Flat ESLint config: type-aware rules that catch promise misuse and unhandled union cases, and the
// boundaries between apps, libs and the database.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { readdirSync } from 'node:fs';

const relativeParentImports = { group: ['../../*'], message: 'use a @kessai/* path alias' };
// A suite sits in its area's folder (test/<area>/): it reaches an app or a script by its path, two
// levels up, since nothing else may import an app and apps have no alias; libs still by @kessai/*.
const suiteParentImports = {
  regex: String.raw`^\.\./\.\./(?!(apps|scripts)/)`,
  message: 'use a @kessai/* path alias (a suite reaches only apps/ and scripts/ by their path)',
};

// The database boundary: the Prisma client, pg and raw SQL live in libs/db; everything else goes
// through its repositories.
const databaseMessage = 'the database is reached through libs/db repositories only';
const databaseImports = {
  paths: [
    { name: 'pg', message: databaseMessage },
    { name: '@prisma/client', message: databaseMessage },
    { name: '@prisma/adapter-pg', message: databaseMessage },
    {
      name: '@kessai/db',
      importNames: ['PrismaService'],
      message: `PrismaService is the Prisma client: ${databaseMessage}`,
    },
  ],
  patterns: [
    {
      group: ['pg/*', '@prisma/client/*', '**/generated/prisma', '**/generated/prisma/*'],
      message: databaseMessage,
    },
  ],
};
const databaseModule = String.raw`/^(pg|@prisma\/(client|adapter-pg))(\/.*)?$|\/generated\/prisma(\/|$)/`;
const databaseSyntax = [
  {
    selector: String.raw`MemberExpression[property.name=/^\$(queryRaw|queryRawUnsafe|queryRawTyped|executeRaw|executeRawUnsafe|transaction)$/]`,
    message: `raw SQL and transactions: ${databaseMessage}`,
  },
  {
    selector: `CallExpression[callee.name='require'][arguments.0.value=${databaseModule}]`,
    message: databaseMessage,
  },
  { selector: `ImportExpression[source.value=${databaseModule}]`, message: databaseMessage },
];
// A producer adds jobs through its queue's ContractQueue (libs/runtime), which checks job names and
// payloads against libs/contracts; a plain injected BullMQ queue takes any string and any data.
const untypedProducer = {
  name: '@nestjs/bullmq',
  importNames: ['InjectQueue'],
  message: "inject the queue's typed producer: @InjectContractQueue(QUEUE) from @kessai/runtime",
};

/** Rules for files that may use the database directly: the parent-path rule alone stays. */
const databaseAllowed = {
  'no-restricted-imports': ['error', { patterns: [relativeParentImports] }],
  'no-restricted-syntax': 'off',
};

// An app never imports another app (what two apps share belongs in a lib); test/ and bench/ may.
const appZones = readdirSync(`${import.meta.dirname}/apps`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map(({ name: app }) => ({
    target: `./apps/${app}`,
    from: './apps',
    except: [`./${app}`],
    message: 'an app does not import another app: move what both need into a lib',
  }));
// A lib never imports an app: the use cases the gateway and other front ends share live in libs
// (docs/decisions/0026-use-cases-in-libs.md), so nothing outside apps/gateway may reach into it, and
// no lib into any other app. test/, bench/ and scripts/ (tooling that starts or describes an app) may.
const libZones = [
  {
    target: './libs',
    from: './apps',
    message: 'a lib does not import an app (apps/gateway included): what both need belongs in a lib',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'libs/db/src/generated/**',
      'prisma/migrations/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.js', 'prisma.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          paths: [...databaseImports.paths, untypedProducer],
          patterns: [relativeParentImports, ...databaseImports.patterns],
        },
      ],
      'no-restricted-syntax': ['error', ...databaseSyntax],
    },
  },
  {
    // Boundaries (docs/decisions/0001-enforced-boundaries.md). Imports resolve as tsc does, @kessai/*
    // aliases included. no-cycle follows value imports only: a type-only import is erased at compile
    // time and cannot change load order.
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: [...appZones, ...libZones] },
      ],
    },
  },
  {
    // Where the database may be used directly: libs/db itself; test set-up and assertions; the
    // migration adapter; the script that creates the database before anything is built.
    files: [
      'libs/db/**',
      'libs/testing/**',
      'test/**',
      'bench/**',
      'prisma/**',
      'scripts/ensure-database.js',
    ],
    rules: databaseAllowed,
  },
  {
    files: ['test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [suiteParentImports] }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
        __dirname: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // the hosted checkout's browser code (plain scripts served by the gateway)
    files: ['apps/gateway/src/hosted-checkout/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        navigator: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        CustomEvent: 'readonly',
        ResizeObserver: 'readonly',
        Uint8Array: 'readonly',
      },
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
