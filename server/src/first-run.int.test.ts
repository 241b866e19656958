import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../test/client.js';
import { createTestApp, type TestApp } from '../test/harness.js';
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
