import { describe, expect, it } from 'vitest';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';

// On SQLite the caller of a key and the group page's reads are kept for the data they were read
// from (db/sqlite-driver.ts, ReadMemo; issue 23). Each step here reads first, so that what it reads
// next would come from the memo if a write left it standing.
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

  it('refuses the page to a member who left, and the key once it is reset', async () => {
    const ana = await buildUser(h.t.ctx);
    const ben = await buildUser(h.t.ctx);
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    await post(ana.key, group.id, 'hello');
    expect((await page(ben.key, group.id)).totalItems).toBe(1);
    expect((await h.api.post(`/groups/${group.id}/leave`, { key: ben.key })).status).toBeLessThan(300);
    expectError(await h.api.get(`/groups/${group.id}/page/0`, { key: ben.key }), 404, 'not_found');

    expect((await page(ana.key, group.id)).totalItems).toBe(1);
    const reset = await h.api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key });
    expect(reset.status, reset.text).toBe(200);
    expectError(await h.api.get(`/groups/${group.id}/page/0`, { key: ana.key }), 401, 'invalid_api_key');
    const newKey = (reset.body as { apiKey?: string; api_key?: string }).apiKey ?? '';
    expect((await page(newKey, group.id)).totalItems).toBe(1);
  });
});
