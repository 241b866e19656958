import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { expectError } from '../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { serve } from '../../test/sse.js';
import { uploadFile } from '../../test/uploads.js';
import { eventStreamsOf } from '../features/live/stream.js';
import { runCliCaptured } from '../../test/cli.js';

// The administration commands (issue 22, part 4): stats, users list|disable|enable|delete,
// groups list|delete, each on the database of a running app, as an operator would run them.

const scaleOut = process.env.KITH_TEST_SCALE_OUT === 'true';
const USER_KEYS = ['id', 'login', 'name', 'createdAt', 'lastActivityDate', 'disabled', 'storageBytes'].sort();

describe('admin CLI: stats, users and groups', () => {
  let t: TestApp;
  let api: ApiClient;
  let env: Record<string, string>;
  const server = serve(() => t);

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    await server.listen();
    env = {
      DATA_DIR: t.config.dataDir,
      SECRET_KEY: t.config.secretKey,
      PUBLIC_URL: t.config.publicUrl,
      ...(t.config.database.kind === 'postgres' ? { DATABASE_URL: t.config.database.url } : {}),
      // In scale-out mode the CLI publishes on the app's Redis, as on a real instance.
      ...(t.config.redisUrl !== null ? { REDIS_URL: t.config.redisUrl, REDIS_KEY_PREFIX: t.config.redisPrefix } : {}),
    };
  });
  afterAll(() => t.close());

  const cli = (...argv: string[]) => runCliCaptured(argv, env);

  async function post(author: BuiltUser, group: string, parent?: string) {
    const res = await api.post('/messages', {
      key: author.key,
      body: { group, ...(parent !== undefined ? { parent } : {}), data: { text: 'Hello' }, files: [] },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  it('stats counts users, groups, messages, comments, storage and queues', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    const message = await post(ana, group.id);
    await post(ben, group.id, message);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5000, '%')]);
    expect((await uploadFile(t, ana.key, pdf, 'a.pdf', 'application/pdf')).status).toBe(201);

    const out = await cli('stats');
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    expect(out.json).toEqual({
      users: 2,
      disabledUsers: 0,
      groups: 1,
      messages: 1,
      comments: 1,
      storage: { bytes: pdf.length, uploadingBytes: 0, userLimitBytes: null, instanceLimitBytes: null },
      jobs: { queued: expect.any(Number), running: expect.any(Number), done: expect.any(Number), failed: 0 },
      mailQueue: { queued: expect.any(Number), running: expect.any(Number), done: expect.any(Number), failed: 0 },
    });
    const bad = await cli('stats', '--verbose');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('Unknown option --verbose');
  });

  it('users list pages through accounts by id, with no secret in them', async () => {
    await buildUser(t.ctx);
    const all = await cli('users', 'list');
    expect(all.code, all.stderr).toBe(0);
    const ids = (all.json.users as { id: string }[]).map((u) => u.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids).toEqual([...ids].sort());
    expect(all.json.next).toBeNull();
    for (const user of all.json.users) expect(Object.keys(user).sort()).toEqual(USER_KEYS);
    expect(all.stdout).not.toMatch(/api_key|password|\$argon2/);

    const first = await cli('users', 'list', '--limit', '2');
    expect(first.json.users.map((u: { id: string }) => u.id)).toEqual(ids.slice(0, 2));
    expect(first.json.next).toBe(ids[1]);
    const second = await cli('users', 'list', '--limit', '2', '--after', first.json.next);
    expect(second.json.users.map((u: { id: string }) => u.id)).toEqual(ids.slice(2, 4));

    for (const argv of [
      ['users', 'list', '--limit', '0'],
      ['users', 'list', '--limit', '1001'],
      ['users', 'list', '--limit', 'ten'],
      ['users', 'list', '--after', 'nope'],
      ['users', 'list', '--after'],
      ['users', 'list', '--colour', 'red'],
    ]) {
      const out = await cli(...argv);
      expect(out.code, argv.join(' ')).toBe(1);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/^kith users: /);
    }
    for (const argv of [['users'], ['users', 'frobnicate'], ['groups', 'rename']]) {
      const out = await cli(...argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain('needs one of');
    }
  });

  it('users disable refuses the key at once, sign-in and the live stream; enable lets them back', async () => {
    const ana = await buildUser(t.ctx, { login: 'ana.disabled@example.org' });
    const streams = eventStreamsOf(t.ctx)!;
    // An embedded server hears of it at its next ping (no bus shared with the CLI); in scale-out
    // mode the CLI's event closes it through Redis, so the ping stays at its usual 25 s there.
    if (!scaleOut) streams.options.pingIntervalMs = 50;
    try {
      const stream = await server.open(ana.key);
      // Read once with the key just before: on SQLite the caller of a key is kept for the data it
      // was read from (db/sqlite-driver.ts, ReadMemo), and the CLI commits from another connection.
      expect((await api.get('/me', { key: ana.key })).status).toBe(200);
      const out = await cli('users', 'disable', '--user', 'Ana.Disabled@example.org');
      expect(out.code, out.stderr).toBe(0);
      expect(out.json.user).toMatchObject({ id: ana.user.id, disabled: true });

      expectError(await api.get('/me', { key: ana.key }), 401, 'account_disabled');
      expectError(await api.get(`/users/${ana.user.id}`, { key: ana.key }), 401, 'account_disabled');
      expectError(
        await api.post('/login', { body: { login: 'ana.disabled@example.org', password: ana.password } }),
        403,
        'account_disabled',
      );
      // A wrong password tells nothing of the account's state.
      expectError(
        await api.post('/login', { body: { login: 'ana.disabled@example.org', password: 'wrong password' } }),
        401,
        'invalid_credentials',
      );
      await stream.ended();
      const again = await server.refused(ana.key);
      expect(again.status).toBe(401);
      expect(JSON.parse(again.text)).toMatchObject({ code: 'account_disabled' });
      expect((await cli('stats')).json.disabledUsers).toBe(1);
    } finally {
      streams.options.pingIntervalMs = 25_000;
    }

    const enabled = await cli('users', 'enable', '--user', ana.user.id);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.json.user).toMatchObject({ id: ana.user.id, disabled: false });
    expect((await api.get('/me', { key: ana.key })).status).toBe(200);
    const login = await api.post('/login', { body: { login: 'ana.disabled@example.org', password: ana.password } });
    expect(login.status).toBe(200);
    expect(login.body.api_key).toBe(ana.key);

    for (const argv of [
      ['users', 'disable'],
      ['users', 'disable', '--user'],
      ['users', 'disable', '--user', 'nobody@example.org'],
      ['users', 'enable', '--user', 'not an address'],
      ['users', 'delete', '--user', '00000000-0000-4000-8000-000000000000'],
      ['users', 'disable', '--user', ana.user.id, '--force'],
    ]) {
      const out = await cli(...argv);
      expect(out.code, argv.join(' ')).toBe(1);
      expect(out.stdout).toBe('');
      expect(out.stderr.length).toBeGreaterThan(0);
    }
    expect((await api.get('/me', { key: ana.key })).status).toBe(200);
  });

  it('users delete deletes the account as the API does', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const shared = await buildGroup(t.ctx, { members: [ana, ben] });
    const alone = await buildGroup(t.ctx, { members: [ana] });
    const message = await post(ana, shared.id);

    const out = await cli('users', 'delete', '--user', ana.user.id);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json).toEqual({ deleted: { id: ana.user.id, login: ana.user.login } });
    expectError(await api.get('/me', { key: ana.key }), 401, 'invalid_api_key');
    // Their message stays, without an author; the group they were alone in starts its 30 days.
    const kept = await api.get(`/messages/${message}`, { key: ben.key });
    expect(kept.status).toBe(200);
    expect(kept.body.author).toBeNull();
    const emptied = await t.ctx.db.kysely
      .selectFrom('groups')
      .select('emptied_at')
      .where('id', '=', alone.id)
      .executeTakeFirstOrThrow();
    expect(emptied.emptied_at).not.toBeNull();
    // The CLI queued the mail at its own clock's time, ahead of the app's test clock.
    t.clock.set(Date.now() + 60_000);
    await t.mailer.waitFor((mail) => mail.kind === 'account_deleted' && mail.to === ana.user.login);
    expect((await cli('users', 'delete', '--user', ana.user.id)).code).toBe(1);
  });

  it('groups list pages with member counts, and groups delete removes a group and what it holds', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const doomed = await buildGroup(t.ctx, { members: [ana, ben] });
    const message = await post(ana, doomed.id);
    await post(ben, doomed.id, message);
    await api.put(`/users/${ben.user.id}`, { key: ben.key, body: { data: { default_group: doomed.id } } });

    const listed = await cli('groups', 'list', '--limit', '1000');
    expect(listed.code, listed.stderr).toBe(0);
    const entry = listed.json.groups.find((g: { id: string }) => g.id === doomed.id);
    expect(entry).toEqual({
      id: doomed.id,
      name: doomed.name,
      createdAt: expect.any(Number),
      lastActivityDate: expect.any(Number),
      members: 2,
      frontMessages: 1,
    });
    const firstPage = await cli('groups', 'list', '--limit', '1');
    expect(firstPage.json.groups).toHaveLength(1);
    expect(firstPage.json.next).toBe(firstPage.json.groups[0].id);

    const out = await cli('groups', 'delete', '--group', doomed.id);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json).toEqual({ deleted: { id: doomed.id, name: doomed.name, messages: 2, members: 2 } });
    expectError(await api.get(`/groups/${doomed.id}`, { key: ana.key }), 404, 'not_found');
    expectError(await api.get(`/messages/${message}`, { key: ana.key }), 404, 'not_found');
    const me = await api.get('/me', { key: ben.key });
    expect(me.body.groups.map((g: { id: string }) => g.id)).not.toContain(doomed.id);
    expect(me.body.data.default_group).not.toBe(doomed.id);
    expect(
      await t.ctx.db.kysely.selectFrom('messages').select('id').where('group_id', '=', doomed.id).execute(),
    ).toEqual([]);

    for (const argv of [
      ['groups', 'delete'],
      ['groups', 'delete', '--group', 'family'],
      ['groups', 'delete', '--group', doomed.id],
      ['groups', 'list', '--after', 'x'],
    ]) {
      const result = await cli(...argv);
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^kith groups: /);
    }
  });
});
