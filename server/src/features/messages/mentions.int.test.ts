import { listNotifications } from '../notifications/queries.js';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import type { GroupRow } from '../../db/rows.js';

type Json = ApiResponse['body'];

/**
 * @mentions (issue 21, docs/api §11.10): stored by user id beside the text as typed, answered with
 * the current name, notified as `mention` (one entry per message for the person mentioned), and
 * shown to the Zusam 0.5.6 client as the new_message or new_comment it replaces.
 */
describe('mentions (issue 21)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let dan: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana Silva' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    cleo = await buildUser(h.t.ctx, { name: 'Cléo' });
    dan = await buildUser(h.t.ctx, { name: 'Dan' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben, cleo, dan] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
  });

  const send = (u: BuiltUser | undefined, body: object) => h.api.post('/messages', { key: u?.key, body });
  const post = async (u: BuiltUser, text: string, mentions?: unknown, parent?: string): Promise<Json> => {
    const res = await send(u, { group: group.id, data: { text }, mentions, parent });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const edit = async (u: BuiltUser, id: string, body: object): Promise<Json> => {
    const res = await h.api.put(`/messages/${id}`, { key: u.key, body });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  /** The stored notifications of a user about a message, as rows (type and recipient). */
  // A member's stored notifications about a message, group events included (migration 0024).
  const notesAbout = async (u: BuiltUser, messageId: string) =>
    (await listNotifications(h.t.ctx.db.kysely, u.user.id, 1000))
      .filter((n) => n.target === messageId)
      .map((n) => n.type);
  const storedMentions = (messageId: string) =>
    h.t.ctx.db.kysely
      .selectFrom('mentions')
      .select(['user_id', 'written_name'])
      .where('message_id', '=', messageId)
      .orderBy('position')
      .execute();

  it('stores a mention by id with the name as written, and answers it in the message and its card', async () => {
    const m = await post(ben, '@Ana Silva, can you bring the bread? @Cléo too', [ana.user.id, cleo.user.id]);
    expect(m.data).toEqual({ text: '@Ana Silva, can you bring the bread? @Cléo too' });
    expect(m.mentions).toEqual([
      { id: ana.user.id, name: 'Ana Silva', written: 'Ana Silva' },
      { id: cleo.user.id, name: 'Cléo', written: 'Cléo' },
    ]);
    expect(await storedMentions(m.id)).toEqual([
      { user_id: ana.user.id, written_name: 'Ana Silva' },
      { user_id: cleo.user.id, written_name: 'Cléo' },
    ]);
    const card = await h.api.get(`/messages/${m.id}/preview`, { key: dan.key });
    expect(card.body.mentions).toEqual(m.mentions);
    const feed = await h.api.get(`/groups/${group.id}/feed`, { key: dan.key });
    const item = (feed.body.messages as Json[]).find((c) => c.id === m.id);
    expect(item?.mentions).toEqual(m.mentions);
  });

  it('answers an empty list for a message without mentions, and for a 0.5.6 post', async () => {
    const m = await post(ben, 'Hello @Ana Silva');
    expect(m.mentions).toEqual([]);
    expect(await notesAbout(ana, m.id)).toEqual(['new_message']);
  });

  it('notifies the mentioned member once, as mention, and the others as before', async () => {
    const m = await post(ben, 'Picnic on Sunday, @Ana Silva?', [ana.user.id]);
    expect(await notesAbout(ana, m.id)).toEqual(['mention']);
    expect(await notesAbout(cleo, m.id)).toEqual(['new_message']);
    expect(await notesAbout(ben, m.id)).toEqual([]);
    const reply = await post(cleo, '@Ana Silva see above', [ana.user.id], m.id);
    expect(await notesAbout(ana, reply.id)).toEqual(['mention']);
    expect(await notesAbout(ben, reply.id)).toEqual(['new_comment']);
  });

  it('never notifies someone of mentioning themselves (the mention is still shown)', async () => {
    const m = await post(ben, 'Note to @Ben', [ben.user.id]);
    expect(m.mentions).toEqual([{ id: ben.user.id, name: 'Ben', written: 'Ben' }]);
    expect(await notesAbout(ben, m.id)).toEqual([]);
  });

  it('ignores an outsider’s id: not stored, not notified, not answered', async () => {
    const m = await post(ben, 'Hi @Zed and @Ana Silva', [zed.user.id, ana.user.id, randomUUID()]);
    expect(m.mentions).toEqual([{ id: ana.user.id, name: 'Ana Silva', written: 'Ana Silva' }]);
    expect(await storedMentions(m.id)).toEqual([{ user_id: ana.user.id, written_name: 'Ana Silva' }]);
    expect(await notesAbout(zed, m.id)).toEqual([]);
  });

  it('ignores a member whose @name is not in the text, or only inside a word or address', async () => {
    const m = await post(ben, 'Write to cleo@Cléo.org or @Anabel', [cleo.user.id, ana.user.id]);
    expect(m.mentions).toEqual([]);
    expect(await notesAbout(cleo, m.id)).toEqual(['new_message']);
  });

  it('refuses bad mentions with 400 invalid_field and posts nothing', async () => {
    const before = await h.t.ctx.db.kysely
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    const tooMany = Array.from({ length: 51 }, () => randomUUID());
    for (const mentions of ['x', { id: ana.user.id }, [42], ['not-an-id'], [{ id: ana.user.id }], tooMany]) {
      const res = await send(ben, { group: group.id, data: { text: '@Ana Silva' }, mentions });
      expectError(res, 400, 'invalid_field', 'mentions');
    }
    const after = await h.t.ctx.db.kysely
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('answers 401 to a visitor and 404 to an outsider, as the message routes do', async () => {
    const body = { group: group.id, data: { text: '@Ana Silva' }, mentions: [ana.user.id] };
    expectError(await send(undefined, body), 401, 'auth_required');
    expectError(await send(zed, body), 404, 'not_found');
    const m = await post(ben, 'Hi');
    expectError(await h.api.put(`/messages/${m.id}`, { body: { mentions: [ana.user.id] } }), 401, 'auth_required');
    expectError(
      await h.api.put(`/messages/${m.id}`, { key: zed.key, body: { mentions: [ana.user.id] } }),
      404,
      'not_found',
    );
    // A member who is not the author cannot add mentions to someone else's message.
    expectError(
      await h.api.put(`/messages/${m.id}`, { key: cleo.key, body: { mentions: [ana.user.id] } }),
      403,
      'not_author',
    );
    expect(await storedMentions(m.id)).toEqual([]);
  });

  it('shows the new name after a rename, with the same written text', async () => {
    const m = await post(ben, 'Thanks @Dan!', [dan.user.id]);
    const renamed = await h.api.put(`/users/${dan.user.id}`, { key: dan.key, body: { name: 'Daniel' } });
    expect(renamed.status, renamed.text).toBe(200);
    const again = await h.api.get(`/messages/${m.id}`, { key: cleo.key });
    expect(again.body.data.text).toBe('Thanks @Dan!');
    expect(again.body.mentions).toEqual([{ id: dan.user.id, name: 'Daniel', written: 'Dan' }]);
    // An edit from Kith's client keeps it (the stored written name is still there)…
    const kept = await edit(ben, m.id, { data: { text: 'Thanks again @Dan!' }, mentions: [dan.user.id] });
    expect(kept.mentions).toEqual([{ id: dan.user.id, name: 'Daniel', written: 'Dan' }]);
    await h.api.put(`/users/${dan.user.id}`, { key: dan.key, body: { name: 'Dan' } });
  });

  it('an edit notifies only the newly mentioned', async () => {
    const m = await post(ben, 'Who comes? @Ana Silva', [ana.user.id]);
    await edit(ben, m.id, { data: { text: 'Who comes? @Ana Silva @Cléo' }, mentions: [ana.user.id, cleo.user.id] });
    expect(await notesAbout(ana, m.id)).toEqual(['mention']);
    expect((await notesAbout(cleo, m.id)).sort()).toEqual(['mention', 'new_message']);
    const updated = await h.api.get(`/messages/${m.id}`, { key: ben.key });
    expect(updated.body.mentions.map((x: Json) => x.id)).toEqual([ana.user.id, cleo.user.id]);
  });

  it('an edit without mentions (the 0.5.6 client) keeps those still written and drops the others', async () => {
    const m = await post(ben, '@Ana Silva and @Cléo', [ana.user.id, cleo.user.id]);
    const edited = await edit(ben, m.id, { data: { text: 'Only @Cléo now' } });
    expect(edited.mentions).toEqual([{ id: cleo.user.id, name: 'Cléo', written: 'Cléo' }]);
    // A 0.5.6 edit never adds one: Dan's name typed by hand stays plain text.
    const typed = await edit(ben, m.id, { data: { text: 'Only @Cléo and @Dan' } });
    expect(typed.mentions.map((x: Json) => x.id)).toEqual([cleo.user.id]);
    expect(await notesAbout(dan, m.id)).toEqual(['new_message']);
  });

  it('a placeholder loses its mentions', async () => {
    const root = await post(ben, 'Root');
    const reply = await post(cleo, 'Hey @Ana Silva', [ana.user.id], root.id);
    await post(dan, 'A reply to the reply', undefined, reply.id);
    const del = await h.api.delete(`/messages/${reply.id}`, { key: cleo.key });
    expect(del.status).toBe(204);
    expect(await storedMentions(reply.id)).toEqual([]);
    const again = await h.api.get(`/messages/${reply.id}`, { key: ben.key });
    expect(again.body.mentions).toEqual([]);
  });

  describe('notification lists', () => {
    let postMention: Json;
    let replyMention: Json;
    beforeAll(async () => {
      postMention = await post(cleo, 'Lunch @Dan?', [dan.user.id]);
      replyMention = await post(ben, 'Yes @Dan', [dan.user.id], postMention.id);
    });
    const listOf = async (u: BuiltUser, include?: string): Promise<Json[]> => {
      const res = await h.api.get(`/me/notifications${include === undefined ? '' : `?include=${include}`}`, {
        key: u.key,
      });
      expect(res.status, res.text).toBe(200);
      return res.body as Json[];
    };

    it('lists mention to a client that asks include=mentions', async () => {
      const list = await listOf(dan, 'reactions,mentions');
      const reply = list.find((n) => n.target === replyMention.id);
      expect(reply).toMatchObject({
        type: 'mention',
        fromUser: { id: ben.user.id, name: 'Ben' },
        fromMessage: { id: postMention.id },
        parentAuthorName: 'Cléo',
      });
      expect(list.find((n) => n.target === postMention.id)?.type).toBe('mention');
    });

    // The Zusam 0.5.6 client lists `GET /api/me/notifications/21`, then reads each one with
    // `GET /api/notifications/{id}` (app/src/pages/notification.component.js at tag 0.5.6). Its
    // getAction/getObject/getTarget switch on `type`: "new_message" renders "<author> has posted in
    // <strong>fromGroup.name</strong>" with the title and links to /messages/{target};
    // "new_comment" renders "<author> has commented on the message from <strong>parentAuthorName</strong>"
    // and links to /messages/{fromMessage.id}/{target}; any other type renders a blank action and
    // an empty link. So a mention must reach it as one of those two, with those fields filled.
    it('shows the 0.5.6 client a mention as new_comment or new_message, with what it renders', async () => {
      const list = await listOf(dan);
      const reply = list.find((n) => n.target === replyMention.id);
      expect(reply).toMatchObject({
        type: 'new_comment',
        fromUser: { id: ben.user.id, entityType: 'user', name: 'Ben' },
        fromGroup: { id: group.id, name: 'Family' },
        fromMessage: { id: postMention.id, entityType: 'message' },
        parentAuthorName: 'Cléo',
      });
      const onPost = list.find((n) => n.target === postMention.id);
      expect(onPost).toMatchObject({
        type: 'new_message',
        fromGroup: { id: group.id, name: 'Family' },
        fromMessage: { id: postMention.id },
        parentAuthorName: '',
      });
      expect(list.every((n) => n.type !== 'mention')).toBe(true);
      // The single GET (what 0.5.6 renders from) and the PUT it marks read with say the same.
      const one = await h.api.get(`/notifications/${reply?.id}`, { key: dan.key });
      expect(one.body.type).toBe('new_comment');
      const read = await h.api.put(`/notifications/${reply?.id}`, { key: dan.key, body: { read: true } });
      expect(read.body).toMatchObject({ type: 'new_comment', read: true });
      const asked = await h.api.get(`/notifications/${reply?.id}?include=mentions`, { key: dan.key });
      expect(asked.body.type).toBe('mention');
    });
  });

  describe('data.mention_emails', () => {
    it('is set, answered in /api/me and checked (400 invalid_field)', async () => {
      for (const value of ['immediately', 'none', 'with_others']) {
        const res = await h.api.put(`/users/${cleo.user.id}`, {
          key: cleo.key,
          body: { data: { mention_emails: value } },
        });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.mention_emails).toBe(value);
      }
      const bad = await h.api.put(`/users/${cleo.user.id}`, {
        key: cleo.key,
        body: { data: { mention_emails: 'daily' } },
      });
      expectError(bad, 400, 'invalid_field', 'data.mention_emails');
      const me = await h.api.get('/me', { key: cleo.key });
      expect(me.body.data.mention_emails).toBe('with_others');
    });
  });
});
