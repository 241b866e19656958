import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { buildUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { runCliCaptured } from '../../test/cli.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');

describe('admin CLI', () => {
  let t: TestApp;
  let api: ApiClient;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    // The CLI works on the same database as the running app.
    env = {
      DATA_DIR: t.config.dataDir,
      SECRET_KEY: t.config.secretKey,
      PUBLIC_URL: t.config.publicUrl,
      ...(t.config.database.kind === 'postgres' ? { DATABASE_URL: t.config.database.url } : {}),
    };
  });
  afterAll(() => t.close());

  const cli = (...argv: string[]) => runCliCaptured(argv, env);

  it('create-user makes an account whose key reads /api/me', async () => {
    const out = await cli('create-user', '--email', ' Zoe@Example.org ', '--password', 'password123', '--name', 'Zoé');
    expect(out.code).toBe(0);
    expect(out.stderr).toBe('');
    expect(out.json.user).toEqual({ id: expect.any(String), login: 'zoe@example.org', name: 'Zoé' });
    expect(out.json.group).toBeUndefined();
    expect(out.json.apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await api.get('/me', { key: out.json.apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: out.json.user.id, login: 'zoe@example.org', name: 'Zoé', groups: [] });
    const login = await api.post('/login', { body: { login: 'zoe@example.org', password: 'password123' } });
    expect(login.body.api_key).toBe(out.json.apiKey);
  });

  it('create-user --group creates the group once, then joins it by name', async () => {
    const first = await cli(
      'create-user',
      '--email',
      'g1@example.org',
      '--password',
      'password123',
      '--group',
      'Cousins',
    );
    expect(first.code).toBe(0);
    expect(first.json.group).toEqual({ id: expect.any(String), name: 'Cousins', inviteKey: expect.any(String) });
    const second = await cli(
      'create-user',
      '--email',
      'g2@example.org',
      '--password',
      'password123',
      '--group',
      'Cousins',
    );
    expect(second.json.group.id).toBe(first.json.group.id);

    const group = await api.get(`/groups/${first.json.group.id}`, { key: second.json.apiKey });
    expect(group.status).toBe(200);
    expect(group.body.users.map((u: { id: string }) => u.id)).toEqual([first.json.user.id, second.json.user.id]);
    // The group is the new user's landing place (docs/api §14.1).
    const me = await api.get('/me', { key: second.json.apiKey });
    expect(me.body.data.default_group).toBe(first.json.group.id);
    expect(me.body.groups).toEqual([{ id: first.json.group.id, entityType: 'group', name: 'Cousins' }]);
    // The earlier member hears of the join.
    const notifications = await api.get('/me/notifications/21', { key: first.json.apiKey });
    expect(notifications.body.map((n: { type: string }) => n.type)).toEqual(['user_joined_group']);
  });

  it('create-group makes a group owned by an existing account', async () => {
    const owner = await buildUser(t.ctx, { login: 'owner@example.org' });
    const out = await cli('create-group', '--name', 'Book club', '--owner', 'OWNER@example.org');
    expect(out.code).toBe(0);
    expect(out.json.group.name).toBe('Book club');
    const group = await api.get(`/groups/${out.json.group.id}`, { key: owner.key });
    expect(group.body.users.map((u: { id: string }) => u.id)).toEqual([owner.user.id]);
    expect(group.body.secretKey).toBe(out.json.group.inviteKey);
  });

  it('invite-link prints the link, and --reset replaces the key', async () => {
    const owner = await buildUser(t.ctx, { login: 'links@example.org' });
    const created = await cli('create-group', '--name', 'Neighbours', '--owner', 'links@example.org');
    const plain = await cli('invite-link', '--group', created.json.group.id);
    expect(plain.json.url).toBe(`http://kith.test/invitation/${created.json.group.inviteKey}`);
    const reset = await cli('invite-link', '--group', created.json.group.id, '--reset');
    expect(reset.json.group.inviteKey).not.toBe(created.json.group.inviteKey);
    expect(reset.json.url).toBe(`http://kith.test/invitation/${reset.json.group.inviteKey}`);
    const other = await buildUser(t.ctx);
    const old = await api.post(`/groups/invitation/${created.json.group.inviteKey}`, { key: other.key });
    expect(old.body.code).toBe('invalid_invite_key');
    const fresh = await api.post(`/groups/invitation/${reset.json.group.inviteKey}`, { key: other.key });
    expect(fresh.status).toBe(200);
    expect(owner.user.id).toBeTruthy();
  });

  it('notify sends an announcement to every account', async () => {
    const someone = await buildUser(t.ctx);
    const out = await cli('notify', '--text', ' Server maintenance on Sunday ', '--target', '/groups');
    expect(out.code).toBe(0);
    const count = await t.ctx.db.kysely.selectFrom('users').select('id').execute();
    expect(out.json).toEqual({ notified: count.length });
    const list = await api.get('/me/notifications/5', { key: someone.key });
    expect(list.body[0]).toMatchObject({
      type: 'global_notification',
      target: '/groups',
      data: { text: 'Server maintenance on Sunday' },
      fromUser: null,
      fromGroup: null,
      fromMessage: null,
      title: '',
    });
    const plain = await cli('notify', '--text', 'Hello');
    expect(plain.code).toBe(0);
    expect((await api.get('/me/notifications/1', { key: someone.key })).body[0].target).toBe('/');
  });

  it('refuses bad input on stderr with a non-zero exit and changes nothing', async () => {
    const cases: string[][] = [
      ['create-user', '--email', 'not-an-email', '--password', 'password123'],
      ['create-user', '--email', 'short@example.org', '--password', 'short'],
      ['create-user', '--password', 'password123'],
      ['create-user', '--email', 'zoe@example.org', '--password', 'password123'],
      ['create-user', '--email', 'named@example.org', '--password', 'password123', '--name', '<b>'],
      ['create-group', '--name', 'X', '--owner', 'nobody@example.org'],
      ['create-group', '--owner', 'zoe@example.org'],
      ['invite-link', '--group', 'not-an-id'],
      ['invite-link', '--group', '00000000-0000-4000-8000-000000000000'],
      ['no-such-command'],
      ['notify'],
      ['notify', '--text', 'x'.repeat(1001)],
      ['notify', '--text', 'Hi', '--target', 'javascript:alert(1)'],
    ];
    for (const argv of cases) {
      const out = await cli(...argv);
      expect(out.code, argv.join(' ')).not.toBe(0);
      expect(out.stdout, argv.join(' ')).toBe('');
      expect(out.stderr.length, argv.join(' ')).toBeGreaterThan(0);
    }
    const short = await api.post('/login', { body: { login: 'short@example.org', password: 'short' } });
    expect(short.status).toBe(401);
  });

  // npm starts a second Node that loads the CLI: seconds on a busy machine.
  it('npm run kith prints JSON only on stdout', { timeout: 90_000 }, () => {
    const result = spawnSync(
      'npm',
      ['run', 'kith', '--', 'create-user', '--email', 'spawned@example.org', '--password', 'password123'],
      {
        cwd: repoRoot,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout);
    expect(parsed.user.login).toBe('spawned@example.org');
  });
});
