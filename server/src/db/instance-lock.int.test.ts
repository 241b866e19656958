import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../test/harness.js';
import { acquireInstanceLock, InstanceLockedError } from './instance-lock.js';

// The lock of one server process per set of data, on the engine of this run (the whole processes,
// a crash included, are in e2e/single-process.e2e.test.ts).
describe(`the instance lock on ${TEST_DIALECT}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('refuses a second holder with a message, and is free again once released', async () => {
    const first = await acquireInstanceLock(t.config.database);
    const second = acquireInstanceLock(t.config.database);
    await expect(second).rejects.toBeInstanceOf(InstanceLockedError);
    await expect(second).rejects.toThrow(/Another Kith server is running on/);
    await first.release();
    const again = await acquireInstanceLock(t.config.database);
    await again.release();
  });

  it('leaves the database itself open to others (the app, the admin CLI)', async () => {
    const lock = await acquireInstanceLock(t.config.database);
    try {
      await t.ctx.db.transaction((tx) => tx.selectFrom('users').select('id').execute());
    } finally {
      await lock.release();
    }
  });
});
