import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../test/client.js';
import { createTestApp, TEST_DIALECT, type TestApp } from '../test/harness.js';
import { firstRunInvitation } from './first-run.js';
import { serverText } from './mail/texts.js';
import { RETENTION, runHousekeeping } from './maintenance/housekeeping.js';

describe('first run', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('gives the same setup link until someone signs up with it, then none', async () => {
    const link = await firstRunInvitation(t.ctx);
    expect(link).toMatch(/^http:\/\/kith\.test\/invitation\/[0-9a-f-]{36}$/);
    expect(await firstRunInvitation(t.ctx)).toBe(link);

    const inviteKey = link?.split('/').pop() ?? '';
    const signup = await api.post('/signup', {
      body: { login: 'first@example.org', password: 'password123', invite_key: inviteKey },
    });
    expect(signup.status).toBe(200);
    const group = await api.get(`/groups/${signup.body.group}`, { key: signup.body.api_key });
    expect(group.body.name).toBe('Home');
    expect(group.body.users).toHaveLength(1);
    expect(await firstRunInvitation(t.ctx)).toBeNull();

    // The group now has a member, so housekeeping keeps it.
    t.clock.advance(RETENTION.emptyGroupMs + 1000);
    await runHousekeeping(t.ctx);
    expect((await api.get(`/groups/${signup.body.group}`, { key: signup.body.api_key })).status).toBe(200);
  });
});

describe.runIf(TEST_DIALECT === 'postgres')('first run of several processes at once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('gives every web process starting on the empty database the same link', async () => {
    // The web processes of a scale-out instance start together (docs/scale-out.md). kith_meta is
    // held until all four callers wait, so that they would all find it empty at the same moment.
    const { url } = t.config.database as { url: string };
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      // Four connections in the pool first: one opened while the table is locked waits in its own
      // start-up, before it reaches the code under test.
      await Promise.all([1, 2, 3, 4].map(() => sql`SELECT pg_sleep(0.2)`.execute(t.ctx.db.kysely)));
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE kith_meta IN ACCESS EXCLUSIVE MODE');
      const links = Promise.all([1, 2, 3, 4].map(() => firstRunInvitation(t.ctx)));
      await expect
        .poll(async () => {
          const { rows } = await blocker.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
          );
          return rows[0]?.waiting;
        })
        .toBe(4);
      await blocker.query('COMMIT');
      const answers = await links;
      expect(answers[0]).toMatch(/\/invitation\/[0-9a-f-]{36}$/);
      expect(new Set(answers).size).toBe(1);
      expect(await t.ctx.db.kysely.selectFrom('groups').select('id').execute()).toHaveLength(1);
    } finally {
      await blocker.end();
    }
  });
});

describe('first run when nobody uses the setup link', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lets housekeeping purge the unused setup group, and makes a new one while still needed', async () => {
    const first = await firstRunInvitation(t.ctx);
    t.clock.advance(RETENTION.emptyGroupMs + 1000);
    expect((await runHousekeeping(t.ctx)).groupsPurged).toBe(1);
    const second = await firstRunInvitation(t.ctx);
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
  });
});

describe('first run in another language', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DEFAULT_LANG: 'ru_RU' });
  });
  afterAll(() => t.close());

  it('names the first group in the instance’s language', async () => {
    const inviteKey = (await firstRunInvitation(t.ctx))?.split('/').pop() ?? '';
    const api = new ApiClient(t.app);
    const signup = await api.post('/signup', {
      body: { login: 'first@example.org', password: 'password123', invite_key: inviteKey },
    });
    const group = await api.get(`/groups/${signup.body.group}`, { key: signup.body.api_key });
    expect(group.body.name).toBe(serverText('ru_RU', 'first_group_name'));
    expect(group.body.name).not.toBe('Home');
  });
});
