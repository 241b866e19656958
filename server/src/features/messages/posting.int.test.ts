import { describe, expect, it } from 'vitest';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { TEST_DIALECT, useTestApp } from '../../../test/harness.js';
import { expectError } from '../../../test/expect.js';
import { loadPg } from '../../db/database.js';
import { apiKeyHash } from '../auth/api-keys.js';
import { findUserByApiKeyHash } from '../users/queries.js';
import { findCallerAndPoster } from './queries.js';

// What a post writes and answers, whichever way its statements travel: on PostgreSQL its writes go
// with the next statement (db/postgres-chain.ts) and its answer is built from what it wrote.
describe('posting', () => {
  const h = useTestApp();

  it('answers a post, a reply and a post with a mention as GET answers them', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const ben = await buildUser(h.t.ctx, { name: 'Ben' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    const send = async (body: object) => {
      const res = await h.api.post('/messages', { key: ana.key, body: { group: group.id, ...body } });
      expect(res.status, res.text).toBe(201);
      const got = await h.api.get(`/messages/${res.body.id}`, { key: ana.key });
      expect(res.body).toEqual(got.body);
      return res.body as { id: string };
    };
    const post = await send({ data: { title: 'Sunday', text: 'Lunch at noon #family' } });
    await send({ data: { text: 'Yes!' }, parent: post.id });
    await send({ data: { text: 'With @Ben' }, mentions: [ben.user.id] });
    const page = await h.api.get(`/groups/${group.id}/page/0`, { key: ben.key });
    expect(page.body.totalItems).toBe(2);
    const notifications = await h.api.get('/me/notifications', { key: ben.key });
    // One each: the mention instead of the new message, never both.
    expect((notifications.body as { target: string }[]).length).toBe(3);
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'a post sends two statements between its transaction’s begin and commit on PostgreSQL, then its author’s activity alone',
    async () => {
      const ana = await buildUser(h.t.ctx);
      const members = [ana, await buildUser(h.t.ctx), await buildUser(h.t.ctx)];
      const group = await buildGroup(h.t.ctx, { members });
      // Ana was last active an hour ago: the post records her activity (docs/api §1.11).
      h.t.clock.advance(3_600_000);
      const client = loadPg().Client.prototype;
      // The driver's own method, put back afterwards; it is called with its client as `this`.
      const query = Reflect.get(client, 'query') as (...args: unknown[]) => unknown;
      const sent: string[] = [];
      client.query = function (this: unknown, ...args: unknown[]) {
        const first = args[0] as string | { text?: string };
        const text = typeof first === 'string' ? first : (first.text ?? '');
        // The notice that tells other processes of the commit goes on a connection of its own, and
        // the post does not wait for it (db/postgres-memo.ts).
        if (!text.includes('pg_notify')) sent.push(text);
        return query.apply(this, args);
      } as typeof client.query;
      try {
        const res = await h.api.post('/messages', {
          key: ana.key,
          body: { group: group.id, data: { title: 'Counted', text: 'Two statements' } },
        });
        expect(res.status).toBe(201);
      } finally {
        client.query = query as typeof client.query;
      }
      // The caller is not read on its own (issue 23): begin comes first, then the caller with the
      // membership and the author's name, then every write with the read of the recipients.
      expect(sent.slice(0, sent.indexOf('begin')).filter((text) => text.includes('api_key_hash'))).toEqual([]);
      const inside = sent.slice(sent.indexOf('begin') + 1, sent.indexOf('commit'));
      expect(inside).toHaveLength(2);
      expect(inside[0]).toContain('api_key_hash');
      // Nothing is read again for the answer; the activity is one statement, without begin and commit.
      const after = sent.slice(sent.indexOf('commit') + 1);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatch(/^update "users" set "last_activity_date"/);
    },
  );

  it('answers 401 for a key that is not live or of a disabled account before any check of the body, and writes nothing', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const dee = await buildUser(h.t.ctx, { name: 'Dee' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, dee] });
    const other = await buildGroup(h.t.ctx, { name: 'Club', members: [dee] });
    const bodies = [
      { group: group.id, data: { text: 'Hello' } },
      { data: { text: 'No group' } },
      { group: 42, data: { text: 'Not an id' } },
      { group: group.id, data: { text: '' } },
      { group: group.id, data: { text: 'Unknown parent' }, parent: 'nope' },
      { group: other.id, data: { text: 'Not her group' } },
    ];
    const count = async () =>
      Number(
        (
          await h.t.ctx.db.kysely
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (const body of bodies) {
      expectError(await h.api.post('/messages', { key: 'x'.repeat(43), body }), 401, 'invalid_api_key');
      expectError(await h.api.post('/messages', { body }), 401, 'auth_required');
    }
    await h.t.ctx.db.kysely
      .updateTable('users')
      .set({ disabled_at: h.t.clock.now() })
      .where('id', '=', dee.user.id)
      .execute();
    for (const body of [...bodies, { group: other.id, data: { text: 'Her group' } }]) {
      expectError(await h.api.post('/messages', { key: dee.key, body }), 401, 'account_disabled');
    }
    expect(await count()).toBe(before);
    // A live key: what the body and the group are worth, in the same order as before.
    expectError(await h.api.post('/messages', { key: ana.key, body: bodies[1] }), 400, 'missing_field');
    expectError(await h.api.post('/messages', { key: ana.key, body: bodies[3] }), 400, 'empty_message');
    expectError(await h.api.post('/messages', { key: ana.key, body: bodies[4] }), 400, 'invalid_parent');
    expectError(await h.api.post('/messages', { key: ana.key, body: bodies[5] }), 404, 'not_found');
    expect(await count()).toBe(before);
    const res = await h.api.post('/messages', { key: ana.key, body: bodies[0] });
    expect(res.status, res.text).toBe(201);
    expect(res.body.author).toMatchObject({ id: ana.user.id, name: 'Ana' });
    expect(await count()).toBe(before + 1);
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'reads the poster with the key as the key lookup and the membership read do (PostgreSQL, one statement)',
    async () => {
      const ana = await buildUser(h.t.ctx, { name: 'Ana' });
      const ben = await buildUser(h.t.ctx, { name: 'Ben' });
      const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana] });
      await h.t.ctx.db.kysely
        .updateTable('users')
        .set({ lang: 'fr', quiet_hours: '22:00-07:00', push_cursor: 1_700_000_000_123 })
        .where('id', '=', ana.user.id)
        .execute();
      const db = h.t.ctx.db.kysely;
      const read = (key: string, groupId: string) =>
        db.transaction().execute((tx) => findCallerAndPoster(tx, apiKeyHash(key), groupId));
      const hers = await read(ana.key, group.id);
      expect(hers.caller).toEqual(await findUserByApiKeyHash(db, apiKeyHash(ana.key)));
      expect(hers.poster).toEqual({
        membership: { group_id: group.id, user_id: ana.user.id },
        groupName: 'Family',
        authorName: 'Ana',
      });
      const his = await read(ben.key, group.id);
      expect(his.caller?.id).toBe(ben.user.id);
      expect(his.poster).toEqual({ membership: undefined, groupName: 'Family', authorName: 'Ben' });
      expect((await read(ana.key, ben.user.id)).poster).toEqual({
        membership: undefined,
        groupName: null,
        authorName: 'Ana',
      });
      expect(await read('x'.repeat(43), group.id)).toEqual({
        caller: undefined,
        poster: { membership: undefined, groupName: null, authorName: null },
      });
    },
  );
});
