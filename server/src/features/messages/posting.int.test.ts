import { describe, expect, it } from 'vitest';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { TEST_DIALECT, useTestApp } from '../../../test/harness.js';
import { loadPg } from '../../db/database.js';

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
      // The membership with the author's name, then every write with the read of the recipients.
      expect(sent.slice(sent.indexOf('begin') + 1, sent.indexOf('commit'))).toHaveLength(2);
      // Nothing is read again for the answer; the activity is one statement, without begin and commit.
      const after = sent.slice(sent.indexOf('commit') + 1);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatch(/^update "users" set "last_activity_date"/);
    },
  );
});
