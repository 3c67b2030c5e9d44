/**
 * The opt-in suite against the providers' own sandboxes (npm run test:connectors:live,
 * docs/connectors.md, "Before going live"): its own config, so that neither `jest`'s unit and e2e
 * projects nor CI ever pick it up. Module mapping and transforms are the root config's.
 */
const root = require('../../jest.config.js');
const unit = root.projects.find((project) => project.displayName === 'unit');

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  // real providers over the Internet: slower than any local fake
  testTimeout: 60000,
  displayName: 'connectors-live',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/connectors-live'],
  testMatch: ['**/*.live-spec.ts'],
  moduleNameMapper: unit.moduleNameMapper,
  transform: unit.transform,
  transformIgnorePatterns: unit.transformIgnorePatterns,
};
