import { LIMITS } from '@kith/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, useTestApp, type TestApp } from '../../../test/harness.js';
import { serve, type EventReader, type Received } from '../../../test/sse.js';
import type { GroupRow } from '../../db/rows.js';

// Pinned messages (issue 20): any member pins or unpins a message of the group page with
// `PUT /api/messages/{id}` and `pinnedInGroup` (as Zusam 0.6.1); pinned messages come first on the
// group page and the feed, in pin order, at most LIMITS.pinsPerGroup per group.

type Json = ApiResponse['body'];
const SECOND = 1000;

describe('PUT /api/messages/{id} with pinnedInGroup (issue 20)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let olga: BuiltUser;

  const tick = () => h.t.clock.advance(10 * SECOND);
  const post = async (u: BuiltUser, group: GroupRow, text: string, parent?: string): Promise<Json> => {
    tick();
    const res = await h.api.post('/messages', { key: u.key, body: { group: group.id, parent, data: { text } } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const put = (u: BuiltUser | null, id: string, body: unknown) =>
    h.api.put(`/messages/${id}`, { ...(u === null ? {} : { key: u.key }), body });
  const pin = async (u: BuiltUser, id: string, pinned = true): Promise<Json> => {
    const res = await put(u, id, { pinnedInGroup: pinned });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const read = async (u: BuiltUser, id: string): Promise<Json> => {
    const res = await h.api.get(`/messages/${id}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const page = async (u: BuiltUser, group: GroupRow, n = 0) => {
    const res = await h.api.get(`/groups/${group.id}/page/${n}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: string[]; totalItems: number };
  };
  const feed = async (u: BuiltUser, group: GroupRow, query = '') => {
    const res = await h.api.get(`/groups/${group.id}/feed${query}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: Json[]; totalItems: number; nextCursor: string | null };
  };
  /** Every card of the feed, screen after screen of `limit`, following the cursor. */
  const wholeFeed = async (u: BuiltUser, group: GroupRow, limit: number): Promise<string[]> => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const screen = await feed(u, group, query);
      ids.push(...screen.messages.map((m: Json) => m.id as string));
      cursor = screen.nextCursor;
    } while (cursor !== null);
    return ids;
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    olga = await buildUser(h.t.ctx, { name: 'Olga' });
  });

  it('lets the author pin and unpin a post; the answer says so as Zusam 0.6.1 does (sortOrder only when pinned)', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'Summer plans');
    expect(message.pinnedInGroup).toBe(false);
    expect(message).not.toHaveProperty('sortOrder');
    expect(message.can.pin).toBe(true);

    const pinned = await pin(ana, message.id);
    expect(pinned).toMatchObject({ id: message.id, pinnedInGroup: true, sortOrder: 1 });
    // Everything else is as it was: pinning is no edit and moves nothing.
    expect({ ...pinned, pinnedInGroup: false, sortOrder: undefined }).toEqual({ ...message, sortOrder: undefined });
    expect(await read(ben, message.id)).toMatchObject({ pinnedInGroup: true, sortOrder: 1 });

    const unpinned = await pin(ana, message.id, false);
    expect(unpinned.pinnedInGroup).toBe(false);
    expect(unpinned).not.toHaveProperty('sortOrder');
    expect(await read(ben, message.id)).toEqual({ ...unpinned, can: { ...unpinned.can, edit: false, delete: false } });
  });

  it('lets any member pin and unpin another member’s post, and nothing more', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'By Ana');
    const seenByBen = await read(ben, message.id);
    expect(seenByBen.can).toEqual({ edit: false, delete: false, publish: false, pin: true });

    expect(await pin(ben, message.id)).toMatchObject({ pinnedInGroup: true, sortOrder: 1 });
    expect((await read(ana, message.id)).pinnedInGroup).toBe(true);
    expect((await pin(ben, message.id, false)).pinnedInGroup).toBe(false);

    // Any other change from a member who is not the author is refused as before, pin included.
    for (const body of [
      { pinnedInGroup: true, data: { text: 'Hijacked' } },
      { pinnedInGroup: true, files: [] },
      { pinnedInGroup: true, isInFront: true },
      { data: { text: 'Hijacked' } },
      {},
      // null means "not given" (§1.3): an empty edit, the author's only.
      { pinnedInGroup: null },
    ]) {
      expectError(await put(ben, message.id, body), 403, 'not_author');
    }
    const after = await read(ana, message.id);
    expect(after.pinnedInGroup).toBe(false);
    expect(after.data).toEqual({ text: 'By Ana' });
  });

  it('answers 404 to an outsider and 401 to a visitor, and changes nothing', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'Family only');
    expectError(await put(olga, message.id, { pinnedInGroup: true }), 404, 'not_found');
    expectError(await put(null, message.id, { pinnedInGroup: true }), 401, 'auth_required');
    expectError(await put(ben, '00000000-0000-4000-8000-000000000000', { pinnedInGroup: true }), 404, 'not_found');
    expect((await read(ana, message.id)).pinnedInGroup).toBe(false);
    expect((await page(ana, group)).messages).toEqual([message.id]);
  });

  it('refuses to pin a reply that is not on the group page (not_pinnable), but pins a published one', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const parent = await post(ana, group, 'Parent');
    const reply = await post(ben, group, 'A reply', parent.id);
    expect(reply.can.pin).toBe(false);
    expectError(await put(ana, reply.id, { pinnedInGroup: true }), 400, 'not_pinnable', 'pinnedInGroup');
    expectError(await put(ben, reply.id, { pinnedInGroup: true }), 400, 'not_pinnable', 'pinnedInGroup');
    expect((await read(ben, reply.id)).pinnedInGroup).toBe(false);
    // Unpinning what is not pinned changes nothing and is no error.
    expect((await pin(ana, reply.id, false)).pinnedInGroup).toBe(false);

    // Published by its author, the reply is on the group page and may be pinned.
    expect((await put(ben, reply.id, { isInFront: true })).status).toBe(200);
    expect(await pin(ana, reply.id)).toMatchObject({ pinnedInGroup: true, can: { pin: true } });
    expect((await page(ana, group)).messages).toEqual([reply.id, parent.id]);
    // Taken off the group page again by its author, it loses its pin with it.
    const off = await put(ben, reply.id, { isInFront: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ isInFront: false, pinnedInGroup: false });
    expect((await page(ana, group)).messages).toEqual([parent.id]);
  });

  it('a published, pinned reply that becomes a placeholder leaves the pins', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const parent = await post(ana, group, 'Parent');
    const reply = await post(ben, group, 'Soon a placeholder', parent.id);
    await post(ana, group, 'An answer that keeps it', reply.id);
    expect((await put(ben, reply.id, { isInFront: true })).status).toBe(200);
    await pin(ana, reply.id);
    expect((await h.api.delete(`/messages/${reply.id}`, { key: ben.key })).status).toBe(204);
    expect(await read(ana, reply.id)).toMatchObject({ isDeleted: true, pinnedInGroup: false, can: { pin: false } });
    expect((await page(ana, group)).messages).toEqual([parent.id]);
    // Its place is free again.
    const others = [];
    for (let i = 0; i < LIMITS.pinsPerGroup; i += 1) others.push(await post(ana, group, `Post ${i}`));
    for (const message of others) await pin(ana, message.id);
  });

  it('keeps at most LIMITS.pinsPerGroup pins per group: the next one is refused with too_many_pins', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const other = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const messages = [];
    for (let i = 0; i <= LIMITS.pinsPerGroup; i += 1) messages.push(await post(ana, group, `Post ${i}`));
    const extra = messages[LIMITS.pinsPerGroup];
    for (const [i, message] of messages.slice(0, LIMITS.pinsPerGroup).entries()) {
      expect((await pin(i % 2 === 0 ? ana : ben, message.id)).sortOrder).toBe(i + 1);
    }
    const refused = await put(ben, extra.id, { pinnedInGroup: true });
    expectError(refused, 409, 'too_many_pins', 'pinnedInGroup');
    expect(JSON.parse(refused.text).message).toContain(String(LIMITS.pinsPerGroup));
    expect((await read(ana, extra.id)).pinnedInGroup).toBe(false);
    // Another group has its own pins.
    expect((await pin(ana, (await post(ana, other, 'Elsewhere')).id)).sortOrder).toBe(1);
    // Pinning one already pinned is no new pin, even at the limit.
    expect((await pin(ben, messages[2].id)).sortOrder).toBe(3);

    // Unpinning one frees a place; the new pin goes last.
    await pin(ana, messages[1].id, false);
    expect((await pin(ben, extra.id)).sortOrder).toBe(LIMITS.pinsPerGroup + 1);
    expect((await page(ben, group)).messages.slice(0, LIMITS.pinsPerGroup)).toEqual([
      messages[0].id,
      messages[2].id,
      messages[3].id,
      messages[4].id,
      extra.id,
    ]);
  });

  it('gives the last place to one of several members pinning at once, each pin its own order', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const messages = [];
    for (let i = 0; i < LIMITS.pinsPerGroup + 2; i += 1) messages.push(await post(ana, group, `Race ${i}`));
    for (const message of messages.slice(0, LIMITS.pinsPerGroup - 1)) await pin(ana, message.id);
    const racing = messages.slice(LIMITS.pinsPerGroup - 1);
    const answers = await Promise.all(
      racing.map((m, i) => put(i % 2 === 0 ? ana : ben, m.id, { pinnedInGroup: true })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectError(refused, 409, 'too_many_pins');
    const pinned = (await page(ana, group)).messages.slice(0, LIMITS.pinsPerGroup);
    const orders = await Promise.all(pinned.map(async (id) => (await read(ben, id)).sortOrder as number));
    expect(orders).toEqual([1, 2, 3, 4, 5]);
    const cards = await feed(ben, group);
    expect(cards.messages.filter((m: Json) => m.pinnedInGroup)).toHaveLength(LIMITS.pinsPerGroup);
  });

  it('is idempotent: pinning a pinned message keeps its place, unpinning an unpinned one changes nothing', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const first = await post(ana, group, 'First');
    const second = await post(ana, group, 'Second');
    await pin(ana, first.id);
    await pin(ana, second.id);
    expect((await pin(ben, first.id)).sortOrder).toBe(1);
    expect((await pin(ana, first.id)).sortOrder).toBe(1);
    expect((await page(ana, group)).messages).toEqual([first.id, second.id]);
    const third = await post(ana, group, 'Third');
    expect(await pin(ben, third.id, false)).toEqual(await read(ben, third.id));
  });

  it('refuses values that are not true or false with invalid_field, and changes nothing', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'Values');
    for (const value of ['yes', 'true', 1, 0, [], {}]) {
      for (const u of [ana, ben]) {
        expectError(await put(u, message.id, { pinnedInGroup: value }), 400, 'invalid_field', 'pinnedInGroup');
      }
    }
    expect((await read(ana, message.id)).pinnedInGroup).toBe(false);
    // null means "not given" (§1.3): for the author an edit that changes nothing.
    const same = await put(ana, message.id, { pinnedInGroup: null });
    expect(same.status, same.text).toBe(200);
    expect(same.body.pinnedInGroup).toBe(false);
  });

  it('the 0.5.6 client’s PUT (without pinnedInGroup) edits and publishes as before, and keeps the pin', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'Before');
    await pin(ben, message.id);
    const edited = await put(ana, message.id, { data: { title: 'Title', text: 'After' }, files: [] });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ data: { title: 'Title', text: 'After' }, pinnedInGroup: true, sortOrder: 1 });
    // The author may edit and pin in one request.
    const both = await put(ana, message.id, { data: { text: 'Again' }, pinnedInGroup: false });
    expect(both.status, both.text).toBe(200);
    expect(both.body).toMatchObject({ data: { text: 'Again' }, pinnedInGroup: false });
    // Publishing a reply, as the 0.5.6 client sends it.
    const reply = await post(ben, group, 'Reply', message.id);
    const published = await put(ben, reply.id, { isInFront: true, lastActivityDate: 1 });
    expect(published.status, published.text).toBe(200);
    expect(published.body).toMatchObject({ isInFront: true, pinnedInGroup: false });
  });

  it('lists pinned messages first on the group page, in pin order, then the others by activity', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const posts = [];
    // 33 posts: the last page holds the 3 oldest.
    for (let i = 0; i < 33; i += 1) posts.push(await post(i % 2 === 0 ? ana : ben, group, `Post ${i}`));
    const byActivity = posts.map((p) => p.id as string).reverse();
    expect([...(await page(ana, group, 0)).messages, ...(await page(ana, group, 1)).messages]).toEqual(byActivity);

    // Pinned: an old one, then a recent one, then one from the second page.
    const pinned = [posts[5].id as string, posts[30].id as string, posts[0].id as string];
    for (const id of pinned) await pin(ben, id);
    const first = await page(ana, group, 0);
    const second = await page(ana, group, 1);
    expect(first.totalItems).toBe(33);
    expect(second.totalItems).toBe(33);
    expect(first.messages).toHaveLength(LIMITS.groupPageSize);
    expect(first.messages.slice(0, 3)).toEqual(pinned);
    const expected = [...pinned, ...byActivity.filter((id) => !pinned.includes(id))];
    expect([...first.messages, ...second.messages]).toEqual(expected);
    expect((await page(ana, group, 2)).messages).toEqual([]);

    // A reply moves its thread up among the others; the pinned stay on top in their order.
    await post(ben, group, 'A reply', posts[10].id);
    expect((await page(ana, group, 0)).messages.slice(0, 4)).toEqual([...pinned, posts[10].id]);
    // A new post goes right after the pinned ones.
    const fresh = await post(ana, group, 'Fresh');
    expect((await page(ben, group, 0)).messages.slice(0, 5)).toEqual([...pinned, fresh.id, posts[10].id]);
    expect((await page(ben, group, 0)).totalItems).toBe(34);
  });

  it('starts the feed with the pinned cards, marked, and pages by cursor without repeats or gaps', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const posts = [];
    for (let i = 0; i < 12; i += 1) posts.push(await post(ana, group, `Card ${i}`));
    const byActivity = posts.map((p) => p.id as string).reverse();
    const pinned = [posts[3].id as string, posts[11].id as string, posts[7].id as string];
    for (const id of pinned) await pin(ben, id);
    const others = byActivity.filter((id) => !pinned.includes(id));

    const first = await feed(ana, group, '?limit=4');
    expect(first.totalItems).toBe(12);
    // Every pinned card, then `limit` others.
    expect(first.messages.map((m: Json) => m.id)).toEqual([...pinned, ...others.slice(0, 4)]);
    expect(first.messages.map((m: Json) => m.pinnedInGroup)).toEqual([true, true, true, false, false, false, false]);
    expect(first.messages.slice(0, 3).map((m: Json) => m.sortOrder)).toEqual([1, 2, 3]);
    expect(first.messages[3]).not.toHaveProperty('sortOrder');

    for (const limit of [1, 2, 3, 5, 30]) {
      const ids = await wholeFeed(ana, group, limit);
      expect(ids).toEqual([...pinned, ...others]);
    }

    // A card of a later screen that gets pinned meanwhile is neither repeated nor lost for good:
    // the screens after the cursor leave it out, and the first screen has it on top.
    const screen1 = await feed(ben, group, '?limit=3');
    await pin(ana, others[5]!);
    const rest = [];
    let cursor = screen1.nextCursor;
    while (cursor !== null) {
      const next = await feed(ben, group, `?limit=3&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...next.messages.map((m: Json) => m.id as string));
      cursor = next.nextCursor;
    }
    const seen = [...screen1.messages.map((m: Json) => m.id as string), ...rest];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id !== others[5])).toEqual([...pinned, ...others.filter((id) => id !== others[5])]);
    expect((await feed(ben, group, '?limit=3')).messages[3].id).toBe(others[5]);
  });

  it('shows the pin on the card of GET /api/messages/{id}/preview and of bookmarks', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'Bookmarked');
    await pin(ana, message.id);
    const preview = await h.api.get(`/messages/${message.id}/preview`, { key: ben.key });
    expect(preview.body).toMatchObject({ pinnedInGroup: true, sortOrder: 1 });
    expect((await h.api.post('/bookmarks', { key: ben.key, body: { message_id: message.id } })).status).toBe(201);
    const bookmarks = await h.api.get('/me/bookmarks/1001?expand=message', { key: ben.key });
    expect(bookmarks.body[0].message).toMatchObject({ id: message.id, pinnedInGroup: true, sortOrder: 1 });
  });

  it('the public view says nothing of the pin', async () => {
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group, 'Public');
    await pin(ana, message.id);
    const link = await h.api.get(`/messages/${message.id}/get-public-link`, { key: ana.key });
    const view = await h.api.get(`/public/${link.body.token}`);
    expect(view.status, view.text).toBe(200);
    expect(view.body.pinnedInGroup).toBe(false);
    expect(view.body).not.toHaveProperty('sortOrder');
  });
});

describe('the pin live event (issue 20)', () => {
  let t: TestApp;
  let api: ApiClient;
  const server = serve(() => t);

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    await server.listen();
  });
  afterAll(() => t.close());

  /** Reads events until one matches. */
  async function until(reader: EventReader, predicate: (e: Received) => boolean): Promise<Received> {
    for (;;) {
      const event = await reader.nextEvent();
      if (predicate(event)) return event;
    }
  }

  it('tells the group’s members, the pinning one’s other tabs included, and no one else', async () => {
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const ben = await buildUser(t.ctx, { name: 'Ben' });
    const olga = await buildUser(t.ctx, { name: 'Olga' });
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    const olgaGroup = await buildGroup(t.ctx, { members: [olga] });
    const message = await api.post('/messages', { key: ana.key, body: { group: group.id, data: { text: 'Pin me' } } });
    const anaStream = await server.open(ana.key);
    const benStream = await server.open(ben.key);
    const olgaStream = await server.open(olga.key);
    const setPin = (u: BuiltUser, pinnedInGroup: boolean) =>
      api.put(`/messages/${message.body.id}`, { key: u.key, body: { pinnedInGroup } });

    expect((await setPin(ben, true)).status).toBe(200);
    for (const stream of [anaStream, benStream]) {
      const event = await until(stream, (e) => e.event === 'pin');
      expect(event.data).toMatchObject({ id: message.body.id, pinnedInGroup: true, sortOrder: 1 });
    }
    expect((await setPin(ana, false)).status).toBe(200);
    const unpinned = await until(benStream, (e) => e.event === 'pin');
    expect(unpinned.data).toMatchObject({ id: message.body.id, pinnedInGroup: false });
    expect(unpinned.data).not.toHaveProperty('sortOrder');

    // Olga hears nothing of it: a post in her own group is the next thing she hears.
    const own = await api.post('/messages', { key: olga.key, body: { group: olgaGroup.id, data: { text: 'Mine' } } });
    const next = await olgaStream.nextEvent();
    expect(next.event).toBe('message');
    expect(next.data.id).toBe(own.body.id);
  });
});
