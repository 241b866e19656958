import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../../../test/client.js';
import { CANNOT, expectError, UUID_V4, MAY_PIN, MESSAGE_KEYS, PREVIEW_KEYS, keysOf } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { TEST_DIALECT, useTestApp, type TestApp } from '../../../test/harness.js';
import { uploadPhotos } from '../../../test/uploads.js';
import type { GroupRow } from '../../db/rows.js';
import { apiKeyHash } from '../auth/api-keys.js';
import { findUserByApiKeyHash } from '../users/queries.js';
import { findCallerAndFrontPage, findCallerAndMessage, frontPageIds, memberFrontAndPins } from './queries.js';
import { messageAnswer } from './service.js';

/** Parsed JSON of an answer (the client types it loosely on purpose). */
type Json = ApiResponse['body'];
type Harness = { t: TestApp; api: ApiClient };

const SECOND = 1000;
const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A feed item (§11.1): a preview plus `truncated` and `unread`. */
const FEED_ITEM_KEYS = [...PREVIEW_KEYS, 'truncated', 'unread'].sort();

const EMPTY_MESSAGE_TEXT = 'The message is empty and cannot be sent.';

const userRef = (u: BuiltUser) => ({ id: u.user.id, entityType: 'user', name: u.user.name, avatar: null });
const groupRef = (g: GroupRow) => ({ id: g.id, entityType: 'group', name: g.name });
const messageRef = (id: string) => ({ id, entityType: 'message' });

/** Shared request helpers; `h` is filled in by useTestApp's beforeAll, so it is read lazily. */
function helpers(h: Harness) {
  const create = async (u: BuiltUser, body: Record<string, unknown>): Promise<Json> => {
    const res = await h.api.post('/messages', { key: u.key, body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const post = (u: BuiltUser, group: GroupRow, data: Record<string, unknown> = { text: 'Hello' }) =>
    create(u, { group: group.id, data });
  const reply = (u: BuiltUser, parent: Json, data: Record<string, unknown> = { text: 'A reply' }) =>
    create(u, { group: parent.group.id, parent: parent.id, data });
  const read = async (u: BuiltUser, id: string): Promise<Json> => {
    const res = await h.api.get(`/messages/${id}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const edit = async (u: BuiltUser, id: string, body: Record<string, unknown>): Promise<Json> => {
    const res = await h.api.put(`/messages/${id}`, { key: u.key, body });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const remove = async (u: BuiltUser, id: string): Promise<void> => {
    const res = await h.api.delete(`/messages/${id}`, { key: u.key });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
  };
  const publish = (u: BuiltUser, id: string) => edit(u, id, { isInFront: true });
  const page = async (u: BuiltUser, group: GroupRow, n: number | string = 0) => {
    const res = await h.api.get(`/groups/${group.id}/page/${n}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: string[]; totalItems: number };
  };
  const feed = async (u: BuiltUser, group: GroupRow, query = '') => {
    const res = await h.api.get(`/groups/${group.id}/feed${query}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as { messages: Json[]; totalItems: number; nextCursor: string | null };
  };
  const groupOf = async (u: BuiltUser, group: GroupRow): Promise<Json> => {
    const res = await h.api.get(`/groups/${group.id}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const notificationsOf = async (u: BuiltUser): Promise<Json[]> => {
    const res = await h.api.get('/me/notifications/200', { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as Json[];
  };
  /** Notifications of posts and replies are made after the commit: retry for up to 15 s (a busy machine). */
  const waitForNotification = async (u: BuiltUser, predicate: (n: Json) => boolean): Promise<Json> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = (await notificationsOf(u)).find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no matching notification for ${u.user.name}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const waitForTarget = (u: BuiltUser, type: string, target: string) =>
    waitForNotification(u, (n) => n.type === type && n.target === target);
  /**
   * Proves that nothing is still on its way: `author` posts in `group` and we wait until `recipient`
   * hears of it. Whatever an earlier request would have sent has been sent by then.
   */
  const sentinel = async (author: BuiltUser, recipient: BuiltUser, group: GroupRow): Promise<Json> => {
    const message = await post(author, group, { text: `sentinel ${randomUUID()}` });
    await waitForTarget(recipient, 'new_message', message.id);
    return message;
  };
  const tick = (ms = 10 * SECOND): number => {
    h.t.clock.advance(ms);
    return h.t.clock.now();
  };
  return {
    create,
    post,
    reply,
    read,
    edit,
    remove,
    publish,
    page,
    feed,
    groupOf,
    notificationsOf,
    waitForNotification,
    waitForTarget,
    sentinel,
    tick,
  };
}

describe('POST /api/messages (§6.1)', () => {
  const h = useTestApp();
  const { create, post, reply, read, remove, page, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let zed: BuiltUser;
  let family: GroupRow;
  let other: GroupRow;
  let elsewhere: GroupRow;

  beforeAll(async () => {
    const { t } = h;
    ana = await buildUser(t.ctx, { name: 'Ana' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    cleo = await buildUser(t.ctx, { name: 'Cleo' });
    zed = await buildUser(t.ctx, { name: 'Zed' });
    family = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben, cleo] });
    other = await buildGroup(t.ctx, { name: 'Other', members: [ana, cleo] });
    elsewhere = await buildGroup(t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  it('answers 201 with the full message object: the caller as author, dates from the server clock', async () => {
    const { api } = h;
    const now = tick();
    const sentId = randomUUID();
    const res = await api.post('/messages', {
      key: ana.key,
      body: {
        group: family.id,
        data: { title: 'Beach day', text: 'Look at this!' },
        files: [],
        // Fields that belong to the server (§1.3): all ignored.
        id: sentId,
        entityType: 'group',
        type: 'other',
        createdAt: 1234,
        lastActivityDate: 4102444800,
        author: { id: ben.user.id, entityType: 'user' },
        children: [{ id: randomUUID(), entityType: 'message' }],
        lineage: [randomUUID()],
        isInFront: false,
        isPublic: true,
        isDeleted: true,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(keysOf(res.body)).toEqual(MESSAGE_KEYS);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID_V4),
      entityType: 'message',
      type: 'standard',
      createdAt: seconds(now),
      lastActivityDate: seconds(now),
      data: { title: 'Beach day', text: 'Look at this!' },
      author: userRef(ana),
      group: groupRef(family),
      parent: null,
      lineage: [],
      children: [],
      files: [],
      preview: null,
      isInFront: true,
      isPublic: false,
      isDeleted: false,
      pinnedInGroup: false,
      reactions: [],
      mentions: [],
      can: { edit: true, delete: true, publish: false, pin: true },
    });
    expect(res.body.id).not.toBe(sentId);
    // What was answered is what was stored; another member may only pin it.
    expect(await read(ben, res.body.id)).toEqual({ ...res.body, can: MAY_PIN });
  });

  it('keeps data.no_embed and leaves out the data keys that were never set', async () => {
    const onlyText = await post(ana, family, { text: 'Only a text' });
    expect(onlyText.data).toEqual({ text: 'Only a text' });
    const noEmbed = await post(ana, family, { title: 'A link', no_embed: true });
    expect(noEmbed.data).toEqual({ title: 'A link', no_embed: true });
    expect((await read(ana, noEmbed.id)).data).toEqual({ title: 'A link', no_embed: true });
  });

  it('makes a reply with isInFront false, whatever the client sends', async () => {
    const parent = await post(ana, family);
    const answer = await create(ben, {
      group: family.id,
      parent: parent.id,
      data: { text: 'Me too' },
      isInFront: true,
    });
    expect(keysOf(answer)).toEqual(MESSAGE_KEYS);
    expect(answer.isInFront).toBe(false);
    expect(answer.author).toEqual(userRef(ben));
    expect(answer.parent).toEqual(messageRef(parent.id));
    expect(answer.lineage).toEqual([parent.id]);
    expect(answer.group).toEqual(groupRef(family));
    expect(answer.children).toEqual([]);
    expect((await read(ana, parent.id)).children).toEqual([messageRef(answer.id)]);
  });

  it('takes the group and the parent as a string or as {id}', async () => {
    const asObject = await create(ana, { group: { id: family.id, entityType: 'group' }, data: { text: 'x' } });
    expect(asObject.group).toEqual(groupRef(family));
    const replyByObject = await create(ben, {
      group: { id: family.id },
      parent: { id: asObject.id, entityType: 'message' },
      data: { text: 'y' },
    });
    expect(replyByObject.parent).toEqual(messageRef(asObject.id));
  });

  it('answers 400 missing_field (group) without a group', async () => {
    const { api } = h;
    for (const body of [
      { data: { text: 'x' } },
      { group: null, data: { text: 'x' } },
      { group: '', data: { text: 'x' } },
    ]) {
      expectError(await api.post('/messages', { key: ana.key, body }), 400, 'missing_field', 'group');
    }
  });

  it('answers 400 invalid_field (group) for a malformed group', async () => {
    const { api } = h;
    for (const group of ['not-a-uuid', 42, true, [family.id], { id: 'nope' }, { id: 7 }]) {
      const res = await api.post('/messages', { key: ana.key, body: { group, data: { text: 'x' } } });
      expectError(res, 400, 'invalid_field', 'group');
    }
  });

  it('answers 400 invalid_field for data, its keys or files of the wrong type', async () => {
    const { api } = h;
    const send = (body: Record<string, unknown>) =>
      api.post('/messages', { key: ana.key, body: { group: family.id, ...body } });
    expectError(await send({ data: 'text' }), 400, 'invalid_field', 'data');
    expectError(await send({ data: ['x'] }), 400, 'invalid_field', 'data');
    expectError(await send({ data: { title: 42 } }), 400, 'invalid_field', 'data.title');
    expectError(await send({ data: { text: ['x'] } }), 400, 'invalid_field', 'data.text');
    expectError(await send({ data: { text: 'x', no_embed: 'yes' } }), 400, 'invalid_field', 'data.no_embed');
    expectError(await send({ data: { text: 'x' }, files: 'abc' }), 400, 'invalid_field', 'files');
  });

  it('answers 404 for an unknown group and for a group the caller is not in, and creates nothing', async () => {
    const { api } = h;
    expectError(
      await api.post('/messages', { key: ana.key, body: { group: randomUUID(), data: { text: 'x' } } }),
      404,
      'not_found',
    );
    expectError(
      await api.post('/messages', { key: ana.key, body: { group: elsewhere.id, data: { text: 'x' } } }),
      404,
      'not_found',
    );
    expect((await page(zed, elsewhere)).totalItems).toBe(0);
  });

  it('answers 400 empty_message without title, text or files (blank counts as empty)', async () => {
    const { api } = h;
    const before = (await page(ana, family)).totalItems;
    const bodies = [
      { group: family.id },
      { group: family.id, data: {} },
      { group: family.id, data: { title: '', text: '' } },
      { group: family.id, data: { title: '   ', text: ' \n\t ' } },
      { group: family.id, data: { text: '  ' }, files: [] },
      { group: family.id, data: { title: null, text: null } },
    ];
    for (const body of bodies) {
      expectError(await api.post('/messages', { key: ana.key, body }), 400, 'empty_message', {
        message: EMPTY_MESSAGE_TEXT,
      });
    }
    expect((await page(ana, family)).totalItems).toBe(before);
  });

  it('accepts a title of 500 characters and refuses 501 with title_too_long (counted in UTF-16 units)', async () => {
    const { api } = h;
    expect((await post(ana, family, { title: 't'.repeat(500) })).data.title).toHaveLength(500);
    expect((await post(ana, family, { title: '😀'.repeat(250) })).data.title).toBe('😀'.repeat(250));
    for (const title of ['t'.repeat(501), `${'😀'.repeat(250)}x`]) {
      const res = await api.post('/messages', { key: ana.key, body: { group: family.id, data: { title } } });
      expectError(res, 400, 'title_too_long', 'data.title');
    }
  });

  it('accepts a text of 50000 characters and refuses 50001 with text_too_long (field data.text)', async () => {
    const { api } = h;
    expect((await post(ana, family, { text: 'x'.repeat(50000) })).data.text).toHaveLength(50000);
    expect((await post(ana, family, { text: '😀'.repeat(25000) })).data.text).toHaveLength(50000);
    for (const text of ['x'.repeat(50001), `${'😀'.repeat(25000)}x`]) {
      const res = await api.post('/messages', { key: ana.key, body: { group: family.id, data: { text } } });
      expectError(res, 400, 'text_too_long', 'data.text');
    }
  });

  it('refuses any file id with 400 invalid_file (no file is attachable yet)', async () => {
    const { api } = h;
    const before = (await page(ana, family)).totalItems;
    for (const files of [[randomUUID()], [{ id: randomUUID(), entityType: 'file' }]]) {
      const res = await api.post('/messages', { key: ana.key, body: { group: family.id, data: { text: 'x' }, files } });
      expectError(res, 400, 'invalid_file');
    }
    // Files alone do not make a message when they cannot be attached.
    const onlyFile = await api.post('/messages', { key: ana.key, body: { group: family.id, files: [randomUUID()] } });
    expectError(onlyFile, 400, 'invalid_file');
    expect((await page(ana, family)).totalItems).toBe(before);
  });

  it('refuses more than 200 files with too_many_files, counting duplicates once', async () => {
    const { api } = h;
    const many = Array.from({ length: 201 }, () => randomUUID());
    const res = await api.post('/messages', {
      key: ana.key,
      body: { group: family.id, data: { text: 'x' }, files: many },
    });
    expectError(res, 400, 'too_many_files');
    // 250 times the same id is one file: not too many, only not attachable.
    const same = randomUUID();
    const dup = await api.post('/messages', {
      key: ana.key,
      body: { group: family.id, data: { text: 'x' }, files: Array.from({ length: 250 }, () => same) },
    });
    expectError(dup, 400, 'invalid_file');
  });

  it('replies at any depth: parent {id, entityType}, lineage nearest first and root last', async () => {
    const root = await post(ana, family, { title: 'Root' });
    const first = await reply(ben, root);
    const second = await reply(cleo, first);
    const third = await reply(ana, second);
    expect(first.lineage).toEqual([root.id]);
    expect(second.parent).toEqual(messageRef(first.id));
    expect(second.lineage).toEqual([first.id, root.id]);
    expect(third.parent).toEqual(messageRef(second.id));
    expect(third.lineage).toEqual([second.id, first.id, root.id]);
    for (const m of [first, second, third]) expect(m.isInFront).toBe(false);
    const readThird = await read(ben, third.id);
    expect(readThird.lineage).toEqual([second.id, first.id, root.id]);
    expect((await read(ben, second.id)).children).toEqual([messageRef(third.id)]);
  });

  it('refuses a parent in another group with 400 invalid_parent, even one the caller can read', async () => {
    const { api } = h;
    const inOther = await post(ana, other, { text: 'In the other group' });
    const res = await api.post('/messages', {
      key: ana.key,
      body: { group: family.id, parent: inOther.id, data: { text: 'cross-group reply' } },
    });
    expectError(res, 400, 'invalid_parent');
    const foreign = await post(zed, elsewhere, { text: 'Not yours' });
    const res2 = await api.post('/messages', {
      key: ana.key,
      body: { group: family.id, parent: foreign.id, data: { text: 'reply to a stranger' } },
    });
    expectError(res2, 400, 'invalid_parent');
    expect((await read(ana, inOther.id)).children).toEqual([]);
  });

  it('refuses an unknown parent with 400 invalid_parent', async () => {
    const { api } = h;
    const res = await api.post('/messages', {
      key: ana.key,
      body: { group: family.id, parent: randomUUID(), data: { text: 'reply to nothing' } },
    });
    expectError(res, 400, 'invalid_parent');
  });

  it('refuses a deleted placeholder as parent with 400 invalid_parent', async () => {
    const { api } = h;
    const root = await post(ana, family);
    const middle = await reply(ben, root);
    await reply(cleo, middle);
    await remove(ben, middle.id);
    expect((await read(ana, middle.id)).isDeleted).toBe(true);
    const res = await api.post('/messages', {
      key: ana.key,
      body: { group: family.id, parent: middle.id, data: { text: 'reply to a placeholder' } },
    });
    expectError(res, 400, 'invalid_parent');
  });

  it('stores a " inside a URL as %22 and keeps it everywhere else (§1.10)', async () => {
    const message = await post(ana, family, {
      title: '"Quoted" https://t.example/"x"',
      text: 'He said "hi": https://example.com/a"b"c and http://x.test/"q" done\n[https://a.test/x"]"\nhttps://n.test/"\n"end"',
    });
    const expected = {
      title: '"Quoted" https://t.example/%22x%22',
      text: 'He said "hi": https://example.com/a%22b%22c and http://x.test/%22q%22 done\n[https://a.test/x%22]"\nhttps://n.test/%22\n"end"',
    };
    expect(message.data).toEqual(expected);
    expect((await read(ben, message.id)).data).toEqual(expected);
  });

  it('stores the title and text exactly as sent, leading and trailing spaces included', async () => {
    const data = { title: '  Spaced title  ', text: '\n  Some <b>text</b> & more \t\n' };
    const message = await post(ana, family, data);
    expect(message.data).toEqual(data);
    expect((await read(ben, message.id)).data).toEqual(data);
  });

  it('answers 401 without a key and with a bad key', async () => {
    const { api } = h;
    const body = { group: family.id, data: { text: 'x' } };
    expectError(await api.post('/messages', { body }), 401, 'auth_required');
    expectError(await api.post('/messages', { key: 'not-a-key', body }), 401, 'invalid_api_key');
  });
});

describe('Activity dates (§10.2)', () => {
  const h = useTestApp();
  const { post, reply, read, edit, page, groupOf, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
  });

  it('a post sets the group’s lastActivityDate to now', async () => {
    const now = tick();
    const message = await post(ana, group);
    expect(message.lastActivityDate).toBe(seconds(now));
    expect((await groupOf(ana, group)).lastActivityDate).toBe(seconds(now));
  });

  it('a reply moves every ancestor up to the root and the group to now, and the thread up the page', async () => {
    const aAt = tick();
    const a = await post(ana, group, { title: 'A' });
    tick();
    const b = await post(ana, group, { title: 'B' });
    tick();
    const c = await post(ana, group, { title: 'C' });
    expect((await page(ben, group)).messages.slice(0, 3)).toEqual([c.id, b.id, a.id]);

    tick();
    const first = await reply(ben, a);
    const siblingAt = tick();
    const sibling = await reply(ana, a);
    tick();
    const second = await reply(ana, first);
    const lastAt = tick();
    const third = await reply(ben, second);
    expect(third.lastActivityDate).toBe(seconds(lastAt));
    expect(third.createdAt).toBe(seconds(lastAt));

    for (const id of [a.id, first.id, second.id]) {
      expect((await read(ana, id)).lastActivityDate, id).toBe(seconds(lastAt));
    }
    // Creation dates stay; a reply that is not an ancestor stays where it was; other posts too.
    expect((await read(ana, a.id)).createdAt).toBe(seconds(aAt));
    expect((await read(ana, sibling.id)).lastActivityDate).toBe(seconds(siblingAt));
    expect((await read(ana, b.id)).lastActivityDate).toBe(b.lastActivityDate);
    expect((await groupOf(ben, group)).lastActivityDate).toBe(seconds(lastAt));
    expect((await page(ben, group)).messages.slice(0, 3)).toEqual([a.id, c.id, b.id]);
  });

  it('an edit changes no activity date, and the page order stays', async () => {
    const before = await page(ana, group);
    const groupBefore = (await groupOf(ana, group)).lastActivityDate;
    const last = before.messages.at(-1) as string;
    const oldest = await read(ana, last);
    tick();
    const edited = await edit(ana, last, { data: { text: 'Edited later' } });
    expect(edited.lastActivityDate).toBe(oldest.lastActivityDate);
    expect((await read(ana, last)).lastActivityDate).toBe(oldest.lastActivityDate);
    expect((await groupOf(ana, group)).lastActivityDate).toBe(groupBefore);
    expect((await page(ana, group)).messages).toEqual(before.messages);
  });

  it('editing a reply moves neither it nor its ancestors', async () => {
    const root = await post(ana, group);
    const child = await reply(ben, root);
    const rootBefore = (await read(ana, root.id)).lastActivityDate;
    tick();
    const edited = await edit(ben, child.id, { data: { text: 'Changed my mind' } });
    expect(edited.lastActivityDate).toBe(child.lastActivityDate);
    expect((await read(ana, root.id)).lastActivityDate).toBe(rootBefore);
  });
});

describe('GET /api/messages/{id} (§6.2)', () => {
  const h = useTestApp();
  const { post, reply, read, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;
  let root: Json;
  let first: Json;
  let second: Json;
  let nested: Json;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    root = await post(ana, group, { title: 'Root', text: 'Root text' });
    tick();
    first = await reply(ben, root, { text: 'First' });
    tick();
    second = await reply(ana, root, { text: 'Second' });
    tick();
    nested = await reply(ana, first, { text: 'Nested' });
  });

  it('answers a member the message with its direct replies, oldest first', async () => {
    const res = await h.api.get(`/messages/${root.id}`, { key: ben.key });
    expect(res.status).toBe(200);
    expect(keysOf(res.body)).toEqual(MESSAGE_KEYS);
    expect(res.body.children).toEqual([messageRef(first.id), messageRef(second.id)]);
    expect(res.body.data).toEqual({ title: 'Root', text: 'Root text' });
    expect(res.body.author).toEqual(userRef(ana));
    expect(res.body.group).toEqual(groupRef(group));
    expect(res.body.lineage).toEqual([]);
    expect(res.body.parent).toBeNull();
  });

  it('orders children by creation date, not by the order they were stored', async () => {
    const parent = await post(ana, group);
    tick(60 * SECOND);
    const later = await reply(ben, parent, { text: 'written later' });
    // The clock goes back: the next reply is older than the one stored before it.
    tick(-30 * SECOND);
    const earlier = await reply(ben, parent, { text: 'written earlier' });
    tick(60 * SECOND);
    expect(earlier.createdAt).toBeLessThan(later.createdAt);
    expect((await read(ana, parent.id)).children).toEqual([messageRef(earlier.id), messageRef(later.id)]);
  });

  it('gives a nested reply its parent and lineage', async () => {
    const body = await read(ben, nested.id);
    expect(body.parent).toEqual(messageRef(first.id));
    expect(body.lineage).toEqual([first.id, root.id]);
    expect(body.children).toEqual([]);
    expect((await read(ben, first.id)).children).toEqual([messageRef(nested.id)]);
  });

  it('lowercases the id in the path', async () => {
    expect((await read(ben, root.id.toUpperCase())).id).toBe(root.id);
  });

  it('answers 404 to a user who is not a member', async () => {
    expectError(await h.api.get(`/messages/${root.id}`, { key: zed.key }), 404, 'not_found');
  });

  it('answers 404 for an unknown id and for a path segment that is not a UUID', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '123', `${root.id}x`]) {
      expectError(await h.api.get(`/messages/${id}`, { key: ana.key }), 404, 'not_found');
    }
  });

  it('answers 401 without a key and with a bad key', async () => {
    expectError(await h.api.get(`/messages/${root.id}`), 401, 'auth_required');
    expectError(await h.api.get(`/messages/${root.id}`, { key: 'stale' }), 401, 'invalid_api_key');
  });
});

describe('PUT /api/messages/{id} (§6.3)', () => {
  const h = useTestApp();
  const { post, reply, read, edit, publish, page, groupOf, notificationsOf, waitForTarget, sentinel, tick } =
    helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;
  let quiet: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    // Sentinel posts go here, so they do not disturb the pages checked in `group`.
    quiet = await buildGroup(h.t.ctx, { name: 'Sentinels', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  it('lets the author replace data as a whole and answers the full message', async () => {
    const original = await post(ana, group, { title: 'Old title', text: 'Old text', no_embed: true });
    tick();
    const res = await h.api.put(`/messages/${original.id}`, {
      key: ana.key,
      body: { data: { text: 'New text' }, createdAt: 1, author: { id: ben.user.id } },
    });
    expect(res.status, res.text).toBe(200);
    expect(keysOf(res.body)).toEqual(MESSAGE_KEYS);
    expect(res.body).toEqual({ ...original, data: { text: 'New text' } });
    expect(await read(ben, original.id)).toEqual({ ...res.body, can: MAY_PIN });
  });

  it('leaves data alone when the body has no data', async () => {
    const original = await post(ana, group, { title: 'Keep me', text: 'And me' });
    const answer = await edit(ana, original.id, { files: [] });
    expect(answer.data).toEqual({ title: 'Keep me', text: 'And me' });
    expect(answer.files).toEqual([]);
  });

  it('answers 403 not_author to another member and changes nothing', async () => {
    const original = await post(ana, group, { text: 'Mine' });
    const res = await h.api.put(`/messages/${original.id}`, { key: ben.key, body: { data: { text: 'Hijacked' } } });
    expectError(res, 403, 'not_author');
    expect((await read(ana, original.id)).data).toEqual({ text: 'Mine' });
  });

  it('answers 404 to a non-member, and for unknown and malformed ids', async () => {
    const original = await post(ana, group, { text: 'Mine' });
    const body = { data: { text: 'x' } };
    expectError(await h.api.put(`/messages/${original.id}`, { key: zed.key, body }), 404, 'not_found');
    expectError(await h.api.put(`/messages/${randomUUID()}`, { key: ana.key, body }), 404, 'not_found');
    expectError(await h.api.put('/messages/nope', { key: ana.key, body }), 404, 'not_found');
    expect((await read(ana, original.id)).data).toEqual({ text: 'Mine' });
  });

  it('refuses an edit that leaves the message empty with empty_message, and changes nothing', async () => {
    const original = await post(ana, group, { title: 'Title', text: 'Text' });
    for (const data of [{}, { title: '', text: '' }, { title: '  ', text: '\n' }]) {
      const res = await h.api.put(`/messages/${original.id}`, { key: ana.key, body: { data } });
      expectError(res, 400, 'empty_message', { message: EMPTY_MESSAGE_TEXT });
    }
    expect((await read(ana, original.id)).data).toEqual({ title: 'Title', text: 'Text' });
  });

  it('checks the limits and the files on an edit', async () => {
    const original = await post(ana, group, { text: 'Text' });
    const put = (body: Record<string, unknown>) => h.api.put(`/messages/${original.id}`, { key: ana.key, body });
    expectError(await put({ data: { title: 't'.repeat(501) } }), 400, 'title_too_long', 'data.title');
    expectError(await put({ data: { text: 'x'.repeat(50001) } }), 400, 'text_too_long', 'data.text');
    expectError(await put({ files: [randomUUID()] }), 400, 'invalid_file');
    expectError(await put({ files: Array.from({ length: 201 }, () => randomUUID()) }), 400, 'too_many_files');
    expect((await read(ana, original.id)).data).toEqual({ text: 'Text' });
    expect((await edit(ana, original.id, { data: { title: 't'.repeat(500), text: 'x'.repeat(50000) } })).data).toEqual({
      title: 't'.repeat(500),
      text: 'x'.repeat(50000),
    });
  });

  it('encodes " inside URLs on an edit too, and keeps spaces', async () => {
    const original = await post(ana, group, { text: 'Text' });
    const answer = await edit(ana, original.id, { data: { title: ' "T" ', text: ' see https://e.test/"a" "b" ' } });
    expect(answer.data).toEqual({ title: ' "T" ', text: ' see https://e.test/%22a%22 "b" ' });
  });

  it('isInFront true on a reply publishes it: on the page, its date and the group’s become now, data kept', async () => {
    const parent = await post(ana, group, { title: 'Parent' });
    tick();
    const child = await reply(ana, parent, { title: 'Worth a post', text: 'Indeed' });
    const before = await page(ben, group);
    expect(before.messages).not.toContain(child.id);
    const now = tick();
    const res = await h.api.put(`/messages/${child.id}`, {
      key: ana.key,
      body: { isInFront: true, lastActivityDate: 1 },
    });
    expect(res.status, res.text).toBe(200);
    expect(keysOf(res.body)).toEqual(MESSAGE_KEYS);
    expect(res.body).toEqual({
      ...child,
      isInFront: true,
      lastActivityDate: seconds(now),
      can: { ...child.can, publish: false, pin: true },
    });
    expect((await groupOf(ben, group)).lastActivityDate).toBe(seconds(now));
    const after = await page(ben, group);
    expect(after.messages[0]).toBe(child.id);
    expect(after.totalItems).toBe(before.totalItems + 1);
    // Still a reply of its parent.
    expect((await read(ben, parent.id)).children).toEqual([messageRef(child.id)]);
  });

  it('publishing notifies no one', async () => {
    const parent = await post(ana, group, { title: 'Parent' });
    const child = await reply(ana, parent);
    await waitForTarget(ben, 'new_comment', child.id);
    const benBefore = await notificationsOf(ben);
    const anaBefore = await notificationsOf(ana);
    await publish(ana, child.id);
    const mark = await sentinel(ana, ben, quiet);
    const benAfter = await notificationsOf(ben);
    expect(benAfter).toHaveLength(benBefore.length + 1);
    expect(benAfter.filter((n: Json) => n.target !== mark.id)).toEqual(benBefore);
    expect(await notificationsOf(ana)).toEqual(anaBefore);
  });

  it('isInFront true on a post does nothing', async () => {
    const first = await post(ana, group, { text: 'first' });
    tick();
    const second = await post(ana, group, { text: 'second' });
    const groupBefore = (await groupOf(ana, group)).lastActivityDate;
    tick();
    const answer = await publish(ana, first.id);
    expect(answer).toEqual(first);
    expect((await groupOf(ana, group)).lastActivityDate).toBe(groupBefore);
    const order = (await page(ana, group)).messages;
    expect(order.indexOf(second.id)).toBeLessThan(order.indexOf(first.id));
  });

  it('isInFront false on a post is refused with invalid_field, and the post stays in front', async () => {
    const original = await post(ana, group);
    const res = await h.api.put(`/messages/${original.id}`, { key: ana.key, body: { isInFront: false } });
    expectError(res, 400, 'invalid_field', 'isInFront');
    expect((await read(ana, original.id)).isInFront).toBe(true);
    expect((await page(ana, group)).messages).toContain(original.id);
  });

  it('isInFront false on a published reply takes it off the page', async () => {
    const parent = await post(ana, group);
    const child = await reply(ben, parent, { text: 'Published for a while' });
    await publish(ben, child.id);
    expect((await page(ana, group)).messages).toContain(child.id);
    const total = (await page(ana, group)).totalItems;
    const answer = await edit(ben, child.id, { isInFront: false });
    expect(answer.isInFront).toBe(false);
    expect(answer.data).toEqual({ text: 'Published for a while' });
    const after = await page(ana, group);
    expect(after.messages).not.toContain(child.id);
    expect(after.totalItems).toBe(total - 1);
    expect((await read(ana, parent.id)).children).toEqual([messageRef(child.id)]);
  });

  it('answers 400 invalid_field for an isInFront that is not a boolean', async () => {
    const parent = await post(ana, group);
    const child = await reply(ana, parent);
    const res = await h.api.put(`/messages/${child.id}`, { key: ana.key, body: { isInFront: 'yes' } });
    expectError(res, 400, 'invalid_field', 'isInFront');
    expect((await read(ana, child.id)).isInFront).toBe(false);
  });

  it('only the author can publish a reply', async () => {
    const parent = await post(ana, group);
    const child = await reply(ana, parent);
    expectError(
      await h.api.put(`/messages/${child.id}`, { key: ben.key, body: { isInFront: true } }),
      403,
      'not_author',
    );
    expect((await read(ana, child.id)).isInFront).toBe(false);
  });

  it('ignores the client’s lastActivityDate: a post cannot be pinned to the top', async () => {
    const older = await post(ana, group, { text: 'older' });
    tick();
    const newer = await post(ana, group, { text: 'newer' });
    tick();
    const answer = await edit(ana, older.id, { data: { text: 'older, edited' }, lastActivityDate: 4102444800 });
    expect(answer.lastActivityDate).toBe(older.lastActivityDate);
    const pinned = await edit(ana, older.id, { isInFront: true, lastActivityDate: 4102444800 });
    expect(pinned.lastActivityDate).toBe(older.lastActivityDate);
    const order = (await page(ana, group)).messages;
    expect(order.indexOf(newer.id)).toBeLessThan(order.indexOf(older.id));
  });

  it('an edit notifies no one', async () => {
    const original = await post(ana, group, { title: 'Before' });
    await waitForTarget(ben, 'new_message', original.id);
    const benBefore = await notificationsOf(ben);
    const anaBefore = await notificationsOf(ana);
    await edit(ana, original.id, { data: { title: 'After' } });
    const mark = await sentinel(ana, ben, quiet);
    const benAfter = await notificationsOf(ben);
    expect(benAfter).toHaveLength(benBefore.length + 1);
    expect(benAfter.filter((n: Json) => n.target !== mark.id)).toEqual(benBefore);
    expect(await notificationsOf(ana)).toEqual(anaBefore);
  });

  it('answers 401 without a key', async () => {
    const original = await post(ana, group);
    expectError(await h.api.put(`/messages/${original.id}`, { body: { data: { text: 'x' } } }), 401, 'auth_required');
  });
});

describe('DELETE /api/messages/{id} (§6.4, §10.3)', () => {
  const h = useTestApp();
  const { post, reply, read, edit, remove, publish, page, feed, notificationsOf, waitForTarget, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;

  const bookmarkRows = async (messageIds: string[]): Promise<number> => {
    const row = await h.t.ctx.db.kysely
      .selectFrom('bookmarks')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('message_id', 'in', messageIds)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const bookmark = async (u: BuiltUser, messageId: string): Promise<Json> => {
    const res = await h.api.post('/bookmarks', { key: u.key, body: { message_id: messageId } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const bookmarksOf = async (u: BuiltUser): Promise<Json[]> => {
    const res = await h.api.get('/me/bookmarks', { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body as Json[];
  };
  const expectGone = async (u: BuiltUser, id: string) =>
    expectError(await h.api.get(`/messages/${id}`, { key: u.key }), 404, 'not_found');
  const mentions = (list: Json[], ids: string[]) =>
    list.filter((n: Json) => ids.includes(n.target) || ids.includes(n.fromMessage?.id));

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    cleo = await buildUser(h.t.ctx, { name: 'Cleo' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben, cleo] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  it('answers 403 not_author to another member and 404 to a non-member; the message stays', async () => {
    const message = await post(ana, group);
    expectError(await h.api.delete(`/messages/${message.id}`, { key: ben.key }), 403, 'not_author');
    expectError(await h.api.delete(`/messages/${message.id}`, { key: zed.key }), 404, 'not_found');
    expectError(await h.api.delete(`/messages/${randomUUID()}`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.delete('/messages/nope', { key: ana.key }), 404, 'not_found');
    expectError(await h.api.delete(`/messages/${message.id}`), 401, 'auth_required');
    expect((await read(ana, message.id)).id).toBe(message.id);
  });

  it('a top-level post goes with all its replies, published ones leave the page too', async () => {
    const root = await post(ana, group, { title: 'Whole thread' });
    const first = await reply(ben, root);
    const deep = await reply(cleo, first);
    const published = await reply(ana, root, { text: 'Published reply' });
    await publish(ana, published.id);
    const before = await page(ben, group);
    expect(before.messages).toEqual(expect.arrayContaining([root.id, published.id]));
    tick();
    await remove(ana, root.id);
    for (const id of [root.id, first.id, deep.id, published.id]) await expectGone(ben, id);
    const after = await page(ben, group);
    expect(after.totalItems).toBe(before.totalItems - 2);
    expect(after.messages).not.toContain(root.id);
    expect(after.messages).not.toContain(published.id);
  });

  it('a reply without replies is removed and leaves its parent’s children', async () => {
    const root = await post(ana, group);
    const child = await reply(ben, root);
    const stays = await reply(cleo, root);
    await remove(ben, child.id);
    await expectGone(ana, child.id);
    expect((await read(ana, root.id)).children).toEqual([messageRef(stays.id)]);
  });

  it('a reply with replies becomes a placeholder; its replies stay readable', async () => {
    const root = await post(ana, group);
    const middle = await reply(ben, root, { title: 'Gone soon', text: 'Secret words' });
    await publish(ben, middle.id);
    const below = await reply(cleo, middle, { text: 'My answer stays' });
    expect((await page(ana, group)).messages).toContain(middle.id);
    await remove(ben, middle.id);

    const placeholder = await read(ana, middle.id);
    expect(keysOf(placeholder)).toEqual(MESSAGE_KEYS);
    expect(placeholder).toEqual({
      ...middle,
      lastActivityDate: placeholder.lastActivityDate,
      data: {},
      author: null,
      files: [],
      preview: null,
      isInFront: false,
      isPublic: false,
      isDeleted: true,
      pinnedInGroup: false,
      children: [messageRef(below.id)],
      can: CANNOT,
    });
    expect((await read(ana, root.id)).children).toEqual([messageRef(middle.id)]);
    const answer = await read(ana, below.id);
    expect(answer.data).toEqual({ text: 'My answer stays' });
    expect(answer.parent).toEqual(messageRef(middle.id));
    expect(answer.lineage).toEqual([middle.id, root.id]);
    // Left out of the group page and the feed.
    expect((await page(ana, group)).messages).not.toContain(middle.id);
    expect((await feed(ana, group, '?limit=50')).messages.map((m: Json) => m.id)).not.toContain(middle.id);
  });

  it('a placeholder cannot be edited, published, deleted, replied to or bookmarked', async () => {
    const root = await post(ana, group);
    const middle = await reply(ben, root);
    await reply(cleo, middle);
    await remove(ben, middle.id);
    const put = (body: Record<string, unknown>) => h.api.put(`/messages/${middle.id}`, { key: ben.key, body });
    expectError(await put({ data: { text: 'I am back' } }), 403, 'not_author');
    expectError(await put({ isInFront: true }), 403, 'not_author');
    expectError(await h.api.delete(`/messages/${middle.id}`, { key: ben.key }), 403, 'not_author');
    const res = await h.api.post('/messages', {
      key: ana.key,
      body: { group: group.id, parent: middle.id, data: { text: 'To the void' } },
    });
    expectError(res, 400, 'invalid_parent');
    expectError(await h.api.post('/bookmarks', { key: ana.key, body: { message_id: middle.id } }), 404, 'not_found');
    const after = await read(ana, middle.id);
    expect(after.isDeleted).toBe(true);
    expect(after.data).toEqual({});
    expect(after.isInFront).toBe(false);
  });

  it('removing the last reply under placeholders removes them too, up the chain', async () => {
    const root = await post(ana, group);
    const a = await reply(ben, root);
    tick();
    const b = await reply(ben, a);
    tick();
    const c = await reply(cleo, b);
    tick();
    const d = await reply(cleo, a);
    await remove(ben, b.id); // has c: placeholder
    await remove(ben, a.id); // has b and d: placeholder
    expect((await read(ana, a.id)).isDeleted).toBe(true);
    expect((await read(ana, b.id)).isDeleted).toBe(true);

    await remove(cleo, c.id); // b is left without replies and goes; a still has d
    await expectGone(ana, c.id);
    await expectGone(ana, b.id);
    const aAfter = await read(ana, a.id);
    expect(aAfter.isDeleted).toBe(true);
    expect(aAfter.children).toEqual([messageRef(d.id)]);

    await remove(cleo, d.id); // a goes too
    await expectGone(ana, d.id);
    await expectGone(ana, a.id);
    const rootAfter = await read(ana, root.id);
    expect(rootAfter.isDeleted).toBe(false);
    expect(rootAfter.children).toEqual([]);
  });

  it('notifications about removed messages disappear from every recipient’s list', async () => {
    const root = await post(ana, group, { title: 'To be removed' });
    const child = await reply(ben, root);
    await waitForTarget(ben, 'new_message', root.id);
    await waitForTarget(cleo, 'new_message', root.id);
    await waitForTarget(ana, 'new_comment', child.id);
    await waitForTarget(cleo, 'new_comment', child.id);
    await remove(ana, root.id);
    for (const u of [ana, ben, cleo]) {
      expect(mentions(await notificationsOf(u), [root.id, child.id]), u.user.name).toEqual([]);
    }

    const keep = await post(ana, group, { title: 'Stays' });
    const gone = await reply(cleo, keep);
    await waitForTarget(ana, 'new_comment', gone.id);
    await waitForTarget(ben, 'new_comment', gone.id);
    await remove(cleo, gone.id);
    expect(mentions(await notificationsOf(ana), [gone.id])).toEqual([]);
    expect(mentions(await notificationsOf(ben), [gone.id])).toEqual([]);
    // The post itself is still there, and so is the news of it.
    expect((await notificationsOf(ben)).some((n: Json) => n.target === keep.id)).toBe(true);
  });

  it('a new placeholder loses the notifications that target it, and keeps those about its replies', async () => {
    const root = await post(ana, group, { title: 'Thread' });
    const middle = await reply(ben, root);
    const below = await reply(cleo, middle);
    await waitForTarget(ana, 'new_comment', middle.id);
    await waitForTarget(ana, 'new_comment', below.id);
    await remove(ben, middle.id);
    const list = await notificationsOf(ana);
    expect(list.filter((n: Json) => n.target === middle.id)).toEqual([]);
    const kept = list.filter((n: Json) => n.target === below.id);
    expect(kept).toHaveLength(1);
    expect(kept[0].fromMessage).toEqual(messageRef(middle.id));
  });

  it('bookmarks of removed messages and of new placeholders disappear', async () => {
    const root = await post(ana, group);
    const child = await reply(cleo, root);
    const second = await post(ana, group);
    const middle = await reply(ben, second);
    await reply(cleo, middle);
    await bookmark(ben, root.id);
    await bookmark(ben, child.id);
    await bookmark(cleo, middle.id);
    const kept = await bookmark(cleo, second.id);

    await remove(ana, root.id);
    await remove(ben, middle.id);
    expect(await bookmarkRows([root.id, child.id, middle.id])).toBe(0);
    const benList = (await bookmarksOf(ben)).map((b: Json) => b.message.id);
    expect(benList).not.toContain(root.id);
    expect(benList).not.toContain(child.id);
    expect((await bookmarksOf(cleo)).map((b: Json) => b.id)).toEqual([kept.id]);
  });

  it('a public link of a removed post, or of a new placeholder, stops working', async () => {
    const root = await post(ana, group);
    const middle = await reply(ben, root);
    await reply(cleo, middle);
    const tokens: string[] = [];
    for (const id of [root.id, middle.id]) {
      const res = await h.api.get(`/messages/${id}/get-public-link`, { key: cleo.key });
      expect(res.status, res.text).toBe(200);
      expect((await h.api.get(`/public/${res.body.token}`)).status).toBe(200);
      tokens.push(res.body.token);
    }
    await remove(ben, middle.id);
    expectError(await h.api.get(`/public/${tokens[1]}`), 404, 'not_found');
    expect((await read(ana, middle.id)).isPublic).toBe(false);
    expect((await h.api.get(`/public/${tokens[0]}`)).status).toBe(200);
    await remove(ana, root.id);
    expectError(await h.api.get(`/public/${tokens[0]}`), 404, 'not_found');
  });

  it('an edit before a delete does not matter: the author deletes the edited message', async () => {
    const message = await post(ana, group);
    await edit(ana, message.id, { data: { text: 'edited' } });
    await remove(ana, message.id);
    await expectGone(ana, message.id);
  });
});

describe('GET /api/messages/{id}/preview (§6.5)', () => {
  const h = useTestApp();
  const { post, reply, remove, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  it('answers the card shape of §2.5; children is the number of direct replies', async () => {
    const createdAt = tick();
    const root = await post(ana, group, { title: 'Card', text: 'Card text' });
    const lastAt = tick();
    const first = await reply(ben, root);
    await reply(ana, root);
    await reply(ana, first);
    const res = await h.api.get(`/messages/${root.id}/preview`, { key: ben.key });
    expect(res.status, res.text).toBe(200);
    expect(keysOf(res.body)).toEqual(PREVIEW_KEYS);
    expect(res.body).toEqual({
      id: root.id,
      entityType: 'message',
      type: 'standard',
      createdAt: seconds(createdAt),
      lastActivityDate: seconds(lastAt),
      data: { title: 'Card', text: 'Card text' },
      author: userRef(ana),
      group: groupRef(group),
      preview: null,
      children: 2,
      isInFront: true,
      isDeleted: false,
      pinnedInGroup: false,
      reactions: [],
      mentions: [],
    });
    const ofReply = await h.api.get(`/messages/${first.id}/preview`, { key: ana.key });
    expect(ofReply.body.children).toBe(1);
    expect(ofReply.body.isInFront).toBe(false);
  });

  it('shows a placeholder as deleted, without data or author', async () => {
    const root = await post(ana, group);
    const middle = await reply(ben, root);
    await reply(ana, middle);
    await remove(ben, middle.id);
    const res = await h.api.get(`/messages/${middle.id}/preview`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(keysOf(res.body)).toEqual(PREVIEW_KEYS);
    expect(res.body).toMatchObject({ data: {}, author: null, isDeleted: true, isInFront: false, children: 1 });
  });

  it('answers 404 to a non-member and for unknown ids, 401 without a key', async () => {
    const root = await post(ana, group);
    expectError(await h.api.get(`/messages/${root.id}/preview`, { key: zed.key }), 404, 'not_found');
    expectError(await h.api.get(`/messages/${randomUUID()}/preview`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get('/messages/xyz/preview', { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get(`/messages/${root.id}/preview`), 401, 'auth_required');
  });
});

describe('GET /api/groups/{id}/page/{page} (§5.4)', () => {
  const h = useTestApp();
  const { post, reply, remove, publish, page, edit, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let big: GroupRow;
  const posted: string[] = [];

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    big = await buildGroup(h.t.ctx, { name: 'Big', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    for (let i = 0; i < 31; i += 1) {
      tick(SECOND);
      posted.push((await post(i % 2 === 0 ? ana : ben, big, { text: `Post ${i}` })).id);
    }
  });

  it('answers 30 ids per page, newest activity first; page 1 has the rest; past the end is empty', async () => {
    const newestFirst = [...posted].reverse();
    const first = await page(ben, big, 0);
    expect(Object.keys(first).sort()).toEqual(['messages', 'totalItems']);
    expect(first).toEqual({ messages: newestFirst.slice(0, 30), totalItems: 31 });
    expect(await page(ben, big, 1)).toEqual({ messages: newestFirst.slice(30), totalItems: 31 });
    expect(await page(ben, big, 2)).toEqual({ messages: [], totalItems: 31 });
    expect(await page(ben, big, 1000)).toEqual({ messages: [], totalItems: 31 });
  });

  it('orders messages with the same activity date by id, highest first', async () => {
    const ties = await buildGroup(h.t.ctx, { name: 'Ties', members: [ana] });
    tick();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await post(ana, ties, { text: `same time ${i}` })).id);
    expect((await page(ana, ties)).messages).toEqual([...ids].sort().reverse());
  });

  it('answers the largest page number with an empty page, past the pins as well', async () => {
    const pinnedGroup = await buildGroup(h.t.ctx, { name: 'Pinned', members: [ana] });
    const only = await post(ana, pinnedGroup, { text: 'Pinned' });
    await edit(ana, only.id, { pinnedInGroup: true });
    // Its front position (29,999,999,970) is past a 32-bit integer: the offset is computed as a bigint.
    expect(await page(ana, pinnedGroup, 999_999_999)).toEqual({ messages: [], totalItems: 1 });
    expect(await page(ana, big, 999_999_999)).toEqual({ messages: [], totalItems: 31 });
    expect(await page(ana, pinnedGroup, 0)).toEqual({ messages: [only.id], totalItems: 1 });
  });

  it('answers 404 to a non-member of a group with pins, as to a group without', async () => {
    const pinnedGroup = await buildGroup(h.t.ctx, { name: 'Pinned too', members: [ana] });
    const only = await post(ana, pinnedGroup, { text: 'Pinned' });
    await edit(ana, only.id, { pinnedInGroup: true });
    for (const n of [0, 1]) {
      const res = await h.api.get(`/groups/${pinnedGroup.id}/page/${n}`, { key: zed.key });
      expectError(res, 404, 'not_found');
      expect(res.text).not.toContain(only.id);
    }
  });

  it('answers 400 invalid_field (page) for a page that is not an integer ≥ 0', async () => {
    for (const n of ['abc', '-1', '1.5', '1e2', ' ']) {
      expectError(
        await h.api.get(`/groups/${big.id}/page/${encodeURIComponent(n)}`, { key: ana.key }),
        400,
        'invalid_field',
        'page',
      );
    }
  });

  it('answers 404 to a non-member and for unknown or malformed groups, 401 without a key', async () => {
    expectError(await h.api.get(`/groups/${big.id}/page/0`, { key: zed.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${randomUUID()}/page/0`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get('/groups/big/page/0', { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${big.id}/page/0`), 401, 'auth_required');
  });

  it('lists published replies, and neither unpublished replies nor placeholders', async () => {
    const small = await buildGroup(h.t.ctx, { name: 'Small', members: [ana, ben] });
    const root = await post(ana, small);
    tick();
    const hidden = await reply(ben, root);
    tick();
    const shown = await reply(ben, root, { text: 'Shown' });
    await publish(ben, shown.id);
    tick();
    await reply(ana, shown);
    let listed = await page(ana, small);
    expect(listed.totalItems).toBe(2);
    expect([...listed.messages].sort()).toEqual([root.id, shown.id].sort());
    expect(listed.messages).not.toContain(hidden.id);

    await remove(ben, shown.id); // has a reply: becomes a placeholder
    listed = await page(ana, small);
    expect(listed).toEqual({ messages: [root.id], totalItems: 1 });
  });

  it('keeps totalItems equal to the front messages through posts, publishing and deleting whole threads', async () => {
    const kept = await buildGroup(h.t.ctx, { name: 'Counted', members: [ana, ben] });
    const counted = async (): Promise<number> => {
      const row = await h.t.ctx.db.kysely
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('group_id', '=', kept.id)
        .where('is_in_front', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    const expectTotal = async (n: number): Promise<void> => {
      expect((await page(ana, kept)).totalItems).toBe(n);
      expect(await counted()).toBe(n);
    };
    await expectTotal(0);
    const a = await post(ana, kept);
    const b = await post(ben, kept);
    await expectTotal(2);
    const r1 = await reply(ben, a);
    const r2 = await reply(ana, r1);
    await expectTotal(2);
    await publish(ben, r1.id);
    await publish(ana, r2.id);
    await expectTotal(4);
    await publish(ana, r2.id); // already in front: counted once
    await expectTotal(4);
    // Deleting a post takes its thread, published replies included.
    await remove(ana, a.id);
    await expectTotal(1);
    await remove(ben, b.id);
    await expectTotal(0);
    // Another group's count is its own.
    expect((await page(ana, big)).totalItems).toBe(31);
  });
});

describe('GET /api/groups/{id}/feed (§11.1)', () => {
  const h = useTestApp();
  const { post, reply, feed, waitForTarget, notificationsOf, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let zed: BuiltUser;
  let big: GroupRow;
  const posted: string[] = [];

  const markRead = async (u: BuiltUser, notification: Json) => {
    const res = await h.api.put(`/notifications/${notification.id}`, { key: u.key, body: { read: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.read).toBe(true);
  };
  const cardOf = async (u: BuiltUser, group: GroupRow, id: string): Promise<Json> => {
    const card = (await feed(u, group, '?limit=50')).messages.find((m: Json) => m.id === id);
    expect(card, `card ${id}`).toBeDefined();
    return card;
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    cleo = await buildUser(h.t.ctx, { name: 'Cleo' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    big = await buildGroup(h.t.ctx, { name: 'Big', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    for (let i = 0; i < 31; i += 1) {
      tick(SECOND);
      posted.push((await post(ana, big, { text: `Post ${i}` })).id);
    }
  });

  it('answers 30 cards by default, newest activity first, with totalItems and a nextCursor', async () => {
    const newestFirst = [...posted].reverse();
    const first = await feed(ben, big);
    expect(Object.keys(first).sort()).toEqual(['messages', 'nextCursor', 'totalItems']);
    expect(first.messages.map((m: Json) => m.id)).toEqual(newestFirst.slice(0, 30));
    expect(first.totalItems).toBe(31);
    expect(typeof first.nextCursor).toBe('string');
    const second = await feed(ben, big, `?cursor=${encodeURIComponent(first.nextCursor as string)}`);
    expect(second.messages.map((m: Json) => m.id)).toEqual(newestFirst.slice(30));
    expect(second.totalItems).toBe(31);
    expect(second.nextCursor).toBeNull();
  });

  it('takes a limit from 1 to 50', async () => {
    const newestFirst = [...posted].reverse();
    const one = await feed(ben, big, '?limit=1');
    expect(one.messages.map((m: Json) => m.id)).toEqual(newestFirst.slice(0, 1));
    expect(one.nextCursor).not.toBeNull();
    const all = await feed(ben, big, '?limit=50');
    expect(all.messages.map((m: Json) => m.id)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
  });

  it('answers 400 invalid_field (limit) for a limit outside 1–50 or not a number', async () => {
    for (const limit of ['0', '51', 'x', '-1', '1.5']) {
      expectError(
        await h.api.get(`/groups/${big.id}/feed?limit=${limit}`, { key: ben.key }),
        400,
        'invalid_field',
        'limit',
      );
    }
  });

  it('items are cards with truncated: text cut to 1000 characters when longer', async () => {
    const cards = await buildGroup(h.t.ctx, { name: 'Cards', members: [ana, ben] });
    const long = 'abcdefghij'.repeat(100) + 'LONGER';
    const exact = 'x'.repeat(1000);
    tick();
    const longPost = await post(ana, cards, { title: 'Long one', text: long });
    tick();
    const exactPost = await post(ana, cards, { text: exact });
    tick();
    const titleOnly = await post(ana, cards, { title: 'No text' });
    const items = (await feed(ana, cards)).messages;
    expect(items.map((m: Json) => m.id)).toEqual([titleOnly.id, exactPost.id, longPost.id]);
    for (const item of items) expect(keysOf(item)).toEqual(FEED_ITEM_KEYS);
    expect(items[2]).toEqual({
      id: longPost.id,
      entityType: 'message',
      type: 'standard',
      createdAt: longPost.createdAt,
      lastActivityDate: longPost.lastActivityDate,
      data: { title: 'Long one', text: long.slice(0, 1000) },
      author: userRef(ana),
      group: groupRef(cards),
      preview: null,
      children: 0,
      isInFront: true,
      isDeleted: false,
      pinnedInGroup: false,
      reactions: [],
      mentions: [],
      truncated: true,
      unread: false,
    });
    expect(items[1].data).toEqual({ text: exact });
    expect(items[1].truncated).toBe(false);
    expect(items[0].data).toEqual({ title: 'No text' });
    expect(items[0].truncated).toBe(false);
    // The message itself keeps its whole text.
    expect((await h.api.get(`/messages/${longPost.id}`, { key: ben.key })).body.data.text).toBe(long);
  });

  it('marks a card unread while the caller’s new_message or new_comment about it is unread', async () => {
    const news = await buildGroup(h.t.ctx, { name: 'News', members: [ana, ben, cleo] });
    const root = await post(ana, news, { title: 'News' });
    const aboutPost = await waitForTarget(ben, 'new_message', root.id);
    expect((await cardOf(ben, news, root.id)).unread).toBe(true);
    expect((await cardOf(ana, news, root.id)).unread).toBe(false);
    await markRead(ben, aboutPost);
    expect((await cardOf(ben, news, root.id)).unread).toBe(false);

    // A reply below the card marks it again, for everyone but the one who replied.
    tick();
    const child = await reply(cleo, root);
    const deeper = await reply(ana, child);
    const aboutChild = await waitForTarget(ben, 'new_comment', child.id);
    const aboutDeeper = await waitForTarget(ben, 'new_comment', deeper.id);
    expect((await cardOf(ben, news, root.id)).unread).toBe(true);
    await markRead(ben, aboutChild);
    expect((await cardOf(ben, news, root.id)).unread).toBe(true);
    await markRead(ben, aboutDeeper);
    expect((await cardOf(ben, news, root.id)).unread).toBe(false);

    // Ana's new_comment about Cleo's reply is unread.
    await waitForTarget(ana, 'new_comment', child.id);
    expect((await cardOf(ana, news, root.id)).unread).toBe(true);
    for (const n of await notificationsOf(ana)) await markRead(ana, n);
    expect((await cardOf(ana, news, root.id)).unread).toBe(false);
  });

  it('after a read-all, marks only what is newer, or marked unread again one by one', async () => {
    const club = await buildGroup(h.t.ctx, { name: 'Club', members: [ana, ben] });
    const older = await post(ana, club, { title: 'Older' });
    const aboutOlder = await waitForTarget(ben, 'new_message', older.id);
    tick();
    const res = await h.api.post('/me/notifications/read-all', { key: ben.key, body: {} });
    expect(res.status, res.text).toBe(200);
    expect((await cardOf(ben, club, older.id)).unread).toBe(false);

    tick();
    const newer = await post(ana, club, { title: 'Newer' });
    await waitForTarget(ben, 'new_message', newer.id);
    expect((await cardOf(ben, club, newer.id)).unread).toBe(true);
    expect((await cardOf(ben, club, older.id)).unread).toBe(false);

    // Older than the read-all, marked unread by hand: its card is unread again.
    const again = await h.api.put(`/notifications/${aboutOlder.id}`, { key: ben.key, body: { read: false } });
    expect(again.status, again.text).toBe(200);
    expect((await cardOf(ben, club, older.id)).unread).toBe(true);
    expect((await cardOf(ben, club, newer.id)).unread).toBe(true);
  });

  it('pages by cursor: every card exactly once, even when a card of an earlier page moves up', async () => {
    const paging = await buildGroup(h.t.ctx, { name: 'Paging', members: [ana, ben] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      tick();
      ids.push((await post(ana, paging, { text: `p${i}` })).id);
    }
    const [p0, p1, p2, p3, p4] = ids as [string, string, string, string, string];
    const first = await feed(ben, paging, '?limit=2');
    expect(first.messages.map((m: Json) => m.id)).toEqual([p4, p3]);
    expect(first.nextCursor).not.toBeNull();

    tick();
    await reply(ben, { id: p3, group: { id: paging.id } }); // p3 moves to the top
    const second = await feed(ben, paging, `?limit=2&cursor=${encodeURIComponent(first.nextCursor as string)}`);
    expect(second.messages.map((m: Json) => m.id)).toEqual([p2, p1]);
    expect(second.nextCursor).not.toBeNull();
    const third = await feed(ben, paging, `?limit=2&cursor=${encodeURIComponent(second.nextCursor as string)}`);
    expect(third.messages.map((m: Json) => m.id)).toEqual([p0]);
    expect(third.nextCursor).toBeNull();

    const seen = [first, second, third].flatMap((p) => p.messages.map((m: Json) => m.id as string));
    expect(seen).toHaveLength(5);
    expect([...seen].sort()).toEqual([...ids].sort());
    // A fresh first page shows the move.
    expect((await feed(ben, paging, '?limit=2')).messages.map((m: Json) => m.id)).toEqual([p3, p4]);
  });

  it('gives nextCursor null on a last page that is exactly full', async () => {
    const even = await buildGroup(h.t.ctx, { name: 'Even', members: [ana] });
    for (let i = 0; i < 4; i += 1) {
      tick();
      await post(ana, even, { text: `e${i}` });
    }
    const first = await feed(ana, even, '?limit=2');
    expect(first.nextCursor).not.toBeNull();
    const second = await feed(ana, even, `?limit=2&cursor=${encodeURIComponent(first.nextCursor as string)}`);
    expect(second.messages).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    expect(second.totalItems).toBe(4);
  });

  it('answers 400 invalid_field (cursor) for a cursor that cannot be read', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    for (const cursor of ['not a cursor!', 'x', b64('hello'), b64('123.not-an-id'), b64(`abc.${randomUUID()}`)]) {
      expectError(
        await h.api.get(`/groups/${big.id}/feed?cursor=${encodeURIComponent(cursor)}`, { key: ben.key }),
        400,
        'invalid_field',
        'cursor',
      );
    }
  });

  it('answers 404 to a non-member and for unknown groups, 401 without a key', async () => {
    expectError(await h.api.get(`/groups/${big.id}/feed`, { key: zed.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${randomUUID()}/feed`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get('/groups/nope/feed', { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${big.id}/feed`), 401, 'auth_required');
  });
});

describe('GET /api/groups/{id}/random (§5.5)', () => {
  const h = useTestApp();
  const { post, reply, publish, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  it('answers 204 with an empty body for a group without front messages', async () => {
    const empty = await buildGroup(h.t.ctx, { name: 'Empty', members: [ana] });
    const res = await h.api.get(`/groups/${empty.id}/random`, { key: ana.key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('answers one of the front messages, never an unpublished reply', async () => {
    const first = await post(ana, group, { text: 'first' });
    tick();
    const second = await post(ben, group, { text: 'second' });
    tick();
    const hidden = await reply(ben, first, { text: 'hidden' });
    const shown = await reply(ana, second, { text: 'shown' });
    await publish(ana, shown.id);
    const front = [first.id, second.id, shown.id];
    const seen = new Set<string>();
    for (let i = 0; i < 40; i += 1) {
      const res = await h.api.get(`/groups/${group.id}/random`, { key: ben.key });
      expect(res.status, res.text).toBe(200);
      expect(keysOf(res.body)).toEqual(MESSAGE_KEYS);
      expect(front).toContain(res.body.id);
      expect(res.body.id).not.toBe(hidden.id);
      seen.add(res.body.id);
    }
    // Uniform among three: each shows up in 40 draws (missing one has odds of about 1 in 10 million).
    expect([...seen].sort()).toEqual([...front].sort());
  });

  it('answers 404 to a non-member and for unknown groups, 401 without a key', async () => {
    expectError(await h.api.get(`/groups/${group.id}/random`, { key: zed.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${randomUUID()}/random`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${group.id}/random`), 401, 'auth_required');
  });
});

describe('Message notifications (§10.1, §2.7)', () => {
  const h = useTestApp();
  const { post, reply, publish, notificationsOf, waitForTarget, tick } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let dan: BuiltUser;
  let group: GroupRow;

  const noneAbout = async (u: BuiltUser, target: string) =>
    expect((await notificationsOf(u)).filter((n: Json) => n.target === target)).toEqual([]);

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    cleo = await buildUser(h.t.ctx, { name: 'Cleo' });
    dan = await buildUser(h.t.ctx, { name: 'Dan' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben, cleo, dan] });
    const left = await h.api.post(`/groups/${group.id}/leave`, { key: dan.key });
    expect(left.status, left.text).toBe(200);
  });

  it('a post sends new_message to every other member, with target and fromMessage the post', async () => {
    const now = tick();
    const message = await post(ana, group, { title: 'Beach day', text: 'Look at this!' });
    for (const u of [ben, cleo]) {
      const n = await waitForTarget(u, 'new_message', message.id);
      expect(n).toEqual({
        id: expect.stringMatching(UUID_V4),
        entityType: 'notification',
        type: 'new_message',
        createdAt: seconds(now),
        read: false,
        target: message.id,
        data: {},
        fromUser: userRef(ana),
        fromGroup: groupRef(group),
        fromMessage: messageRef(message.id),
        title: 'Beach day',
        parentAuthorName: '',
        miniature: null,
      });
      // The single GET gives the same object (the 0.5.6 client reads each item again).
      const one = await h.api.get(`/notifications/${n.id}`, { key: u.key });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(n);
    }
    // All recipients are notified together: the author and the member who left are not among them.
    await noneAbout(ana, message.id);
    await noneAbout(dan, message.id);
  });

  it('without a title, the notification title is the start of the text, at most 100 characters', async () => {
    const text = 'abcdefghij'.repeat(15);
    const long = await post(ana, group, { text });
    expect((await waitForTarget(ben, 'new_message', long.id)).title).toBe(text.slice(0, 100));
    const short = await post(ana, group, { text: 'Short text' });
    expect((await waitForTarget(ben, 'new_message', short.id)).title).toBe('Short text');
  });

  it('a reply sends new_comment: target the reply, fromMessage the parent, the parent’s author name', async () => {
    const root = await post(ana, group, { title: 'Picnic', text: 'Sunday?' });
    const now = tick();
    const first = await reply(ben, root, { title: 'Count me in', text: 'Yes!' });
    for (const u of [ana, cleo]) {
      const n = await waitForTarget(u, 'new_comment', first.id);
      expect(n).toEqual({
        id: expect.stringMatching(UUID_V4),
        entityType: 'notification',
        type: 'new_comment',
        createdAt: seconds(now),
        read: false,
        target: first.id,
        data: {},
        fromUser: userRef(ben),
        fromGroup: groupRef(group),
        fromMessage: messageRef(root.id),
        title: 'Picnic',
        parentAuthorName: 'Ana',
        miniature: null,
      });
    }
    await noneAbout(ben, first.id);
    await noneAbout(dan, first.id);

    // Deeper: the title is still the one of the nearest front ancestor (the post), the parent is Ben's.
    const second = await reply(cleo, first, { text: 'Me too' });
    for (const u of [ana, ben]) {
      const n = await waitForTarget(u, 'new_comment', second.id);
      expect(n.fromMessage).toEqual(messageRef(first.id));
      expect(n.fromUser).toEqual(userRef(cleo));
      expect(n.parentAuthorName).toBe('Ben');
      expect(n.title).toBe('Picnic');
    }
    await noneAbout(cleo, second.id);
  });

  it('the title comes from a published reply when it is the nearest front ancestor', async () => {
    const root = await post(ana, group, { title: 'Outer' });
    const inner = await reply(ben, root, { title: 'Inner', text: 'Published reply' });
    await publish(ben, inner.id);
    const below = await reply(cleo, inner, { text: 'Under the published reply' });
    const n = await waitForTarget(ana, 'new_comment', below.id);
    expect(n.title).toBe('Inner');
    expect(n.fromMessage).toEqual(messageRef(inner.id));
  });

  it('a member who left is not notified, and nobody is notified of their own action', async () => {
    const byBen = await post(ben, group, { text: 'From Ben' });
    await waitForTarget(ana, 'new_message', byBen.id);
    await waitForTarget(cleo, 'new_message', byBen.id);
    await noneAbout(ben, byBen.id);
    const danList = await notificationsOf(dan);
    expect(danList.filter((n: Json) => n.type === 'new_message' || n.type === 'new_comment')).toEqual([]);
  });
});

describe('Authors who left stay visible (§1.8, §10.5)', () => {
  const h = useTestApp();
  const { post, read, notificationsOf, waitForTarget } = helpers(h);

  it('a leaver keeps their name on their messages; members still see their profile, strangers do not', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const dan = await buildUser(t.ctx, { name: 'Dan' });
    const zed = await buildUser(t.ctx, { name: 'Zed' });
    const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, dan] });
    const message = await post(dan, group, { text: 'Before I go' });
    await waitForTarget(ana, 'new_message', message.id);
    expect((await api.post(`/groups/${group.id}/leave`, { key: dan.key })).status).toBe(200);

    const after = await read(ana, message.id);
    expect(after.author).toEqual(userRef(dan));
    // Ana drops every notification from Dan: only "author of a readable message" is left.
    for (const n of await notificationsOf(ana)) {
      expect((await api.delete(`/notifications/${n.id}`, { key: ana.key })).status).toBe(204);
    }
    const profile = await api.get(`/users/${dan.user.id}`, { key: ana.key });
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body).toEqual(userRef(dan));
    expectError(await api.get(`/users/${dan.user.id}`, { key: zed.key }), 404, 'not_found');
  });
});

describe('Account deletion keeps the messages (§10.4)', () => {
  const h = useTestApp();
  const { post, reply, read, page, waitForTarget } = helpers(h);

  it('after DELETE /api/users/{id}, the user’s messages stay with author null', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const eve = await buildUser(t.ctx, { name: 'Eve' });
    const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, eve] });
    const own = await post(eve, group, { title: 'Mine', text: 'Eve wrote this' });
    const anas = await post(ana, group, { title: 'Ana’s' });
    const answer = await reply(eve, anas, { text: 'Eve replied' });
    await waitForTarget(ana, 'new_message', own.id);

    expect((await api.delete(`/users/${eve.user.id}`, { key: eve.key })).status).toBe(204);

    const ownAfter = await read(ana, own.id);
    expect(ownAfter.author).toBeNull();
    expect(ownAfter.data).toEqual({ title: 'Mine', text: 'Eve wrote this' });
    expect(ownAfter.isDeleted).toBe(false);
    const replyAfter = await read(ana, answer.id);
    expect(replyAfter.author).toBeNull();
    expect(replyAfter.data).toEqual({ text: 'Eve replied' });
    expect((await read(ana, anas.id)).children).toEqual([messageRef(answer.id)]);
    const preview = await api.get(`/messages/${own.id}/preview`, { key: ana.key });
    expect(preview.body.author).toBeNull();
    expect((await page(ana, group)).messages).toContain(own.id);
    const n = await waitForTarget(ana, 'new_message', own.id);
    expect(n.fromUser).toBeNull();
    expect(n.miniature).toBeNull();
    expectError(await api.get(`/users/${eve.user.id}`, { key: ana.key }), 404, 'not_found');
  });

  it('a reply to a message whose author is gone notifies with an empty parentAuthorName', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const ben = await buildUser(t.ctx, { name: 'Ben' });
    const eve = await buildUser(t.ctx, { name: 'Eve' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [ana, ben, eve] });
    const own = await post(eve, group, { title: 'Orphan' });
    expect((await api.delete(`/users/${eve.user.id}`, { key: eve.key })).status).toBe(204);
    const answer = await reply(ana, own, { text: 'Still here' });
    const n = await waitForTarget(ben, 'new_comment', answer.id);
    expect(n.fromMessage).toEqual(messageRef(own.id));
    expect(n.parentAuthorName).toBe('');
    expect(n.title).toBe('Orphan');
  });
});

describe('GET /api/messages/{id}: the answer read with the access check (issue 23)', () => {
  const h = useTestApp();
  const { post, reply, read, tick } = helpers(h);

  it('answers what the answer’s separate reads give: children, files, reactions, mentions; 404 to an outsider', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const ben = await buildUser(h.t.ctx, { name: 'Ben' });
    const cleo = await buildUser(h.t.ctx, { name: 'Cléo' });
    const zed = await buildUser(h.t.ctx, { name: 'Zed' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben, cleo] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    const photos = await uploadPhotos(h.t, ana.key, ['#3a7', '#a37']);
    const created = await h.api.post('/messages', {
      key: ana.key,
      body: { group: group.id, data: { text: '@Ben look' }, files: [...photos].reverse(), mentions: [ben.user.id] },
    });
    expect(created.status, created.text).toBe(201);
    const root = created.body;
    tick();
    const first = await reply(ben, root);
    tick();
    const second = await reply(cleo, root);
    for (const [u, reaction] of [
      [ben, '👍'],
      [cleo, '❤️'],
    ] as const) {
      const res = await h.api.post(`/messages/${root.id}/reactions`, { key: u.key, body: { reaction } });
      expect(res.status, res.text).toBe(200);
    }

    const answer = await read(ben, root.id as string);
    expect(answer.children.map((c: Json) => c.id)).toEqual([first.id, second.id]);
    expect(answer.files.map((f: Json) => [f.id, f.fileIndex])).toEqual([
      [photos[1], 0],
      [photos[0], 1],
    ]);
    expect(answer.mentions).toHaveLength(1);
    expect(answer.mentions[0]).toMatchObject({ id: ben.user.id });
    expect(answer.reactions).toHaveLength(2);
    // The same as the answer built from a read for each part (the path of every other answer).
    const separately = await messageAnswer(h.t.ctx, root.id as string, ben.user);
    expect(answer).toEqual(JSON.parse(JSON.stringify(separately)));

    const outsider = await h.api.get(`/messages/${root.id}`, { key: zed.key });
    expectError(outsider, 404, 'not_found');
    expect(outsider.text).not.toContain(first.id);
    // A post without any of them answers empty lists, not nulls.
    const plain = await post(cleo, group, { text: 'Plain' });
    expect(await read(ana, plain.id as string)).toMatchObject({ children: [], files: [], reactions: [], mentions: [] });
  });
});

describe('GET /api/messages/{id}: the caller read with the message (issue 23)', () => {
  const h = useTestApp();
  const { post, reply } = helpers(h);

  it('answers 401 for a key that is not live or of a disabled account, before anything about the message', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const dee = await buildUser(h.t.ctx, { name: 'Dee' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, dee] });
    const message = await post(ana, group, { text: 'Hello' });
    for (const id of [message.id, randomUUID(), 'xyz']) {
      expectError(await h.api.get(`/messages/${id}`, { key: 'x'.repeat(43) }), 401, 'invalid_api_key');
      expectError(await h.api.get(`/messages/${id}`, { key: 'x'.repeat(300) }), 401, 'invalid_api_key');
      expectError(await h.api.get(`/messages/${id}`), 401, 'auth_required');
    }
    await h.t.ctx.db.kysely
      .updateTable('users')
      .set({ disabled_at: h.t.clock.now() })
      .where('id', '=', dee.user.id)
      .execute();
    for (const id of [message.id, randomUUID(), 'xyz']) {
      expectError(await h.api.get(`/messages/${id}`, { key: dee.key }), 401, 'account_disabled');
    }
    // A live key: 404 for unknown and malformed ids, and for an uppercase id, the message.
    expectError(await h.api.get(`/messages/${randomUUID()}`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get('/messages/xyz', { key: ana.key }), 404, 'not_found');
    const upper = await h.api.get(`/messages/${String(message.id).toUpperCase()}`, { key: ana.key });
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.id).toBe(message.id);
  });

  it('sets what the authentication hook sets: the newest event id and the media cookie; the same answer', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const ben = await buildUser(h.t.ctx, { name: 'Ben' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    const message = await post(ana, group, { text: 'Hello' });
    await reply(ben, message, { text: 'Hi' });
    // The post's events may still be arriving: the id is one the server had while answering.
    const before = h.t.ctx.events.lastId;
    const res = await h.api.get(`/messages/${message.id}`, { key: ben.key });
    expect(res.status, res.text).toBe(200);
    const eventId = Number(res.headers['kith-event-id']);
    expect(eventId).toBeGreaterThanOrEqual(before);
    expect(eventId).toBeLessThanOrEqual(h.t.ctx.events.lastId);
    // The media cookie of a request read through the hook, for the same user and time.
    const me = await h.api.get('/me', { key: ben.key });
    expect(me.headers['set-cookie']).toBeDefined();
    expect(res.headers['set-cookie']).toEqual(me.headers['set-cookie']);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(await messageAnswer(h.t.ctx, message.id as string, ben.user))));
    // HEAD runs the same route: the caller is read the same way.
    const head = await h.api.request('HEAD', `/messages/${message.id}`, { key: ben.key });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expectError(await h.api.get(`/messages/${message.id}`, { key: 'y'.repeat(43) }), 401, 'invalid_api_key');
    expect((await h.api.request('HEAD', `/messages/${message.id}`, { key: 'y'.repeat(43) })).status).toBe(401);
  });

  it('reads the caller as the key lookup does (PostgreSQL reads them in one statement)', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana] });
    const message = await post(ana, group, { text: 'Hello' });
    // Every column set, nullable ones included, so that each comes back as the driver reads it.
    await h.t.ctx.db.kysely
      .updateTable('users')
      .set({
        avatar_id: null,
        notification_emails: 'weekly',
        lang: 'fr',
        theme: 'dark',
        default_page: 'feed',
        push_notifications: 'none',
        quiet_hours: '22:00-07:00',
        time_zone: 'Europe/Paris',
        push_cursor: 1_700_000_000_123,
        mention_emails: 'immediately',
        notifications_read_until: 1_700_000_000_456,
      })
      .where('id', '=', ana.user.id)
      .execute();
    if (h.t.ctx.db.dialect !== 'postgres') return;
    const hash = apiKeyHash(ana.key);
    const { caller, found } = await findCallerAndMessage(h.t.ctx.db.kysely, hash, message.id as string);
    expect(caller).toEqual(await findUserByApiKeyHash(h.t.ctx.db.kysely, hash));
    expect(found?.message.id).toBe(message.id);
    expect((await findCallerAndMessage(h.t.ctx.db.kysely, hash, randomUUID())).found).toBeUndefined();
    expect(await findCallerAndMessage(h.t.ctx.db.kysely, apiKeyHash('x'.repeat(43)), message.id as string)).toEqual({
      caller: undefined,
      found: undefined,
    });
  });
});

describe('GET /api/groups/{id}/page/{page}: the caller read with the page (issue 23)', () => {
  const h = useTestApp();
  const { post, edit } = helpers(h);

  it('answers 401 for a key that is not live or of a disabled account, before anything about the group or the page', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const dee = await buildUser(h.t.ctx, { name: 'Dee' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, dee] });
    await post(ana, group, { text: 'Hello' });
    const paths = [`/groups/${group.id}/page/0`, `/groups/${randomUUID()}/page/0`, '/groups/xyz/page/0'];
    for (const path of [...paths, `/groups/${group.id}/page/abc`, '/groups/xyz/page/abc']) {
      expectError(await h.api.get(path, { key: 'x'.repeat(43) }), 401, 'invalid_api_key');
      expectError(await h.api.get(path), 401, 'auth_required');
    }
    await h.t.ctx.db.kysely
      .updateTable('users')
      .set({ disabled_at: h.t.clock.now() })
      .where('id', '=', dee.user.id)
      .execute();
    for (const path of [...paths, `/groups/${group.id}/page/abc`]) {
      expectError(await h.api.get(path, { key: dee.key }), 401, 'account_disabled');
    }
    // A live key: 404 for unknown and malformed groups (before the page is read), 400 for a bad page.
    expectError(await h.api.get(`/groups/${randomUUID()}/page/0`, { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get('/groups/xyz/page/abc', { key: ana.key }), 404, 'not_found');
    expectError(await h.api.get(`/groups/${group.id}/page/abc`, { key: ana.key }), 400, 'invalid_field', 'page');
  });

  it('answers a member what the hook-read route answers, pins first, with the newest event id and the media cookie; 404 to an outsider', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const ben = await buildUser(h.t.ctx, { name: 'Ben' });
    const zed = await buildUser(h.t.ctx, { name: 'Zed' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    const first = await post(ana, group, { text: 'First' });
    const second = await post(ben, group, { text: 'Second' });
    await edit(ana, first.id as string, { pinnedInGroup: true });
    const before = h.t.ctx.events.lastId;
    const res = await h.api.get(`/groups/${group.id}/page/0`, { key: ben.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ messages: [first.id, second.id], totalItems: 2 });
    const eventId = Number(res.headers['kith-event-id']);
    expect(eventId).toBeGreaterThanOrEqual(before);
    expect(eventId).toBeLessThanOrEqual(h.t.ctx.events.lastId);
    const me = await h.api.get('/me', { key: ben.key });
    expect(res.headers['set-cookie']).toEqual(me.headers['set-cookie']);
    // An uppercase id names the same group.
    const upper = await h.api.get(`/groups/${String(group.id).toUpperCase()}/page/0`, { key: ben.key });
    expect(upper.body).toEqual(res.body);
    expect((await h.api.get(`/groups/${group.id}/page/1`, { key: ben.key })).body).toEqual({
      messages: [],
      totalItems: 2,
    });
    const outsider = await h.api.get(`/groups/${group.id}/page/0`, { key: zed.key });
    expectError(outsider, 404, 'not_found');
    expect(outsider.text).not.toContain(first.id as string);
    const head = await h.api.request('HEAD', `/groups/${group.id}/page/0`, { key: ben.key });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'reads the caller as the key lookup does, and the page as the member read does',
    async () => {
      const ana = await buildUser(h.t.ctx, { name: 'Ana' });
      const zed = await buildUser(h.t.ctx, { name: 'Zed' });
      const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana] });
      const first = await post(ana, group, { text: 'Post 0' });
      for (let i = 1; i < 3; i += 1) await post(ana, group, { text: `Post ${i}` });
      await edit(ana, first.id as string, { pinnedInGroup: true });
      const db = h.t.ctx.db.kysely;
      const hash = apiKeyHash(ana.key);
      for (const start of [0, 30]) {
        const { caller, found } = await findCallerAndFrontPage(db, hash, group.id, start);
        expect(caller).toEqual(await findUserByApiKeyHash(db, hash));
        // What the two statements of the hook's page read.
        const member = await memberFrontAndPins(db, group.id, ana.user.id);
        const pinned = member?.pinned ?? [];
        expect(pinned).toEqual([first.id]);
        const others = await frontPageIds(db, group.id, 30, Math.max(0, start - pinned.length), pinned);
        expect(found).toEqual({ ...member, others });
      }
      // Another's group: the caller, no page; another key: nothing.
      const outsider = await findCallerAndFrontPage(db, apiKeyHash(zed.key), group.id, 0);
      expect(outsider.caller?.id).toBe(zed.user.id);
      expect(outsider.found).toBeUndefined();
      expect(await findCallerAndFrontPage(db, hash, randomUUID(), 0)).toEqual({
        caller: await findUserByApiKeyHash(db, hash),
        found: undefined,
      });
      expect(await findCallerAndFrontPage(db, apiKeyHash('x'.repeat(43)), group.id, 0)).toEqual({
        caller: undefined,
        found: undefined,
      });
    },
  );
});
