import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { expectError, UUID_V4, PREVIEW_KEYS } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import type { GroupRow } from '../../db/rows.js';
import { newId } from '../../lib/ids.js';
import { eventStreamsOf } from './stream.js';
import { EventReader, expectGrowingIds, serve, type Received } from '../../../test/sse.js';

describe('live event stream (docs/api §11.4)', () => {
  let t: TestApp;
  let api: ApiClient;
  const server = serve(() => t);

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    await server.listen();
  });
  afterAll(() => t.close());

  const user = (name?: string): Promise<BuiltUser> => buildUser(t.ctx, name === undefined ? {} : { name });

  const post = async (author: BuiltUser, group: GroupRow, text: string, parent?: string) => {
    const res = await api.post('/messages', {
      key: author.key,
      body: { group: group.id, data: { text }, ...(parent !== undefined ? { parent } : {}) },
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string };
  };

  const isMessage = (id: string) => (e: Received) => e.event === 'message' && e.data.id === id;

  it('answers 401 in the JSON envelope before any stream, and HEAD is not a stream', async () => {
    expectError(await server.refused(undefined), 401, 'auth_required');
    expectError(await server.refused('not-a-key'), 401, 'invalid_api_key');
    expectError(await server.refused(''), 401, 'auth_required');
    const head = await api.request('HEAD', '/events');
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('GET');
  });

  it('answers 200 with the stream headers, and starts with retry: 5000', async () => {
    const ana = await user();
    const { controller, promise } = server.request(ana.key);
    const response = await promise;
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('connection')).toBe('keep-alive');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('x-request-id')).toMatch(UUID_V4);
    const reader = new EventReader(response, controller);
    try {
      const first = await reader.next();
      expect(first).toEqual({ retry: '5000', comments: [] });
    } finally {
      reader.close();
    }
  });

  it('pushes posts, replies and their notifications to members, the author included, and nobody else', async () => {
    const ana = await user('Ana');
    const ben = await user('Ben');
    const cleo = await user('Cleo');
    const family = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] });
    const club = await buildGroup(t.ctx, { name: 'Club', members: [cleo] });
    const anaStream = await server.open(ana.key);
    const benStream = await server.open(ben.key);
    const cleoStream = await server.open(cleo.key);

    // Ben posts: Ana gets the card and a new_message notification.
    const beach = await post(ben, family, 'Beach day');
    const anaPost = await anaStream.eventsUntil(
      () =>
        anaStream.seen.some(isMessage(beach.id)) &&
        anaStream.seen.some((e) => e.event === 'notification' && e.data.target === beach.id),
    );
    expect(anaPost.map((e) => e.event).sort()).toEqual(['message', 'notification']);
    const card = anaPost.find((e) => e.event === 'message')!;
    expect(Object.keys(card.data).sort()).toEqual(PREVIEW_KEYS);
    const preview = await api.get(`/messages/${beach.id}/preview`, { key: ana.key });
    expect(card.data).toEqual(preview.body);
    expect(card.data.group).toEqual({ id: family.id, entityType: 'group', name: 'Family' });
    expect(card.data.author.id).toBe(ben.user.id);
    const newMessage = anaPost.find((e) => e.event === 'notification')!;
    expect(newMessage.data.type).toBe('new_message');
    const stored = await api.get(`/notifications/${newMessage.data.id as string}`, { key: ana.key });
    expect(stored.status).toBe(200);
    expect(newMessage.data).toEqual(stored.body);

    // The author gets their own post, and no notification of it.
    const benPost = await benStream.eventsUntil(isMessage(beach.id));
    expect(benPost.map((e) => e.event)).toEqual(['message']);
    expect(benPost[0]!.data).toEqual(preview.body);

    // Ben replies: Ana gets the comment with parent and lineage, and a new_comment notification.
    const reply = await post(ben, family, 'Lovely!', beach.id);
    const anaReply = await anaStream.eventsUntil(
      () =>
        anaStream.seen.some((e) => e.event === 'comment' && e.data.id === reply.id) &&
        anaStream.seen.some((e) => e.event === 'notification' && e.data.target === reply.id),
    );
    expect(anaReply.map((e) => e.event).sort()).toEqual(['comment', 'notification']);
    const comment = anaReply.find((e) => e.event === 'comment')!;
    const replyPreview = await api.get(`/messages/${reply.id}/preview`, { key: ana.key });
    expect(comment.data).toEqual({
      ...replyPreview.body,
      parent: { id: beach.id, entityType: 'message' },
      lineage: [beach.id],
    });
    expect(comment.data.isInFront).toBe(false);
    const newComment = anaReply.find((e) => e.event === 'notification')!;
    expect(newComment.data).toMatchObject({
      type: 'new_comment',
      target: reply.id,
      fromMessage: { id: beach.id, entityType: 'message' },
      parentAuthorName: 'Ben',
    });
    const benReply = await benStream.eventsUntil((e) => e.event === 'comment' && e.data.id === reply.id);
    expect(benReply.map((e) => e.event)).toEqual(['comment']);

    // Cleo is in another group: the first thing she hears of is her own post.
    const own = await post(cleo, club, 'Practice at 6');
    const cleoEvents = await cleoStream.eventsUntil(isMessage(own.id));
    expect(cleoEvents.map((e) => [e.event, e.data.id])).toEqual([['message', own.id]]);

    // Ids only grow, and each event came once.
    for (const stream of [anaStream, benStream, cleoStream]) {
      expectGrowingIds(stream.seen);
      expect(new Set(stream.seen.map((e) => e.id)).size).toBe(stream.seen.length);
    }
  });

  it('stops a group’s events as soon as the member leaves it', async () => {
    const ana = await user();
    const ben = await user();
    const left = await buildGroup(t.ctx, { members: [ana, ben] });
    const kept = await buildGroup(t.ctx, { members: [ana, ben] });
    const stream = await server.open(ana.key);

    const before = await post(ben, left, 'Still here?');
    await stream.eventsUntil(isMessage(before.id));

    const res = await api.post(`/groups/${left.id}/leave`, { key: ana.key });
    expect(res.status, res.text).toBe(200);
    const after = await post(ben, left, 'Gone');
    // Events reach a stream in id order: once the later post arrives, the earlier one was held back.
    const sentinel = await post(ben, kept, 'Over here');
    const events = await stream.eventsUntil(isMessage(sentinel.id));
    expect(events.filter((e) => e.data.id === after.id || e.data.target === after.id)).toEqual([]);
    expect(events.filter((e) => e.data.group?.id === left.id || e.data.fromGroup?.id === left.id)).toEqual([]);
    expect(events.map((e) => e.event)).toEqual(['notification', 'message']);
    expectGrowingIds(stream.seen);
  });

  it('replays exactly the missed events to a client that reconnects with Last-Event-ID', async () => {
    const ana = await user();
    const ben = await user();
    const other = await user();
    const family = await buildGroup(t.ctx, { members: [ana, ben] });
    const elsewhere = await buildGroup(t.ctx, { members: [other] });

    const first = await server.open(ana.key);
    const seenPost = await post(ben, family, 'Seen');
    const seen = await first.eventsUntil(
      () => first.seen.some(isMessage(seenPost.id)) && first.seen.some((e) => e.data.target === seenPost.id),
    );
    const lastId = seen.at(-1)!.id;
    first.close();

    const missed1 = await post(ben, family, 'Missed 1');
    await post(other, elsewhere, 'Not for Ana');
    const missed2 = await post(ben, family, 'Missed 2');
    t.ctx.events.publish({ type: 'notification', userId: other.user.id, notificationId: newId() });

    const again = await server.open(ana.key, { 'Last-Event-ID': String(lastId) });
    const sentinel = await post(ben, family, 'Live again');
    const events = await again.eventsUntil(isMessage(sentinel.id));
    expect(events.map((e) => [e.event, e.event === 'notification' ? e.data.target : e.data.id])).toEqual([
      ['notification', missed1.id],
      ['message', missed1.id],
      ['notification', missed2.id],
      ['message', missed2.id],
      ['notification', sentinel.id],
      ['message', sentinel.id],
    ]);
    expect(events[0]!.id).toBeGreaterThan(lastId);
    expectGrowingIds(events);
    const replayedCard = events[1]!.data;
    expect(replayedCard).toEqual((await api.get(`/messages/${missed1.id}/preview`, { key: ana.key })).body);

    // Coming back with the newest id replays nothing.
    const upToDate = await server.open(ana.key, { 'Last-Event-ID': String(events.at(-1)!.id) });
    const next = await post(ben, family, 'Next');
    const fresh = await upToDate.eventsUntil(isMessage(next.id));
    expect(fresh.map((e) => e.event)).toEqual(['notification', 'message']);
  });

  it('sends resync first when the missed events cannot be replayed', async () => {
    const ana = await user();
    const ben = await user();
    const family = await buildGroup(t.ctx, { members: [ana, ben] });

    // An id from before this process started, and something that is no id at all.
    for (const lastEventId of ['1', 'abc', String(t.ctx.events.lastId + 50)]) {
      const stream = await server.open(ana.key, { 'Last-Event-ID': lastEventId });
      const resync = await stream.nextEvent();
      expect(resync.event).toBe('resync');
      expect(resync.data).toEqual({});
      const after = await post(ben, family, `after ${lastEventId}`);
      const events = await stream.eventsUntil(isMessage(after.id));
      expect(events.every((e) => e.id > resync.id)).toBe(true);
      stream.close();
    }

    // More than 1000 events since: resync. 999 since: replayed (nothing of them is for Ana).
    const before = t.ctx.events.lastId;
    for (let i = 0; i < 1001; i += 1) t.ctx.events.publish({ type: 'file', userId: ben.user.id, fileId: newId() });
    const tooFar = await server.open(ana.key, { 'Last-Event-ID': String(before) });
    expect((await tooFar.nextEvent()).event).toBe('resync');
    const inReach = await server.open(ana.key, { 'Last-Event-ID': String(before + 2) });
    const sentinel = await post(ben, family, 'in reach');
    expect((await inReach.eventsUntil(isMessage(sentinel.id))).map((e) => e.event)).toEqual([
      'notification',
      'message',
    ]);
  });

  it('closes the oldest stream when a user opens a sixth, telling it why and to wait a minute', async () => {
    const ana = await user();
    const family = await buildGroup(t.ctx, { members: [ana] });
    const streams: EventReader[] = [];
    for (let i = 0; i < 5; i += 1) streams.push(await server.open(ana.key));
    expect(eventStreamsOf(t.ctx)?.countOf(ana.user.id)).toBe(5);
    const sixth = await server.open(ana.key);
    // Its last words: a longer reconnection delay, so it does not come straight back and close another.
    expect(await streams[0]!.next()).toEqual({
      retry: '60000',
      event: 'closed',
      data: '{"reason":"too_many_streams"}',
      comments: [],
    });
    await streams[0]!.ended();
    expect(eventStreamsOf(t.ctx)?.countOf(ana.user.id)).toBe(5);
    const own = await post(ana, family, 'Everywhere');
    for (const stream of [...streams.slice(1), sixth]) {
      expect((await stream.eventsUntil(isMessage(own.id))).length).toBe(1);
    }
  });

  it('ends the streams when the key is reset; the old key then gets 401', async () => {
    const ana = await user();
    const stream = await server.open(ana.key);
    const res = await api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key });
    expect(res.status, res.text).toBe(200);
    await stream.ended();
    expectError(await server.refused(ana.key), 401, 'invalid_api_key');
    const renewed = await server.open(res.body.apiKey as string);
    expect(eventStreamsOf(t.ctx)?.countOf(ana.user.id)).toBe(1);
    renewed.close();
  });

  it('ends the streams when the account is deleted', async () => {
    const ana = await user();
    const stream = await server.open(ana.key);
    const res = await api.delete(`/users/${ana.user.id}`, { key: ana.key });
    expect(res.status, res.text).toBe(204);
    await stream.ended();
    expect(eventStreamsOf(t.ctx)?.countOf(ana.user.id)).toBe(0);
  });

  it('gives signed-in reads and each stream the newest event id, so a first stream knows what it missed', async () => {
    const ana = await user('Ana');
    const family = await buildGroup(t.ctx, { name: 'Family', members: [ana] });
    const idOf = (headers: Record<string, unknown>) => Number(headers['kith-event-id']);
    const read = await api.get('/me', { key: ana.key });
    expect(read.status).toBe(200);
    expect(idOf(read.headers)).toBe(t.ctx.events.lastId);
    // Anonymous reads and writes say nothing.
    expect((await api.get('/info')).headers['kith-event-id']).toBeUndefined();
    const first = await post(ana, family, 'Before the stream');
    await vi.waitFor(() => expect(t.ctx.events.lastId).toBeGreaterThan(idOf(read.headers)));

    // The stream starts after the post: the read above is older, so its reader must read again.
    const { controller, promise } = server.request(ana.key);
    const response = await promise;
    const reader = new EventReader(response, controller);
    try {
      const from = Number(response.headers.get('kith-event-id'));
      expect(from).toBeGreaterThan(idOf(read.headers));
      expect(from).toBe(t.ctx.events.lastId);
      // A read now is as new as the stream: nothing in between.
      expect(idOf((await api.get('/me', { key: ana.key })).headers)).toBe(from);
      const second = await post(ana, family, 'After');
      const seen = await reader.eventsUntil(isMessage(second.id));
      expect(seen.some(isMessage(first.id))).toBe(false);
      expect(seen.every((e) => e.id > from)).toBe(true);
    } finally {
      reader.close();
    }
  });

  it("forgets a browser's presence when its last stream closes, and refuses a malformed device", async () => {
    const ana = await user();
    const report = async (device: string) => {
      const res = await api.put('/me/presence', { key: ana.key, body: { device, focused: true } });
      expect(res.status, res.text).toBe(204);
    };
    const present = async () =>
      (
        await t.ctx.db.kysely
          .selectFrom('push_presence')
          .select('device')
          .where('user_id', '=', ana.user.id)
          .orderBy('device')
          .execute()
      ).map((row) => row.device);
    const open = () => eventStreamsOf(t.ctx)?.countOf(ana.user.id);
    await report('phone');
    await report('desk');
    await report('tablet');
    // A tab reloading: for a moment its browser has two streams.
    const phone = await server.open(ana.key, {}, '?device=phone');
    const reloaded = await server.open(ana.key, {}, '?device=phone');
    const desk = await server.open(ana.key, {}, '?device=desk');
    const unnamed = await server.open(ana.key);

    phone.close();
    await vi.waitFor(() => expect(open()).toBe(3));
    unnamed.close();
    await vi.waitFor(() => expect(open()).toBe(2));
    expect(await present()).toEqual(['desk', 'phone', 'tablet']);

    // The browser went without a word (closed, killed, its last report lost): the server forgets it.
    desk.close();
    await vi.waitFor(async () => expect(await present()).toEqual(['phone', 'tablet']));
    reloaded.close();
    await vi.waitFor(async () => expect(await present()).toEqual(['tablet']));

    for (const query of ['?device=a%20b', `?device=${'x'.repeat(65)}`, '?device=a&device=b']) {
      expectError(await server.refused(ana.key, {}, query), 400, 'invalid_field');
    }
    expect(open()).toBe(0);
  });

  it('does not refuse a person who reloads often: 40 opens within a minute all get a stream', async () => {
    const ana = await user();
    const family = await buildGroup(t.ctx, { members: [ana] });
    // Up to 30 in 10 minutes was once the limit: a normal browser session reached it twice.
    for (let i = 0; i < 40; i += 1) {
      (await server.open(ana.key)).close();
      t.clock.advance(1000);
    }
    const last = await server.open(ana.key);
    const own = await post(ana, family, 'Still live');
    expect((await last.eventsUntil(isMessage(own.id))).length).toBe(1);
  });

  it('still stops a runaway reconnection loop: 120 opens per 10 minutes, the 121st answers 429', async () => {
    const ana = await user();
    for (let i = 0; i < 120; i += 1) (await server.open(ana.key)).close();
    const res = await server.refused(ana.key);
    expectError(res, 429, 'too_many_requests');
    // The loop is told to wait until the window has room again (here: the whole 10 minutes).
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(9 * 60);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(10 * 60);
    // Another user is not affected.
    await server.open((await user()).key);
    // Ten minutes later the user may connect again.
    t.clock.advance(10 * 60_000 + 1000);
    await server.open(ana.key);
  });
});

describe('live event stream: timing and shutdown (docs/api §11.4)', () => {
  let t: TestApp;
  let api: ApiClient;
  let closed = false;
  const server = serve(() => t);

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    await server.listen();
  });
  afterAll(async () => {
    if (!closed) await t.close();
  });

  it('sends a ping comment at the set interval (25 s by default)', async () => {
    const streams = eventStreamsOf(t.ctx)!;
    expect(streams.options.pingIntervalMs).toBe(25_000);
    streams.options.pingIntervalMs = 50;
    try {
      const stream = await server.open((await buildUser(t.ctx)).key);
      const frame = await stream.next(2000);
      expect(frame).toEqual({ comments: ['ping'] });
    } finally {
      streams.options.pingIntervalMs = 25_000;
    }
  });

  it('closes a stream after its longest duration (1 hour by default)', async () => {
    const streams = eventStreamsOf(t.ctx)!;
    expect(streams.options.maxDurationMs).toBe(60 * 60_000);
    streams.options.maxDurationMs = 100;
    try {
      const ana = await buildUser(t.ctx);
      const stream = await server.open(ana.key);
      await stream.ended(2000);
      expect(streams.countOf(ana.user.id)).toBe(0);
    } finally {
      streams.options.maxDurationMs = 60 * 60_000;
    }
  });

  it('sends resync when the first missed event is more than 5 minutes old', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const family = await buildGroup(t.ctx, { members: [ana, ben] });
    const before = t.ctx.events.lastId;
    const missed = await post(ben, family, 'a while ago');
    t.clock.advance(4 * 60_000);
    const recent = await server.open(ana.key, { 'Last-Event-ID': String(before) });
    expect((await recent.eventsUntil(isMessage(missed.id))).map((e) => e.event)).toEqual(['notification', 'message']);
    t.clock.advance(60_000 + 1000);
    const late = await server.open(ana.key, { 'Last-Event-ID': String(before) });
    expect((await late.nextEvent()).event).toBe('resync');
  });

  it('ends every open stream at once when the app closes, telling it to come back at once', async () => {
    const stream = await server.open((await buildUser(t.ctx)).key);
    closed = true;
    await t.close();
    // Behind a balancer, the client reconnects to another process half a second later.
    expect(await stream.next(5000)).toEqual({ retry: '500', comments: [] });
    await stream.ended(5000);
  });

  async function post(author: BuiltUser, group: GroupRow, text: string) {
    const res = await api.post('/messages', { key: author.key, body: { group: group.id, data: { text } } });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string };
  }

  function isMessage(id: string) {
    return (e: Received) => e.event === 'message' && e.data.id === id;
  }
});
