import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, useTestApp, type TestApp } from '../../../test/harness.js';
import { serve, type Received } from '../../../test/sse.js';
import type { GroupRow } from '../../db/rows.js';
import { unmailedNotifications, usersWithUnmailed } from '../digests/queries.js';

type Json = ApiResponse['body'];

/** The posting helpers every block uses. */
function helpers(h: { api: ApiClient }) {
  const post = async (u: BuiltUser, g: GroupRow, text = 'Hello', parent?: string): Promise<Json> => {
    const res = await h.api.post('/messages', { key: u.key, body: { group: g.id, data: { text }, parent } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const react = (u: BuiltUser | undefined, id: string, body: unknown = { reaction: '👍' }) =>
    h.api.post(`/messages/${id}/reactions`, { key: u?.key, body });
  const reacted = async (u: BuiltUser, id: string, reaction: string): Promise<Json[]> => {
    const res = await react(u, id, { reaction });
    expect(res.status, res.text).toBe(200);
    return res.body as Json[];
  };
  const list = async (u: BuiltUser, id: string): Promise<Json[]> => {
    const res = await h.api.get(`/messages/${id}/reactions`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as Json[];
  };
  return { post, react, reacted, list };
}

describe('reactions (issue 20)', () => {
  const h = useTestApp();
  const { post, react, reacted, list } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;
  let elsewhere: GroupRow;

  const rowCount = async (messageId: string): Promise<number> => {
    const row = await h.t.ctx.db.kysely
      .selectFrom('reactions')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const reactionNotifications = async (userId: string, messageId?: string) => {
    let query = h.t.ctx.db.kysely
      .selectFrom('notifications')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 'new_reaction');
    if (messageId !== undefined) query = query.where('target', '=', messageId);
    return query.execute();
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    cleo = await buildUser(h.t.ctx, { name: 'Cleo' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben, cleo] });
    elsewhere = await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  describe('POST, GET and DELETE /api/messages/{id}/reactions', () => {
    it('adds a reaction and answers the summary: emoji, count, mine, reactionId, users', async () => {
      const message = await post(ana, group);
      const summary = await reacted(ben, message.id, '👍');
      expect(summary).toEqual([
        {
          emoji: '👍',
          count: 1,
          mine: true,
          reactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          users: [{ id: ben.user.id, name: 'Ben' }],
        },
      ]);
      // Another member sees it as not theirs.
      expect(await list(ana, message.id)).toEqual([
        { emoji: '👍', count: 1, mine: false, reactionId: null, users: [{ id: ben.user.id, name: 'Ben' }] },
      ]);
    });

    it('counts the same emoji of two people, and several emoji of one person, in the order first used', async () => {
      const message = await post(ana, group);
      // The order is that of the reactions' times: the test clock moves between them.
      const tick = () => h.t.clock.advance(1000);
      await reacted(ben, message.id, '❤️');
      tick();
      await reacted(cleo, message.id, '🎉');
      tick();
      await reacted(cleo, message.id, '❤️');
      tick();
      const summary = await reacted(ben, message.id, '👨‍👩‍👧');
      expect(summary.map((s: Json) => [s.emoji, s.count, s.mine])).toEqual([
        ['❤️', 2, true],
        ['🎉', 1, false],
        ['👨‍👩‍👧', 1, true],
      ]);
      expect(summary[0].users).toEqual([
        { id: ben.user.id, name: 'Ben' },
        { id: cleo.user.id, name: 'Cleo' },
      ]);
      expect(await rowCount(message.id)).toBe(4);
    });

    it('is idempotent: the same emoji again changes nothing and answers the same summary', async () => {
      const message = await post(ana, group);
      const first = await reacted(ben, message.id, '😂');
      const again = await reacted(ben, message.id, '😂');
      expect(again).toEqual(first);
      expect(await rowCount(message.id)).toBe(1);
    });

    it('takes back one’s own reaction and answers the summary without it', async () => {
      const message = await post(ana, group);
      await reacted(cleo, message.id, '👍');
      const [mine] = await reacted(ben, message.id, '👍');
      const res = await h.api.delete(`/messages/${message.id}/reactions/${mine.reactionId}`, { key: ben.key });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual([
        { emoji: '👍', count: 1, mine: false, reactionId: null, users: [{ id: cleo.user.id, name: 'Cleo' }] },
      ]);
      expectError(
        await h.api.delete(`/messages/${message.id}/reactions/${mine.reactionId}`, { key: ben.key }),
        404,
        'not_found',
      );
    });

    it('refuses to take back someone else’s reaction (403 not_author) and keeps it', async () => {
      const message = await post(ana, group);
      const [his] = await reacted(ben, message.id, '🙏');
      for (const u of [ana, cleo]) {
        expectError(
          await h.api.delete(`/messages/${message.id}/reactions/${his.reactionId}`, { key: u.key }),
          403,
          'not_author',
        );
      }
      expect(await rowCount(message.id)).toBe(1);
    });

    it('answers 404 for an unknown reaction id, a malformed one, and a reaction of another message', async () => {
      const message = await post(ana, group);
      const other = await post(ana, group);
      const [onOther] = await reacted(ben, other.id, '👍');
      for (const id of [randomUUID(), 'not-a-uuid', onOther.reactionId]) {
        expectError(await h.api.delete(`/messages/${message.id}/reactions/${id}`, { key: ben.key }), 404, 'not_found');
      }
      expect(await rowCount(other.id)).toBe(1);
    });

    it('accepts flags, keycaps, skin tones and ZWJ sequences', async () => {
      const message = await post(ana, group);
      for (const emoji of ['🇫🇷', '#️⃣', '👍🏽', '🏳️‍🌈', '👩🏾‍💻', '🏴󠁧󠁢󠁳󠁣󠁴󠁿']) {
        const summary = await reacted(ben, message.id, emoji);
        expect(summary.map((s: Json) => s.emoji)).toContain(emoji);
      }
    });

    it('refuses anything but one emoji with 400 invalid_reaction (or missing_field), changing nothing', async () => {
      const message = await post(ana, group);
      const invalid: unknown[] = [
        'a',
        'ok',
        '👍👍',
        '👍 ',
        ' 👍',
        '👍a',
        '1',
        '🇫',
        'x'.repeat(100),
        '👍'.repeat(50),
        5,
        true,
        ['👍'],
        { e: '👍' },
      ];
      for (const reaction of invalid) {
        expectError(await react(ben, message.id, { reaction }), 400, 'invalid_reaction', 'reaction');
      }
      for (const body of [{}, { reaction: '' }, { reaction: null }, { emoji: '👍' }]) {
        expectError(await react(ben, message.id, body), 400, 'missing_field', 'reaction');
      }
      expectError(await h.api.post(`/messages/${message.id}/reactions`, { key: ben.key }), 400, 'missing_field');
      expect(await rowCount(message.id)).toBe(0);
    });

    it('reacts to a comment as to a post', async () => {
      const message = await post(ana, group);
      const reply = await post(ben, group, 'A reply', message.id);
      expect(await reacted(ana, reply.id, '👏')).toEqual([
        expect.objectContaining({ emoji: '👏', count: 1, mine: true }),
      ]);
      expect(await list(ana, message.id)).toEqual([]);
    });
  });

  describe('access', () => {
    it('answers 401 without a key, for every route', async () => {
      const message = await post(ana, group);
      expectError(await react(undefined, message.id), 401, 'auth_required');
      expectError(await h.api.get(`/messages/${message.id}/reactions`), 401, 'auth_required');
      expectError(await h.api.delete(`/messages/${message.id}/reactions/${randomUUID()}`), 401, 'auth_required');
      expect(await rowCount(message.id)).toBe(0);
    });

    it('answers 404 to an outsider, for an unknown message and a malformed id', async () => {
      const message = await post(ana, group);
      const [his] = await reacted(ben, message.id, '👍');
      expectError(await react(zed, message.id), 404, 'not_found');
      expectError(await h.api.get(`/messages/${message.id}/reactions`, { key: zed.key }), 404, 'not_found');
      expectError(
        await h.api.delete(`/messages/${message.id}/reactions/${his.reactionId}`, { key: zed.key }),
        404,
        'not_found',
      );
      for (const id of [randomUUID(), 'nope']) {
        expectError(await react(ben, id), 404, 'not_found');
        expectError(await h.api.get(`/messages/${id}/reactions`, { key: ben.key }), 404, 'not_found');
      }
      const foreign = await post(zed, elsewhere);
      expectError(await react(ana, foreign.id), 404, 'not_found');
      expect(await rowCount(message.id)).toBe(1);
      expect(await rowCount(foreign.id)).toBe(0);
    });

    it('lets the author react to their own message, without notifying them', async () => {
      const message = await post(ana, group);
      expect((await reacted(ana, message.id, '😊'))[0].mine).toBe(true);
      expect(await reactionNotifications(ana.user.id, message.id)).toEqual([]);
    });

    it('shows a visitor of a public link the counts, not who reacted nor anything as theirs', async () => {
      const message = await post(ana, group);
      await reacted(ben, message.id, '👍');
      await reacted(cleo, message.id, '👍');
      const link = await h.api.get(`/messages/${message.id}/get-public-link`, { key: ana.key });
      expect(link.status, link.text).toBe(200);
      const res = await h.api.get(`/public/${link.body.token}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.reactions).toEqual([{ emoji: '👍', count: 2, mine: false, reactionId: null, users: [] }]);
    });

    it('keeps a leaver’s reactions but refuses them new ones', async () => {
      const dan = await buildUser(h.t.ctx, { name: 'Dan' });
      const club = await buildGroup(h.t.ctx, { name: 'Club', members: [ana, dan] });
      const message = await post(ana, club);
      await reacted(dan, message.id, '👍');
      const left = await h.api.post(`/groups/${club.id}/leave`, { key: dan.key });
      expect(left.status, left.text).toBe(200);
      expectError(await react(dan, message.id, { reaction: '🎉' }), 404, 'not_found');
      expect((await list(ana, message.id)).map((s: Json) => s.count)).toEqual([1]);
    });

    it('refuses reactions on a placeholder, whose reactions went with its content', async () => {
      const message = await post(ana, group);
      const reply = await post(ben, group, 'Soon gone', message.id);
      await post(cleo, group, 'Reply to the reply', reply.id);
      await reacted(ana, reply.id, '👍');
      const deleted = await h.api.delete(`/messages/${reply.id}`, { key: ben.key });
      expect(deleted.status, deleted.text).toBe(204);
      expect(await rowCount(reply.id)).toBe(0);
      expectError(await react(ana, reply.id), 404, 'not_found');
    });

    it('deletes the reactions of a deleted post and of a deleted account', async () => {
      const eve = await buildUser(h.t.ctx, { name: 'Eve' });
      const room = await buildGroup(h.t.ctx, { name: 'Room', members: [ana, eve] });
      const message = await post(ana, room);
      const kept = await post(ana, room);
      await reacted(eve, message.id, '👍');
      await reacted(eve, kept.id, '👍');
      await reacted(ana, kept.id, '🎉');
      expect((await h.api.delete(`/messages/${message.id}`, { key: ana.key })).status).toBe(204);
      expect(await rowCount(message.id)).toBe(0);
      const gone = await h.api.delete(`/users/${eve.user.id}`, { key: eve.key });
      expect(gone.status, gone.text).toBe(204);
      expect((await list(ana, kept.id)).map((s: Json) => s.emoji)).toEqual(['🎉']);
    });
  });

  describe('in the message and its cards', () => {
    it('carries the summary in GET /messages/{id}, its preview, the group feed and bookmark cards', async () => {
      const message = await post(ana, group, 'Cards');
      await reacted(ben, message.id, '🔥');
      const expected = [
        {
          emoji: '🔥',
          count: 1,
          mine: true,
          reactionId: expect.any(String),
          users: [{ id: ben.user.id, name: 'Ben' }],
        },
      ];
      const full = await h.api.get(`/messages/${message.id}`, { key: ben.key });
      expect(full.body.reactions).toEqual(expected);
      const preview = await h.api.get(`/messages/${message.id}/preview`, { key: ben.key });
      expect(preview.body.reactions).toEqual(expected);
      const feed = await h.api.get(`/groups/${group.id}/feed`, { key: ben.key });
      expect(feed.status, feed.text).toBe(200);
      const card = feed.body.messages.find((m: Json) => m.id === message.id);
      expect(card.reactions).toEqual(expected);
      // Cards without reactions carry [].
      expect(
        feed.body.messages.filter((m: Json) => m.id !== message.id).every((m: Json) => Array.isArray(m.reactions)),
      ).toBe(true);
      await h.api.post('/bookmarks', { key: ben.key, body: { message_id: message.id } });
      const marks = await h.api.get('/me/bookmarks?expand=message', { key: ben.key });
      expect(marks.body.find((b: Json) => b.message.id === message.id).message.reactions).toEqual(expected);
    });

    it('gives every card of a feed page its own summary', async () => {
      const counting = await buildGroup(h.t.ctx, { name: 'Counting', members: [ana, ben] });
      const emoji = ['👍', '🎉', '😂', '🙏'];
      for (const e of emoji) {
        const m = await post(ana, counting, `Card ${e}`);
        await reacted(ben, m.id, e);
      }
      const feed = await h.api.get(`/groups/${counting.id}/feed`, { key: ana.key });
      expect(feed.body.messages.map((m: Json) => `${m.data.text}:${m.reactions[0].emoji}`).sort()).toEqual(
        emoji.map((e) => `Card ${e}:${e}`).sort(),
      );
    });
  });

  describe('notifications', () => {
    it('notifies the author once per message and reactor, not per emoji, and only Kith’s client lists it', async () => {
      const message = await post(ana, group, 'Notify me');
      await reacted(ben, message.id, '👍');
      await reacted(ben, message.id, '❤️');
      const [again] = await reacted(ben, message.id, '👍');
      await h.api.delete(`/messages/${message.id}/reactions/${again.reactionId}`, { key: ben.key });
      await reacted(ben, message.id, '👍');
      await reacted(cleo, message.id, '👍');
      const rows = await reactionNotifications(ana.user.id, message.id);
      expect(rows.map((n) => n.from_user_id).sort()).toEqual([ben.user.id, cleo.user.id].sort());
      expect(await reactionNotifications(ben.user.id, message.id)).toEqual([]);

      const plain = await h.api.get('/me/notifications', { key: ana.key });
      expect(plain.body.some((n: Json) => n.type === 'new_reaction')).toBe(false);
      const kith = await h.api.get('/me/notifications/50?include=reactions', { key: ana.key });
      const mine = kith.body.filter((n: Json) => n.type === 'new_reaction' && n.target === message.id);
      expect(mine).toHaveLength(2);
      expect(mine[0]).toMatchObject({
        fromMessage: { id: message.id, entityType: 'message' },
        fromGroup: { id: group.id, name: 'Family' },
        title: 'Notify me',
        read: false,
      });
    });

    it('never selects a reaction notification for e-mail, even when asked for its type', async () => {
      const fay = await buildUser(h.t.ctx, { name: 'Fay', notificationEmails: 'hourly' });
      const home = await buildGroup(h.t.ctx, { name: 'Home', members: [fay, ben] });
      const message = await post(fay, home, 'Mine');
      await reacted(ben, message.id, '👍');
      expect(await reactionNotifications(fay.user.id, message.id)).toHaveLength(1);
      const types = ['new_message', 'new_comment', 'new_reaction'];
      const users = await usersWithUnmailed(h.t.ctx.db.kysely, 'hourly', types, '', 1000);
      expect(users.map((u) => u.id)).not.toContain(fay.user.id);
      expect(await unmailedNotifications(h.t.ctx.db.kysely, fay.user.id, types, 100)).toEqual([]);
    });
  });
});

describe('reactions live (issue 20)', () => {
  let t: TestApp;
  let api: ApiClient;
  const server = serve(() => t);
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    await server.listen();
  });
  afterAll(() => t.close());

  it('sends the summary to the other members after a reaction and its removal, not to outsiders', async () => {
    const { post, reacted } = helpers({
      get api() {
        return api;
      },
    });
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const ben = await buildUser(t.ctx, { name: 'Ben' });
    const zed = await buildUser(t.ctx, { name: 'Zed' });
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    await buildGroup(t.ctx, { members: [zed] });
    const message = await post(ana, group);
    const anaStream = await server.open(ana.key);
    const zedStream = await server.open(zed.key);
    const [mine] = await reacted(ben, message.id, '👍');
    const isReactions = (e: Received) => e.event === 'reactions' && e.data.messageId === message.id;
    const added = (await anaStream.eventsUntil(isReactions)).at(-1)!;
    expect(added.data).toEqual({
      messageId: message.id,
      groupId: group.id,
      rootId: message.id,
      reactions: [{ emoji: '👍', count: 1, users: [{ id: ben.user.id, name: 'Ben', reactionId: mine.reactionId }] }],
    });
    const removed = await api.delete(`/messages/${message.id}/reactions/${mine.reactionId}`, { key: ben.key });
    expect(removed.status, removed.text).toBe(200);
    const after = (await anaStream.eventsUntil(isReactions)).at(-1)!;
    expect(after.data.reactions).toEqual([]);
    // Zed's stream gets nothing of it: a later event of his own arrives first.
    const own = await buildGroup(t.ctx, { members: [zed] });
    const zedPost = await post(zed, own);
    const seen = await zedStream.eventsUntil((e) => e.event === 'message' && e.data.id === zedPost.id);
    expect(seen.some((e) => e.event === 'reactions')).toBe(false);
  });
});

describe('reactions turned off (REACTIONS_ENABLED=false)', () => {
  const h = useTestApp({ REACTIONS_ENABLED: 'false' });
  const { post, react, list } = helpers(h);

  it('answers 403 feature_disabled to writes, [] to reads, no summaries, and says so in /api/info', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const ben = await buildUser(h.t.ctx, { name: 'Ben' });
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const message = await post(ana, group);
    // A reaction stored while the switch was on stays stored, unseen.
    await h.t.ctx.db.kysely
      .insertInto('reactions')
      .values({ id: randomUUID(), message_id: message.id, user_id: ben.user.id, emoji: '👍', created_at: 1 })
      .execute();
    expectError(await react(ben, message.id), 403, 'feature_disabled');
    expectError(
      await h.api.delete(`/messages/${message.id}/reactions/${randomUUID()}`, { key: ben.key }),
      403,
      'feature_disabled',
    );
    expect(await list(ana, message.id)).toEqual([]);
    expect((await h.api.get(`/messages/${message.id}`, { key: ana.key })).body.reactions).toEqual([]);
    const feed = await h.api.get(`/groups/${group.id}/feed`, { key: ana.key });
    expect(feed.body.messages[0].reactions).toEqual([]);
    const info = await h.api.get('/info');
    expect(info.body.reactions).toBe(false);
  });
});

describe('reactions switch on by default', () => {
  const h = useTestApp();
  it('says so in /api/info', async () => {
    expect((await h.api.get('/info')).body.reactions).toBe(true);
  });
});
