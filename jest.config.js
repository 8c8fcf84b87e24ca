// Jest projects: `bench` (benchmarks that print figures; `npm run bench`, not part of `npm test`), `unit` (pure src/ logic, the origin server over loopback, the
// content tools) and `e2e` (headless Chromium, and Firefox ESR for the page-only modes, via puppeteer-core against the
// demo origin). `npm test` runs the e2e project with --runInBand: two cores, one browser at a time.
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }];
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/unit'],
      transform: { '^.+\\.ts$': tsJest },
      setupFilesAfterEnv: ['<rootDir>/test/unit/jest-setup.ts'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/e2e'],
      transform: { '^.+\\.ts$': tsJest },
      setupFilesAfterEnv: ['<rootDir>/test/e2e/support/jest-setup.ts'],
    },
    {
      displayName: 'bench',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/bench'],
      testMatch: ['**/*.bench.ts'],
      transform: { '^.+\\.ts$': tsJest },
      setupFilesAfterEnv: ['<rootDir>/test/e2e/support/jest-setup.ts'],
    },
  ],
};
