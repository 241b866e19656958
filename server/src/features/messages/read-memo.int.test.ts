import { describe, expect, it } from 'vitest';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';

// The caller of a key, the group page, a message's answer, the public message and the bookmarks
// are kept until something changes (db/prepared.ts `memo`: SQLite's data version, PostgreSQL's
// commits and notices; issue 23). Each step here reads first, so that what it reads next would
// come from the memo if a write left it standing.
describe('reads kept between writes (issue 23)', () => {
  const h = useTestApp();

  const page = async (key: string, groupId: string) => {
    const res = await h.api.get(`/groups/${groupId}/page/0`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: string[]; totalItems: number };
  };
  const post = async (key: string, groupId: string, text: string): Promise<string> => {
    h.t.clock.advance(10_000);
    const res = await h.api.post('/messages', { key, body: { group: groupId, data: { text } } });
    expect(res.status, res.text).toBe(201);
    return (res.body as { id: string }).id;
  };

  it('shows each post, pin and deletion on the next page read', async () => {
    const ana = await buildUser(h.t.ctx);
    const ben = await buildUser(h.t.ctx);
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const first = await post(ana.key, group.id, 'first');
    expect(await page(ben.key, group.id)).toEqual({ messages: [first], totalItems: 1 });
    const second = await post(ana.key, group.id, 'second');
    expect(await page(ben.key, group.id)).toEqual({ messages: [second, first], totalItems: 2 });
    const pinned = await h.api.put(`/messages/${first}`, { key: ana.key, body: { pinnedInGroup: true } });
    expect(pinned.status, pinned.text).toBe(200);
    expect(await page(ben.key, group.id)).toEqual({ messages: [first, second], totalItems: 2 });
    expect((await h.api.delete(`/messages/${second}`, { key: ana.key })).status).toBe(204);
    expect(await page(ben.key, group.id)).toEqual({ messages: [first], totalItems: 1 });
  });

  it('refuses the page and the message to a member who left, and the key once it is reset', async () => {
    const ana = await buildUser(h.t.ctx);
    const ben = await buildUser(h.t.ctx);
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const hello = await post(ana.key, group.id, 'hello');
    expect((await page(ben.key, group.id)).totalItems).toBe(1);
    // The message answer checks the membership with a read of its own on SQLite, kept as well.
    expect((await h.api.get(`/messages/${hello}`, { key: ben.key })).status).toBe(200);
    expect((await h.api.post(`/groups/${group.id}/leave`, { key: ben.key })).status).toBeLessThan(300);
    expectError(await h.api.get(`/groups/${group.id}/page/0`, { key: ben.key }), 404, 'not_found');
    expectError(await h.api.get(`/messages/${hello}`, { key: ben.key }), 404, 'not_found');

    expect((await page(ana.key, group.id)).totalItems).toBe(1);
    const reset = await h.api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key });
    expect(reset.status, reset.text).toBe(200);
    expectError(await h.api.get(`/groups/${group.id}/page/0`, { key: ana.key }), 401, 'invalid_api_key');
    const newKey = (reset.body as { apiKey?: string; api_key?: string }).apiKey ?? '';
    expect((await page(newKey, group.id)).totalItems).toBe(1);
  });

  it('shows each comment, edit, reaction and bookmark on the next message, public and bookmarks read', async () => {
    const ana = await buildUser(h.t.ctx);
    const ben = await buildUser(h.t.ctx);
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const id = await post(ana.key, group.id, 'before');
    type Answer = { data: { text: string }; children: { id: string }[]; reactions: unknown[] };
    const message = async (): Promise<Answer> => {
      const res = await h.api.get(`/messages/${id}`, { key: ben.key });
      expect(res.status, res.text).toBe(200);
      return res.body as Answer;
    };
    expect((await message()).children).toEqual([]);
    const comment = await h.api.post('/messages', {
      key: ben.key,
      body: { group: group.id, parent: id, data: { text: 'a reply' } },
    });
    expect(comment.status, comment.text).toBe(201);
    expect((await message()).children.map((c) => c.id)).toEqual([(comment.body as { id: string }).id]);
    expect((await message()).reactions).toEqual([]);
    const reacted = await h.api.post(`/messages/${id}/reactions`, { key: ben.key, body: { reaction: '👍' } });
    expect(reacted.status, reacted.text).toBeLessThan(300);
    expect((await message()).reactions).toHaveLength(1);

    const link = await h.api.get(`/messages/${id}/get-public-link`, { key: ana.key });
    const token = (link.body as { token: string }).token;
    const shown = async () => {
      const res = await h.api.get(`/public/${token}`);
      return res.status === 200 ? (res.body as Answer).data.text : res.status;
    };
    expect(await shown()).toBe('before');
    const bookmarks = async () => {
      const res = await h.api.get('/me/bookmarks/1001?expand=message', { key: ben.key });
      expect(res.status, res.text).toBe(200);
      return (res.body as { message: { id: string; data?: { text: string } } }[]).map((b) => b.message.data?.text);
    };
    expect(await bookmarks()).toEqual([]);
    expect((await h.api.post('/bookmarks', { key: ben.key, body: { message_id: id } })).status).toBe(201);
    expect(await bookmarks()).toEqual(['before']);

    const edited = await h.api.put(`/messages/${id}`, { key: ana.key, body: { data: { text: 'after' } } });
    expect(edited.status, edited.text).toBe(200);
    expect((await message()).data.text).toBe('after');
    expect(await shown()).toBe('after');
    expect(await bookmarks()).toEqual(['after']);
    expect((await h.api.delete(`/messages/${id}/public-link`, { key: ana.key })).status).toBeLessThan(300);
    expect(await shown()).toBe(404);
  });
});
