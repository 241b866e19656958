import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import @kith/common from its sources, so they never run against a stale build.
const alias = { '@kith/common': fileURLToPath(new URL('./common/src/index.ts', import.meta.url)) };

// Three tiers (docs/ARCHITECTURE.md): unit tests beside the code (server and web client),
// integration tests through the real app in process on SQLite and again on PostgreSQL, and the
// browser suite (e2e/) against the built server and client.
export default defineConfig({
  resolve: { alias },
  test: {
    // Two files at a time in every project (Vitest would use one worker on a 2-core machine): the
    // suites wait on databases, servers and browsers more than they compute, and every file keeps
    // its own database, server or browser, so two at once roughly halve `npm test`.
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['common/src/**/*.test.ts', 'server/src/**/*.unit.test.ts', 'bench/lib/**/*.unit.test.ts'],
          // Vitest's 5 s is short for a test that waits on a worker thread while both cores are busy.
          testTimeout: 60_000,
        },
      },
      {
        // The web client's state rules and components, in a simulated DOM.
        extends: './web/vite.config.ts',
        test: {
          name: 'web',
          root: './web',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}'],
          setupFiles: ['./src/test/setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'sqlite',
          include: ['server/src/**/*.int.test.ts'],
          env: { KITH_TEST_DB: 'sqlite' },
          // Files of a worker share one module graph instead of importing the server again each:
          // every file builds its own app, database and back-ends (server/test/harness.ts) and no
          // test mocks a module, so nothing leaks between files; a third of the project's time was
          // imports.
          isolate: false,
          testTimeout: 20_000,
          hookTimeout: 30_000,
          expect: { poll: { timeout: 10_000, interval: 20 } },
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'postgres',
          include: ['server/src/**/*.int.test.ts'],
          // The scale-out back-ends: every integration test runs once on SQLite with the embedded
          // parts, and once on PostgreSQL with Redis (events, throttles, jobs) and an S3 bucket.
          env: { KITH_TEST_DB: 'postgres', KITH_TEST_SCALE_OUT: 'true' },
          isolate: false,
          globalSetup: ['server/test/postgres-global-setup.ts', 'server/test/s3-global-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          expect: { poll: { timeout: 10_000, interval: 20 } },
        },
      },
      {
        // Real browser (Debian's chromium through playwright-core) against the built server and
        // client on a fresh database. Each file starts its own server (on a free port) and browser,
        // so files run two at a time like the other projects'.
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: true,
          // expect.poll gives up after 1 s by default: far too short for a browser on a busy machine.
          expect: { poll: { timeout: 30_000, interval: 100 } },
        },
      },
    ],
  },
});
