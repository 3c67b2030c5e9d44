/** Unit tests live beside the code (*.spec.ts); end-to-end suites under test/<area>/ (*.e2e-spec.ts). */
const moduleNameMapper = {
  '^@kessai/(config|contracts|domain|db|auth|observability|runtime|admin|testing|cards|vault|processor|accounts|redis|store-configuration|schedule|presenters|payments|subscriptions|webhooks|transaction-tokens|rate-limits)$':
    '<rootDir>/libs/$1/src',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  // ESM-only dependencies (content-disposition 3, under @fastify/static for the queue dashboard):
  // Node loads them with require(esm), jest below Node 24.9 does not, so they are compiled to CommonJS
  '/node_modules/content-disposition/.+\\.js$': [
    'ts-jest',
    { tsconfig: { allowJs: true }, isolatedModules: true },
  ],
};
const transformIgnorePatterns = ['/node_modules/(?!content-disposition/)'];

/** @type {import('jest').Config} */
module.exports = {
  // jest 30 reads testTimeout from the root config only (a project's own is ignored): e2e suites
  // start processes and databases, which a loaded 2-core machine can take well over 5 s to do
  testTimeout: 30000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/apps', '<rootDir>/libs'],
      testMatch: ['**/*.spec.ts'],
      moduleNameMapper,
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      moduleNameMapper,
      transform,
      transformIgnorePatterns,
      globalSetup: '<rootDir>/test/global-setup.ts',
      // the SDK conformance check: every SDK answer validated against the SDK's declared types,
      // reported (and a violation not in test/sdk-conformance-exceptions.yaml failing) at the end
      setupFilesAfterEnv: ['<rootDir>/test/sdk-conformance.setup.ts'],
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
};
