import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { serve, type EventReader, type Received } from '../../../test/sse.js';
import { firstRunInvitation } from '../../first-run.js';

/**
 * The "Done when" of the messages issue, as two people would live it, on the engine of this run:
 * post, comment three levels deep, bookmark, search, share a public link, and hear each other live.
 */
describe('two users in one group', () => {
  let t: TestApp;
  let api: ApiClient;
  const server = serve(() => t);

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    await server.listen();
  });
  afterAll(() => t.close());

  it('post, comment, bookmark, search, share and hear each other live', async () => {
    // Ana signs up through the first group's invitation; Ben through its invite key.
    const owner = await api.post('/signup', {
      body: { login: 'ana@example.org', password: 'password ana', invite_key: await firstInviteKey() },
    });
    expect(owner.status).toBe(200);
    const ana = owner.body.api_key as string;
    const groupId = owner.body.group as string;
    const group = await api.get(`/groups/${groupId}`, { key: ana });
    const joined = await api.post('/signup', {
      body: { login: 'ben@example.org', password: 'password ben', invite_key: group.body.secretKey },
    });
    const ben = joined.body.api_key as string;

    const anaStream = await server.open(ana);
    const benStream = await server.open(ben);

    // Ana posts; Ben hears of it live.
    const post = await api.post('/messages', {
      key: ana,
      body: { group: groupId, data: { title: 'Réveillon', text: 'Joyeux Noël #famille' } },
    });
    expect(post.status).toBe(201);
    const benSees = await untilAll(benStream, [
      (e) => e.event === 'message' && e.data.id === post.body.id,
      (e) => e.event === 'notification' && e.data.target === post.body.id,
    ]);
    expect(benSees.find((e) => e.event === 'notification')?.data).toMatchObject({
      type: 'new_message',
      title: 'Réveillon',
    });

    // Three levels of comments, alternating.
    const c1 = await api.post('/messages', {
      key: ben,
      body: { group: groupId, parent: post.body.id, data: { text: 'Merci !' } },
    });
    const c2 = await api.post('/messages', {
      key: ana,
      body: { group: groupId, parent: c1.body.id, data: { text: 'Avec plaisir' } },
    });
    const c3 = await api.post('/messages', {
      key: ben,
      body: { group: groupId, parent: c2.body.id, data: { text: 'À demain' } },
    });
    expect(c3.body.lineage).toEqual([c2.body.id, c1.body.id, post.body.id]);
    const anaHears = await untilAll(anaStream, [
      (e) => e.event === 'comment' && e.data.id === c3.body.id,
      (e) => e.event === 'notification' && e.data.target === c3.body.id,
    ]);
    // Ana's own comment reaches her other tabs too.
    expect(anaHears.filter((e) => e.event === 'comment').map((e) => e.data.id)).toEqual([
      c1.body.id,
      c2.body.id,
      c3.body.id,
    ]);
    expect(anaHears.find((e) => e.event === 'notification' && e.data.target === c3.body.id)?.data).toMatchObject({
      type: 'new_comment',
      parentAuthorName: 'ana',
      title: 'Réveillon',
    });
    const thread = await api.get(`/messages/${post.body.id}`, { key: ben });
    expect(thread.body.children).toEqual([{ id: c1.body.id, entityType: 'message' }]);

    // Ben bookmarks the post.
    expect((await api.post('/bookmarks', { key: ben, body: { message_id: post.body.id } })).status).toBe(201);
    const bookmarks = await api.get('/me/bookmarks/1001', { key: ben });
    expect(bookmarks.body.map((b: { message: { id: string } }) => b.message.id)).toEqual([post.body.id]);

    // Ben searches without accents and with the hashtag.
    const found = await api.post('/messages/search', {
      key: ben,
      body: { group: [groupId, null], search: 'noel #famille' },
    });
    expect(found.status).toBe(200);
    expect(found.body.messages.map((m: { id: string }) => m.id)).toEqual([post.body.id]);

    // Ana shares a public link; anyone can open it without an account.
    const link = await api.get(`/messages/${post.body.id}/get-public-link`, { key: ana });
    const anonymous = await fetch(`${server.base()}/public/${link.body.token}`);
    expect(anonymous.status).toBe(200);
    const publicMessage = (await anonymous.json()) as { data: { text: string }; author: unknown };
    expect(publicMessage.data.text).toBe('Joyeux Noël #famille');
    expect(publicMessage.author).toBeNull();
  });

  /** Reads events until each predicate has matched one of them. */
  async function untilAll(reader: EventReader, predicates: ((e: Received) => boolean)[]): Promise<Received[]> {
    const events: Received[] = [];
    while (!predicates.every((p) => events.some(p))) events.push(await reader.nextEvent());
    return events;
  }

  /** The setup group's invitation key, as `npm start` prints it on an empty instance. */
  async function firstInviteKey(): Promise<string> {
    const link = await firstRunInvitation(t.ctx);
    return link?.split('/').pop() ?? '';
  }
});
