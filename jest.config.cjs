process.env.TZ = 'UTC';
// Unit tests live beside the code (*.spec.ts); e2e tests boot the real app (test/**/*.e2e-spec.ts).
// Nest 12 and most of our dependencies are ESM-only, so Jest runs in native ESM mode
// (node --experimental-vm-modules); ts-jest emits ESM and `.js` suffixes of relative imports are stripped.
const moduleNameMapper = {
  '^@app/(common|database|availability|calendar)$': '<rootDir>/libs/$1/src/index.ts',
  '^@app/(common|database|availability|calendar)/(.*)\\.js$': '<rootDir>/libs/$1/src/$2',
  '^(\\.{1,2}/.*)\\.js$': '$1',
  '^cookie$': '<rootDir>/test/setup/cookie-shim.cjs',
};
// A few ESM-only packages are require()d by CommonJS dependencies; Node 20 does that natively,
// Jest's loader cannot before Node 24.9, so Babel turns just these into CommonJS for the tests.
const REQUIRED_ESM_PACKAGES = ['content-disposition', 'cookie'];
const transform = {
  // tsconfig's isolatedModules makes ts-jest transpile file by file (fast); the whole-program type check is `npm run typecheck`.
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', useESM: true }],
  '/node_modules/@nestjs/throttler/dist/.+\\.js$': '<rootDir>/test/setup/esm-bridge-transformer.cjs',
  [`/node_modules/(${REQUIRED_ESM_PACKAGES.join('|')})/.+\\.js$`]: [
    'babel-jest',
    { babelrc: false, configFile: false, plugins: ['@babel/plugin-transform-modules-commonjs'] },
  ],
};
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper,
  transform,
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  transformIgnorePatterns: [`/node_modules/(?!(${REQUIRED_ESM_PACKAGES.join('|')}|@nestjs/throttler)/)`],
  setupFiles: ['<rootDir>/test/setup/esm-bridge.ts'],
};

module.exports = {
  // Jest's default on 2 cores is one worker; the e2e files mostly wait on PostgreSQL, HTTP, browsers and (the failover
  // drills) Patroni, so four share the two cores better (7.5 min with three, 6.3 with four, in one afternoon's runs); the
  // sequencer keeps the browser files' timing budgets beside the drills, not the quick start. docs/contributing/testing.md has the time.
  maxWorkers: 4,
  // A worker's heap grows by some 50 MB per e2e file (Jest's ESM module registries) to 2-2.4 GB by the run's end; a
  // process that large takes longer than Jest's 500 ms to be torn down by the kernel, and Jest then reports that it
  // "failed to exit gracefully" and kills it. A worker past 1 GB after a file is replaced by a fresh one (a second
  // of start-up, a few times a run), so no worker ends the run that large, and major GCs stay short.
  workerIdleMemoryLimit: '1GB',
  // Even so, on a slow machine a worker of a gigabyte or more may take longer than the default 500 ms to be gone after
  // Jest asks it to end (seen again on 2026-11-27: its handles were only stdio and the IPC pipe). Five seconds: a worker
  // that something keeps alive (a timer, a socket) is still force-exited, and the line still printed.
  workerGracefulExitTimeout: 5000,
  testSequencer: '<rootDir>/test/setup/sequencer.cjs',
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], setupFiles: ['<rootDir>/test/setup/esm-bridge.ts', '<rootDir>/test/setup/env.ts'] },
  ],
};
