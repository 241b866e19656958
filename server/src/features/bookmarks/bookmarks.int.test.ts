import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { expectError, UUID_V4, PREVIEW_KEYS, keysOf } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import type { GroupRow } from '../../db/rows.js';

/** Parsed JSON of an answer (the client types it loosely on purpose). */
type Json = ApiResponse['body'];

const SECOND = 1000;
const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The keys of the Bookmark object (§2.8), exactly. */
const BOOKMARK_KEYS = ['createdAt', 'entityType', 'id', 'message', 'user'];

describe('bookmarks (§9, §2.8)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;
  let elsewhere: GroupRow;

  const tick = (ms = 10 * SECOND): number => {
    h.t.clock.advance(ms);
    return h.t.clock.now();
  };
  const post = async (
    u: BuiltUser,
    g: GroupRow,
    data: Record<string, unknown> = { text: 'Hello' },
    parent?: string,
  ) => {
    const res = await h.api.post('/messages', { key: u.key, body: { group: g.id, data, parent } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const bookmark = (u: BuiltUser, messageId: unknown) =>
    h.api.post('/bookmarks', { key: u.key, body: { message_id: messageId } });
  const created = async (u: BuiltUser, messageId: string): Promise<Json> => {
    const res = await bookmark(u, messageId);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const list = async (u: BuiltUser, path = '/me/bookmarks'): Promise<Json[]> => {
    const res = await h.api.get(path, { key: u.key });
    expect(res.status, res.text).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    return res.body as Json[];
  };
  const rowCount = async (userId: string, messageId?: string): Promise<number> => {
    let query = h.t.ctx.db.kysely
      .selectFrom('bookmarks')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('user_id', '=', userId);
    if (messageId !== undefined) query = query.where('message_id', '=', messageId);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    elsewhere = await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  describe('POST /api/bookmarks', () => {
    it('answers 201 with the new bookmark, then 200 with the same bookmark: one per user and message', async () => {
      const message = await post(ben, group);
      const now = tick();
      const first = await bookmark(ana, message.id);
      expect(first.status, first.text).toBe(201);
      expect(String(first.headers['content-type'])).toMatch(/^application\/json/);
      expect(keysOf(first.body)).toEqual(BOOKMARK_KEYS);
      expect(first.body).toEqual({
        id: expect.stringMatching(UUID_V4),
        entityType: 'bookmark',
        createdAt: seconds(now),
        user: { id: ana.user.id, entityType: 'user' },
        message: { id: message.id, entityType: 'message' },
      });
      tick();
      const again = await bookmark(ana, message.id);
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await rowCount(ana.user.id, message.id)).toBe(1);
      expect((await list(ana)).filter((b: Json) => b.message.id === message.id)).toEqual([first.body]);
    });

    it('takes message_id as a string or as {id}', async () => {
      const message = await post(ben, group);
      const byObject = await bookmark(ana, { id: message.id, entityType: 'message' });
      expect(byObject.status, byObject.text).toBe(201);
      expect(byObject.body.message).toEqual({ id: message.id, entityType: 'message' });
      const byString = await bookmark(ana, message.id);
      expect(byString.status).toBe(200);
      expect(byString.body.id).toBe(byObject.body.id);
    });

    it('lets another member bookmark the same message with a bookmark of their own', async () => {
      const message = await post(ana, group);
      const mine = await created(ana, message.id);
      const his = await created(ben, message.id);
      expect(his.id).not.toBe(mine.id);
      expect(his.user).toEqual({ id: ben.user.id, entityType: 'user' });
    });

    it('answers 400 missing_field (message_id) without a message', async () => {
      for (const body of [{}, { message_id: null }, { message_id: '' }, { messageId: randomUUID() }]) {
        expectError(await h.api.post('/bookmarks', { key: ana.key, body }), 400, 'missing_field', 'message_id');
      }
      expectError(await h.api.post('/bookmarks', { key: ana.key }), 400, 'missing_field', 'message_id');
    });

    it('answers 404 for an unknown message and for a message of a group the caller is not in', async () => {
      const before = await rowCount(ana.user.id);
      const foreign = await post(zed, elsewhere);
      for (const id of [randomUUID(), foreign.id, { id: foreign.id }]) {
        expectError(await bookmark(ana, id), 404, 'not_found');
      }
      expect(await rowCount(ana.user.id)).toBe(before);
    });

    it('answers 401 without a key', async () => {
      const message = await post(ana, group);
      expectError(await h.api.post('/bookmarks', { body: { message_id: message.id } }), 401, 'auth_required');
      expectError(
        await h.api.post('/bookmarks', { key: 'stale', body: { message_id: message.id } }),
        401,
        'invalid_api_key',
      );
    });
  });

  describe('GET /api/me/bookmarks/{limit}', () => {
    let lia: BuiltUser;
    let marked: Json[];
    let messages: Json[];

    beforeAll(async () => {
      lia = await buildUser(h.t.ctx, { name: 'Lia' });
      const shelf = await buildGroup(h.t.ctx, { name: 'Shelf', members: [lia, ana] });
      messages = [];
      marked = [];
      for (let i = 0; i < 3; i += 1) {
        const message = await post(ana, shelf, { title: `Shelf ${i}`, text: `Text ${i}` });
        messages.push(message);
        tick();
        marked.push(await created(lia, message.id));
      }
    });

    it('lists the caller’s bookmarks newest first', async () => {
      const items = await list(lia);
      expect(items).toEqual([...marked].reverse());
      for (const item of items) expect(keysOf(item)).toEqual(BOOKMARK_KEYS);
      expect(await list(lia, '/me/bookmarks/1001')).toEqual([...marked].reverse());
    });

    it('answers at most `limit` bookmarks', async () => {
      expect(await list(lia, '/me/bookmarks/2')).toEqual([marked[2], marked[1]]);
      expect(await list(lia, '/me/bookmarks/1')).toEqual([marked[2]]);
    });

    it('answers 400 invalid_field (limit) for a limit that is not an integer ≥ 1', async () => {
      for (const limit of ['0', 'x', '-1', '1.5', '1e3']) {
        expectError(await h.api.get(`/me/bookmarks/${limit}`, { key: lia.key }), 400, 'invalid_field', 'limit');
      }
    });

    it('with ?expand=message, gives each bookmark the message preview of §2.5', async () => {
      const first = messages[0];
      const shelf = { id: first.group.id } as GroupRow;
      const direct = await post(ana, shelf, { text: 'r1' }, first.id);
      await post(lia, shelf, { text: 'r2' }, first.id);
      await post(lia, shelf, { text: 'nested' }, direct.id); // not a direct reply: not counted
      for (const path of ['/me/bookmarks?expand=message', '/me/bookmarks/10?expand=message']) {
        const items = await list(lia, path);
        expect(items.map((b: Json) => b.id)).toEqual([...marked].reverse().map((b: Json) => b.id));
        for (const item of items) {
          expect(keysOf(item)).toEqual(BOOKMARK_KEYS);
          expect(keysOf(item.message)).toEqual(PREVIEW_KEYS);
        }
        const oldest = items[2];
        expect(oldest.user).toEqual({ id: lia.user.id, entityType: 'user' });
        expect(oldest.message).toEqual({
          id: first.id,
          entityType: 'message',
          type: 'standard',
          createdAt: first.createdAt,
          lastActivityDate: expect.any(Number),
          data: { title: 'Shelf 0', text: 'Text 0' },
          author: { id: ana.user.id, entityType: 'user', name: 'Ana', avatar: null },
          group: first.group,
          preview: null,
          children: 2,
          isInFront: true,
          isDeleted: false,
          pinnedInGroup: false,
          reactions: [],
          mentions: [],
        });
      }
      // Without expand, message stays a reference.
      expect((await list(lia))[2].message).toEqual({ id: first.id, entityType: 'message' });
    });

    it('answers 401 without a key', async () => {
      expectError(await h.api.get('/me/bookmarks'), 401, 'auth_required');
      expectError(await h.api.get('/me/bookmarks/5'), 401, 'auth_required');
    });
  });

  describe('GET /api/me/bookmarks: default and maximum', () => {
    it('answers 1000 by default and lowers a limit above 2000 to 2000', async () => {
      const { t } = h;
      const max = await buildUser(t.ctx, { name: 'Max' });
      const bulk = await buildGroup(t.ctx, { name: 'Bulk', members: [max] });
      // 2001 messages and bookmarks, written straight to the database (4002 requests would be slow).
      const base = t.clock.now();
      const messageRows = Array.from({ length: 2001 }, (_, i) => {
        const id = randomUUID();
        return {
          id,
          group_id: bulk.id,
          author_id: max.user.id,
          parent_id: null,
          root_id: id,
          lineage: '[]',
          title: `Bulk ${i}`,
          text: null,
          no_embed: null,
          created_at: base + i,
          last_activity_date: base + i,
          is_in_front: 1,
          is_deleted: 0,
          public_token: null,
        };
      });
      const bookmarkRows = messageRows.map((m, i) => ({
        id: randomUUID(),
        user_id: max.user.id,
        message_id: m.id,
        created_at: base + i * SECOND,
      }));
      for (let i = 0; i < messageRows.length; i += 200) {
        await t.ctx.db.kysely
          .insertInto('messages')
          .values(messageRows.slice(i, i + 200))
          .execute();
        await t.ctx.db.kysely
          .insertInto('bookmarks')
          .values(bookmarkRows.slice(i, i + 200))
          .execute();
      }
      const newest = [...bookmarkRows].reverse().map((b) => b.id);
      const byDefault = await list(max);
      expect(byDefault).toHaveLength(1000);
      expect(byDefault.map((b: Json) => b.id)).toEqual(newest.slice(0, 1000));
      const capped = await list(max, '/me/bookmarks/5000');
      expect(capped).toHaveLength(2000);
      expect(capped.map((b: Json) => b.id)).toEqual(newest.slice(0, 2000));
      expect(await list(max, '/me/bookmarks/2001')).toHaveLength(2000);
      expect(await list(max, '/me/bookmarks/1500')).toHaveLength(1500);
    });
  });

  describe('DELETE /api/bookmarks/{id}', () => {
    it('answers 204 with no body, then the bookmark is gone', async () => {
      const message = await post(ana, group);
      const mark = await created(ana, message.id);
      const res = await h.api.delete(`/bookmarks/${mark.id}`, { key: ana.key });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await list(ana)).map((b: Json) => b.id)).not.toContain(mark.id);
      expect(await rowCount(ana.user.id, message.id)).toBe(0);
      expectError(await h.api.delete(`/bookmarks/${mark.id}`, { key: ana.key }), 404, 'not_found');
      // The message may be bookmarked again, as a new bookmark.
      const again = await created(ana, message.id);
      expect(again.id).not.toBe(mark.id);
    });

    it('answers 404 for an unknown bookmark, a malformed id, and a message id', async () => {
      const message = await post(ana, group);
      await created(ana, message.id);
      for (const id of [randomUUID(), 'not-a-uuid', message.id]) {
        expectError(await h.api.delete(`/bookmarks/${id}`, { key: ana.key }), 404, 'not_found');
      }
      expect(await rowCount(ana.user.id, message.id)).toBe(1);
    });

    it('only the owner sees a bookmark: another user’s DELETE answers 404 and it stays', async () => {
      const message = await post(ben, group);
      const mark = await created(ana, message.id);
      expect((await list(ben)).map((b: Json) => b.id)).not.toContain(mark.id);
      expect((await list(zed)).map((b: Json) => b.id)).not.toContain(mark.id);
      expectError(await h.api.delete(`/bookmarks/${mark.id}`, { key: ben.key }), 404, 'not_found');
      expectError(await h.api.delete(`/bookmarks/${mark.id}`, { key: zed.key }), 404, 'not_found');
      expect((await list(ana)).map((b: Json) => b.id)).toContain(mark.id);
    });

    it('answers 401 without a key', async () => {
      const message = await post(ana, group);
      const mark = await created(ana, message.id);
      expectError(await h.api.delete(`/bookmarks/${mark.id}`), 401, 'auth_required');
      expect(await rowCount(ana.user.id, message.id)).toBe(1);
    });
  });

  describe('leaving a group', () => {
    it('removes the leaver’s bookmarks of that group’s messages, and only those', async () => {
      const { t } = h;
      const cleo = await buildUser(t.ctx, { name: 'Cleo' });
      const club = await buildGroup(t.ctx, { name: 'Club', members: [ana, cleo] });
      const home = await buildGroup(t.ctx, { name: 'Home', members: [ana, cleo] });
      const inClub = await post(ana, club);
      const atHome = await post(ana, home);
      const clubMark = await created(cleo, inClub.id);
      const homeMark = await created(cleo, atHome.id);
      const anaMark = await created(ana, inClub.id);

      const left = await h.api.post(`/groups/${club.id}/leave`, { key: cleo.key });
      expect(left.status, left.text).toBe(200);
      expect((await list(cleo)).map((b: Json) => b.id)).toEqual([homeMark.id]);
      expect(await rowCount(cleo.user.id, inClub.id)).toBe(0);
      expectError(await h.api.delete(`/bookmarks/${clubMark.id}`, { key: cleo.key }), 404, 'not_found');
      // Other members keep theirs.
      expect((await list(ana)).map((b: Json) => b.id)).toContain(anaMark.id);
      // And the leaver can no longer bookmark it.
      expectError(await bookmark(cleo, inClub.id), 404, 'not_found');
    });
  });
});
