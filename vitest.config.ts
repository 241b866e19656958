import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import @kith/common from its sources, so they never run against a stale build.
const alias = { '@kith/common': fileURLToPath(new URL('./common/src/index.ts', import.meta.url)) };

// Three tiers (docs/ARCHITECTURE.md): unit tests beside the code, integration tests through the
// real app in process on SQLite and again on PostgreSQL.
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['common/src/**/*.test.ts', 'server/src/**/*.unit.test.ts'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'sqlite',
          include: ['server/src/**/*.int.test.ts'],
          env: { KITH_TEST_DB: 'sqlite' },
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'postgres',
          include: ['server/src/**/*.int.test.ts'],
          env: { KITH_TEST_DB: 'postgres' },
          globalSetup: ['server/test/postgres-global-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
