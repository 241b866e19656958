import { randomUUID } from 'node:crypto';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { expectError, keysOf, PREVIEW_KEYS } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import type { AppContext } from '../../context.js';
import type { GroupRow } from '../../db/rows.js';
import { allGroupsFeed } from './all-groups-feed.js';

// GET /api/feed and GET /api/feed/page/{page} (docs/api §11.8): the latest activity of all the
// caller's groups.

type Json = ApiResponse['body'];
const FEED_ITEM_KEYS = [...PREVIEW_KEYS, 'truncated', 'unread'].sort();
const SECOND = 1000;

/**
 * Counts the statements run through a Kysely instance: each executed statement's result passes
 * through the plugin once (its query nodes do once per subquery builder, so they are not counted).
 */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count += 1;
    return Promise.resolve(args.result);
  }
}

describe('the all-groups feed (§11.8)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let family: GroupRow;
  let friends: GroupRow;
  let elsewhere: GroupRow;
  /** Ids of every post Ben can see, newest activity first. */
  let benSees: string[] = [];

  const tick = (ms = SECOND) => h.t.clock.advance(ms);
  const post = async (u: BuiltUser, group: GroupRow, text: string): Promise<Json> => {
    tick();
    const res = await h.api.post('/messages', { key: u.key, body: { group: group.id, data: { text } } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const feed = async (u: BuiltUser, query = '') => {
    const res = await h.api.get(`/feed${query}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: Json[]; totalItems: number; nextCursor: string | null };
  };
  const page = async (u: BuiltUser, n: number | string) => {
    const res = await h.api.get(`/feed/page/${n}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: string[]; totalItems: number };
  };
  /** Every card of the cursor feed, page after page of `limit`. */
  const walk = async (u: BuiltUser, limit: number): Promise<string[]> => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const answer = await feed(u, query);
      expect(answer.messages.length).toBeLessThanOrEqual(limit);
      seen.push(...answer.messages.map((m: Json) => m.id as string));
      cursor = answer.nextCursor;
    } while (cursor !== null);
    return seen;
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    family = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    friends = await buildGroup(h.t.ctx, { name: 'Friends', members: [ben, zed] });
    elsewhere = await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [ana, zed] });
    const posted: string[] = [];
    // Interleaved by activity: family, friends, elsewhere (not Ben's), family, …
    for (let i = 0; i < 12; i += 1) {
      posted.push((await post(ana, family, `family ${i}`)).id);
      posted.push((await post(zed, friends, `friends ${i}`)).id);
      await post(zed, elsewhere, `elsewhere ${i}`);
    }
    benSees = [...posted].reverse();
  });

  it('mixes the caller’s groups by last activity, each card naming its group, and leaves out other groups', async () => {
    const answer = await feed(ben);
    expect(Object.keys(answer).sort()).toEqual(['messages', 'nextCursor', 'totalItems']);
    expect(answer.messages.map((m: Json) => m.id)).toEqual(benSees);
    expect(answer.totalItems).toBe(24);
    expect(answer.nextCursor).toBeNull();
    for (const card of answer.messages) expect(keysOf(card)).toEqual(FEED_ITEM_KEYS);
    const names = new Set(answer.messages.map((m: Json) => `${m.group.id} ${m.group.name}`));
    expect(names).toEqual(new Set([`${family.id} Family`, `${friends.id} Friends`]));
    expect(answer.messages[0]).toMatchObject({
      data: { text: 'friends 11' },
      group: { id: friends.id, entityType: 'group', name: 'Friends' },
      author: { id: zed.user.id, name: 'Zed' },
      children: 0,
      truncated: false,
    });
  });

  it('carries each card’s reactions and pin, as the caller sees them, in the same order', async () => {
    const target = benSees[3] as string;
    const react = await h.api.post(`/messages/${target}/reactions`, { key: ben.key, body: { reaction: '🎉' } });
    expect(react.status, react.text).toBe(200);
    const pin = await h.api.put(`/messages/${target}`, { key: ben.key, body: { pinnedInGroup: true } });
    expect(pin.status, pin.text).toBe(200);
    const cardOf = async (u: BuiltUser) => (await feed(u)).messages.find((m: Json) => m.id === target);
    // Pins order a group's own page; across groups the order stays by activity.
    expect((await feed(ben)).messages.map((m: Json) => m.id)).toEqual(benSees);
    expect(await cardOf(ben)).toMatchObject({
      pinnedInGroup: true,
      reactions: [{ emoji: '🎉', count: 1, mine: true, users: [{ id: ben.user.id, name: 'Ben' }] }],
    });
    expect(await cardOf(ana)).toMatchObject({ reactions: [{ emoji: '🎉', count: 1, mine: false, reactionId: null }] });
    const unpin = await h.api.put(`/messages/${target}`, { key: ben.key, body: { pinnedInGroup: false } });
    expect(unpin.status, unpin.text).toBe(200);
  });

  it('moves a thread up when it gets a reply, with its comment count and the unread mark', async () => {
    const oldest = benSees.at(-1) as string;
    tick();
    const res = await h.api.post('/messages', {
      key: ana.key,
      body: { group: family.id, parent: oldest, data: { text: 'a reply' } },
    });
    expect(res.status, res.text).toBe(201);
    // Ben's new_comment notification is written after the commit.
    await expect
      .poll(async () => (await feed(ben, '?limit=1')).messages[0], { timeout: 15_000 })
      .toMatchObject({ id: oldest, children: 1, unread: true });
    benSees = [oldest, ...benSees.slice(0, -1)];
    expect((await feed(ben)).messages.map((m: Json) => m.id)).toEqual(benSees);
  });

  it('pages by cursor without repeats or skips, also when a card of an earlier page moves up', async () => {
    expect(await walk(ben, 5)).toEqual(benSees);
    expect(await walk(ben, 1)).toEqual(benSees);
    const first = await feed(ben, '?limit=4');
    // A card of the next page gets a reply and moves to the top: the next page neither repeats nor skips.
    const moved = benSees[5] as string;
    const movedGroup = (await feed(ben)).messages.find((m: Json) => m.id === moved).group.id as string;
    tick();
    // Ben is in both groups, so he can reply to any card he sees.
    const res = await h.api.post('/messages', {
      key: ben.key,
      body: { group: movedGroup, parent: moved, data: { text: 'up it goes' } },
    });
    expect(res.status, res.text).toBe(201);
    const second = await feed(ben, `?limit=4&cursor=${encodeURIComponent(first.nextCursor as string)}`);
    const seen = [...first.messages, ...second.messages].map((m: Json) => m.id as string);
    expect(new Set(seen).size).toBe(8);
    expect(second.messages.map((m: Json) => m.id)).toEqual(benSees.filter((id) => id !== moved).slice(4, 8));
    benSees = [moved, ...benSees.filter((id) => id !== moved)];
  });

  it('GET /api/feed/page/{page} answers ids, 30 from the position {page}, as Zusam 0.6.1', async () => {
    const more = await buildGroup(h.t.ctx, { name: 'More', members: [ben] });
    for (let i = 0; i < 10; i += 1) benSees.unshift((await post(ben, more, `more ${i}`)).id);
    const first = await page(ben, 0);
    expect(Object.keys(first).sort()).toEqual(['messages', 'totalItems']);
    expect(first.messages).toEqual(benSees.slice(0, 30));
    expect(first.totalItems).toBe(34);
    // The 0.6.1 client asks for its second page at /feed/page/30.
    expect((await page(ben, 30)).messages).toEqual(benSees.slice(30));
    expect((await page(ben, 7)).messages).toEqual(benSees.slice(7, 37));
    expect((await page(ben, 999)).messages).toEqual([]);
    // The cursor feed agrees.
    expect(await walk(ben, 30)).toEqual(benSees);
  });

  it('a member who leaves no longer sees the group’s messages', async () => {
    const club = await buildGroup(h.t.ctx, { name: 'Club', members: [ana, ben] });
    const news = await post(ana, club, 'club news');
    expect((await feed(ben, '?limit=1')).messages[0].id).toBe(news.id);
    expect((await page(ben, 0)).messages).toContain(news.id);
    const left = await h.api.post(`/groups/${club.id}/leave`, { key: ben.key });
    expect(left.status, left.text).toBe(200);
    const after = await feed(ben, '?limit=50');
    expect(after.messages.map((m: Json) => m.id)).not.toContain(news.id);
    expect(after.messages.every((m: Json) => m.group.id !== club.id)).toBe(true);
    expect((await page(ben, 0)).messages).not.toContain(news.id);
    // Removed without leaving (an operator deleting the membership): the same.
    const tennis = await buildGroup(h.t.ctx, { name: 'Tennis', members: [ana, ben] });
    const match = await post(ana, tennis, 'match');
    expect((await feed(ben, '?limit=1')).messages[0].id).toBe(match.id);
    await h.t.ctx.db.kysely
      .deleteFrom('memberships')
      .where('group_id', '=', tennis.id)
      .where('user_id', '=', ben.user.id)
      .execute();
    expect((await feed(ben, '?limit=50')).messages.map((m: Json) => m.id)).not.toContain(match.id);
    expect((await feed(ben)).totalItems).toBe(benSees.length);
  });

  it('gives a user in no group an empty page', async () => {
    const loner = await buildUser(h.t.ctx, { name: 'Loner' });
    expect(await feed(loner)).toEqual({ messages: [], totalItems: 0, nextCursor: null });
    expect(await page(loner, 0)).toEqual({ messages: [], totalItems: 0 });
  });

  it('answers 401 to a visitor and to an unknown key', async () => {
    expectError(await h.api.get('/feed'), 401, 'auth_required');
    expectError(await h.api.get('/feed/page/0'), 401, 'auth_required');
    expectError(await h.api.get('/feed', { key: 'not-a-key-' + randomUUID() }), 401, 'invalid_api_key');
  });

  it('answers 400 invalid_field for a bad limit, cursor or page, as the group feed does', async () => {
    for (const limit of ['0', '51', 'x', '-1', '1.5', '']) {
      expectError(await h.api.get(`/feed?limit=${limit}`, { key: ben.key }), 400, 'invalid_field', 'limit');
    }
    expectError(await h.api.get('/feed?limit=2&limit=3', { key: ben.key }), 400, 'invalid_field', 'limit');
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    for (const cursor of ['not a cursor!', 'x', b64('hello'), b64('123.not-an-id'), b64(`abc.${randomUUID()}`)]) {
      expectError(
        await h.api.get(`/feed?cursor=${encodeURIComponent(cursor)}`, { key: ben.key }),
        400,
        'invalid_field',
        'cursor',
      );
    }
    for (const bad of ['-1', 'x', '1.5', '1e3', '9999999999']) {
      expectError(await h.api.get(`/feed/page/${bad}`, { key: ben.key }), 400, 'invalid_field', 'page');
    }
  });

  it('runs as many queries for many cards in many groups as for a few in two', async () => {
    const counted = (ctx: AppContext): { ctx: AppContext; counter: QueryCounter } => {
      const counter = new QueryCounter();
      return { ctx: { ...ctx, db: { ...ctx.db, kysely: ctx.db.kysely.withPlugin(counter) } }, counter };
    };
    const small = await buildUser(h.t.ctx, { name: 'Small' });
    const large = await buildUser(h.t.ctx, { name: 'Large' });
    for (let g = 0; g < 2; g += 1) {
      const group = await buildGroup(h.t.ctx, { members: [ana, small] });
      for (let i = 0; i < 2; i += 1) await post(ana, group, `small ${g}.${i}`);
    }
    for (let g = 0; g < 8; g += 1) {
      const group = await buildGroup(h.t.ctx, { members: [ana, large] });
      for (let i = 0; i < 6; i += 1) await post(ana, group, `large ${g}.${i}`);
    }
    const one = counted(h.t.ctx);
    const smallAnswer = await allGroupsFeed(one.ctx, small.user, {});
    const other = counted(h.t.ctx);
    const largeAnswer = await allGroupsFeed(other.ctx, large.user, { limit: '50' });
    expect(smallAnswer.messages).toHaveLength(4);
    expect(largeAnswer.messages).toHaveLength(48);
    expect(new Set(largeAnswer.messages.map((m) => m.group.id)).size).toBe(8);
    expect(one.counter.count).toBeGreaterThan(0);
    expect(other.counter.count).toBe(one.counter.count);
    // The groups, the page, views, child counts, unread marks, reactions, mentions, and the card
    // pictures (files, then the texts of cards without files: these posts have no link, so no third query).
    expect(other.counter.count).toBe(9);
  });
});

describe('data.default_page: the page the client opens first (§4.3, §11.8)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let family: GroupRow;
  const me = async (u: BuiltUser): Promise<Json> => (await h.api.get('/me', { key: u.key })).body;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    family = await buildGroup(h.t.ctx, { name: 'Family', members: [ana] });
  });

  it('is absent until chosen, then kept beside data.default_group, which stays a group id', async () => {
    expect((await me(ana)).data).not.toHaveProperty('default_page');
    const res = await h.api.put(`/users/${ana.user.id}`, {
      key: ana.key,
      body: { data: { default_group: family.id, default_page: 'feed' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ default_group: family.id, default_page: 'feed' });
    expect((await me(ana)).data).toMatchObject({ default_group: family.id, default_page: 'feed' });
    await h.api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { default_page: 'default_group' } } });
    expect((await me(ana)).data).toMatchObject({ default_group: family.id, default_page: 'default_group' });
  });

  it.each([['all'], ['FEED'], [''], [3]])(
    'refuses %j with 400 invalid_field on data.default_page, changing nothing',
    async (value) => {
      await h.api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { default_page: 'feed' } } });
      expectError(
        await h.api.put(`/users/${ana.user.id}`, {
          key: ana.key,
          body: { name: 'Renamed', data: { default_page: value } },
        }),
        400,
        'invalid_field',
        'data.default_page',
      );
      const after = await me(ana);
      expect(after.name).toBe('Ana');
      expect(after.data.default_page).toBe('feed');
    },
  );
});
