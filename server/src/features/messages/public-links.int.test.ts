import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../../../test/client.js';
import { CANNOT, expectError, MESSAGE_KEYS, keysOf } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp, type TestApp } from '../../../test/harness.js';
import { uploadPhotos } from '../../../test/uploads.js';
import type { GroupRow } from '../../db/rows.js';
import { publicAnswer } from './public-links.js';
import { findViewByPublicToken } from './queries.js';

/** Parsed JSON of an answer (the client types it loosely on purpose). */
type Json = ApiResponse['body'];
type Harness = { t: TestApp; api: ApiClient };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function helpers(h: Harness) {
  const post = async (u: BuiltUser, group: GroupRow, data: Record<string, unknown>, parent?: string): Promise<Json> => {
    const res = await h.api.post('/messages', { key: u.key, body: { group: group.id, data, parent } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const read = async (u: BuiltUser, id: string): Promise<Json> => {
    const res = await h.api.get(`/messages/${id}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const share = async (u: BuiltUser, id: string): Promise<{ token: string; url: string }> => {
    const res = await h.api.get(`/messages/${id}/get-public-link`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const revoke = async (u: BuiltUser, id: string): Promise<void> => {
    const res = await h.api.delete(`/messages/${id}/public-link`, { key: u.key });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
  };
  return { post, read, share, revoke };
}

describe('public links (§6.6, §6.7, §11.3)', () => {
  const h = useTestApp();
  const { post, read, share, revoke } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;
  let root: Json;
  let child: Json;
  let grandchild: Json;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    root = await post(ana, group, { title: 'Beach day', text: 'Look at this!', no_embed: true });
    child = await post(ben, group, { text: 'Nice' }, root.id);
    grandchild = await post(ana, group, { text: 'Thanks' }, child.id);
  });

  describe('GET /api/messages/{id}/get-public-link', () => {
    it('gives any member, not only the author, {token, url}', async () => {
      const message = await post(ana, group, { text: 'Share me' });
      const res = await h.api.get(`/messages/${message.id}/get-public-link`, { key: ben.key });
      expect(res.status, res.text).toBe(200);
      expect(keysOf(res.body)).toEqual(['token', 'url']);
      expect(res.body.token).toMatch(TOKEN);
      expect(res.body.url.endsWith(`/public/${res.body.token}`)).toBe(true);
      expect(res.body.url).toBe(`${h.t.config.publicUrl}/public/${res.body.token}`);
    });

    it('answers the same token on every call, whoever asks', async () => {
      const message = await post(ana, group, { text: 'One link only' });
      const first = await share(ben, message.id);
      expect(await share(ana, message.id)).toEqual(first);
      expect(await share(ben, message.id)).toEqual(first);
    });

    it('makes isPublic true on the message', async () => {
      const message = await post(ana, group, { text: 'Not yet public' });
      expect(message.isPublic).toBe(false);
      expect((await read(ben, message.id)).isPublic).toBe(false);
      await share(ben, message.id);
      expect((await read(ana, message.id)).isPublic).toBe(true);
      expect((await read(ben, message.id)).isPublic).toBe(true);
    });

    it('answers 404 to a non-member and for unknown or malformed ids, 401 without a key', async () => {
      expectError(await h.api.get(`/messages/${root.id}/get-public-link`, { key: zed.key }), 404, 'not_found');
      expectError(await h.api.get(`/messages/${randomUUID()}/get-public-link`, { key: ana.key }), 404, 'not_found');
      expectError(await h.api.get('/messages/xyz/get-public-link', { key: ana.key }), 404, 'not_found');
      expectError(await h.api.get(`/messages/${root.id}/get-public-link`), 401, 'auth_required');
    });

    it('answers 404 for a deleted placeholder', async () => {
      const top = await post(ana, group, { text: 'Top' });
      const middle = await post(ben, group, { text: 'Middle' }, top.id);
      await post(ana, group, { text: 'Below' }, middle.id);
      expect((await h.api.delete(`/messages/${middle.id}`, { key: ben.key })).status).toBe(204);
      expect((await read(ana, middle.id)).isDeleted).toBe(true);
      expectError(await h.api.get(`/messages/${middle.id}/get-public-link`, { key: ana.key }), 404, 'not_found');
      expect((await read(ana, middle.id)).isPublic).toBe(false);
    });
  });

  describe('GET /api/public/{token}', () => {
    it('answers anyone, without a key, the message without author, group, parent, lineage or children', async () => {
      const { token } = await share(ana, root.id);
      const full = await read(ana, root.id);
      expect(full.children.length).toBeGreaterThan(0);
      const res = await h.api.get(`/public/${token}`);
      expect(res.status, res.text).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(keysOf(res.body)).toEqual(MESSAGE_KEYS);
      expect(res.body).toEqual({
        ...full,
        author: null,
        group: null,
        parent: null,
        lineage: [],
        children: [],
        isPublic: true,
        can: CANNOT,
      });
      expect(res.body.data).toEqual({ title: 'Beach day', text: 'Look at this!', no_embed: true });
      expect(res.body.isInFront).toBe(true);
    });

    it('reduces a shared reply the same way: no parent, no lineage, its dates and data kept', async () => {
      const { token } = await share(ben, child.id);
      const full = await read(ben, child.id);
      expect(full.lineage).toEqual([root.id]);
      const res = await h.api.get(`/public/${token}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        ...full,
        author: null,
        group: null,
        parent: null,
        lineage: [],
        children: [],
        isPublic: true,
        can: CANNOT,
      });
      expect(res.body.isInFront).toBe(false);
      expect(res.body.data).toEqual({ text: 'Nice' });
    });

    it('also works with a stale key, a malformed key, or the key of a stranger', async () => {
      const { token } = await share(ana, grandchild.id);
      const anonymous = await h.api.get(`/public/${token}`);
      expect(anonymous.status).toBe(200);
      for (const key of ['x'.repeat(43), 'stale', zed.key]) {
        const res = await h.api.get(`/public/${token}`, { key });
        expect(res.status, res.text).toBe(200);
        expect(res.body).toEqual(anonymous.body);
      }
    });

    it('answers 404 for malformed and unknown tokens', async () => {
      const { token } = await share(ana, root.id);
      const unknown = `${token.slice(0, 42)}${token.endsWith('A') ? 'B' : 'A'}`;
      const malformed = [
        'abc',
        token.slice(0, 42),
        `${token}A`,
        `${token.slice(0, 42)}.`,
        `${token.slice(0, 42)}+`,
        `${token.slice(0, 41)}==`,
        'x'.repeat(3000),
        randomUUID(),
        unknown,
      ];
      for (const bad of malformed) {
        expectError(await h.api.get(`/public/${encodeURIComponent(bad)}`), 404, 'not_found');
      }
      // The real one still works.
      expect((await h.api.get(`/public/${token}`)).status).toBe(200);
    });

    it('keeps working after the author deletes their account (§10.4)', async () => {
      const eve = await buildUser(h.t.ctx, { name: 'Eve' });
      const club = await buildGroup(h.t.ctx, { name: 'Club', members: [ana, eve] });
      const message = await post(eve, club, { title: 'Eve’s post' });
      const { token } = await share(ana, message.id);
      expect((await h.api.delete(`/users/${eve.user.id}`, { key: eve.key })).status).toBe(204);
      const res = await h.api.get(`/public/${token}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toEqual({ title: 'Eve’s post' });
      expect(res.body.author).toBeNull();
    });
  });

  describe('DELETE /api/messages/{id}/public-link', () => {
    it('answers 204; the old token answers 404 at once; the next call makes a new token', async () => {
      const message = await post(ana, group, { text: 'Shared for a while' });
      const old = await share(ana, message.id);
      expect((await h.api.get(`/public/${old.token}`)).status).toBe(200);
      // Any member may end it, not only the author.
      await revoke(ben, message.id);
      expectError(await h.api.get(`/public/${old.token}`), 404, 'not_found');
      expect((await read(ana, message.id)).isPublic).toBe(false);

      const fresh = await share(ana, message.id);
      expect(fresh.token).toMatch(TOKEN);
      expect(fresh.token).not.toBe(old.token);
      expect(fresh.url).toBe(`${h.t.config.publicUrl}/public/${fresh.token}`);
      expectError(await h.api.get(`/public/${old.token}`), 404, 'not_found');
      expect((await h.api.get(`/public/${fresh.token}`)).status).toBe(200);
      expect((await read(ben, message.id)).isPublic).toBe(true);
    });

    it('answers 204 when there is no link, so it can be repeated', async () => {
      const message = await post(ana, group, { text: 'Never shared' });
      await revoke(ana, message.id);
      await revoke(ana, message.id);
      expect((await read(ana, message.id)).isPublic).toBe(false);
    });

    it('answers 404 to a non-member and for unknown ids, 401 without a key; the link stays', async () => {
      const message = await post(ana, group, { text: 'Guarded' });
      const { token } = await share(ana, message.id);
      expectError(await h.api.delete(`/messages/${message.id}/public-link`, { key: zed.key }), 404, 'not_found');
      expectError(await h.api.delete(`/messages/${randomUUID()}/public-link`, { key: ana.key }), 404, 'not_found');
      expectError(await h.api.delete('/messages/xyz/public-link', { key: ana.key }), 404, 'not_found');
      expectError(await h.api.delete(`/messages/${message.id}/public-link`), 401, 'auth_required');
      expect((await h.api.get(`/public/${token}`)).status).toBe(200);
    });
  });
});

describe('public links turned off (PUBLIC_LINKS=false)', () => {
  const h = useTestApp({ PUBLIC_LINKS: 'false' });
  const { post, read } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
  });

  /** A link made before the operator turned the feature off. */
  const storedToken = async (messageId: string): Promise<string> => {
    const token = 'T'.repeat(20) + randomUUID().replaceAll('-', '').slice(0, 23);
    await h.t.ctx.db.kysely.updateTable('messages').set({ public_token: token }).where('id', '=', messageId).execute();
    return token;
  };

  it('get-public-link answers 403 feature_disabled', async () => {
    const message = await post(ana, group, { text: 'Private' });
    for (const u of [ana, ben]) {
      expectError(await h.api.get(`/messages/${message.id}/get-public-link`, { key: u.key }), 403, 'feature_disabled');
    }
    expect((await read(ana, message.id)).isPublic).toBe(false);
  });

  it('GET /api/public/{token} answers 404, even for a link made before', async () => {
    const message = await post(ana, group, { text: 'Shared before' });
    const token = await storedToken(message.id);
    expect(token).toMatch(TOKEN);
    expectError(await h.api.get(`/public/${token}`), 404, 'not_found');
    expectError(await h.api.get(`/public/${token}`, { key: ana.key }), 404, 'not_found');
  });

  it('a link made before is no longer active, so the message is not public (§2.4 isPublic, §6.6)', async () => {
    const message = await post(ana, group, { text: 'Shared before' });
    await storedToken(message.id);
    expect((await read(ana, message.id)).isPublic).toBe(false);
  });
});

describe('GET /api/public/{token}: the view, files and reactions read in one statement on PostgreSQL (issue 23)', () => {
  const h = useTestApp();
  const { post, share, revoke } = helpers(h);
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    cleo = await buildUser(h.t.ctx, { name: 'Cléo' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben, cleo] });
  });

  /** The answer built from a read for each part: the view by token, then its files and reactions. */
  const readApart = async (token: string): Promise<Json> => {
    const view = await findViewByPublicToken(h.t.ctx.db.kysely, token);
    expect(view).toBeDefined();
    return JSON.parse(JSON.stringify(await publicAnswer(h.t.ctx, view!)));
  };

  it('answers what the separate reads give: files in their order, reaction counts by first reaction', async () => {
    const photos = await uploadPhotos(h.t, ana.key, ['#3a7', '#a37']);
    const created = await h.api.post('/messages', {
      key: ana.key,
      body: { group: group.id, data: { text: '@Ben look' }, files: [...photos].reverse(), mentions: [ben.user.id] },
    });
    expect(created.status, created.text).toBe(201);
    const message = created.body;
    await post(cleo, group, { text: 'A reply the visitor does not see' }, message.id);
    for (const [u, reaction] of [
      [ben, '👍'],
      [cleo, '❤️'],
      [ana, '❤️'],
    ] as const) {
      // Apart in time: summaries come in the order of each emoji's first reaction.
      h.t.clock.advance(1000);
      const res = await h.api.post(`/messages/${message.id}/reactions`, { key: u.key, body: { reaction } });
      expect(res.status, res.text).toBe(200);
    }
    const { token } = await share(ana, message.id);

    const res = await h.api.get(`/public/${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.map((f: Json) => [f.id, f.fileIndex])).toEqual([
      [photos[1], 0],
      [photos[0], 1],
    ]);
    expect(res.body.reactions.map((r: Json) => [r.emoji, r.count, r.mine, r.reactionId, r.users])).toEqual([
      ['👍', 1, false, null, []],
      ['❤️', 2, false, null, []],
    ]);
    expect(res.body.children).toEqual([]);
    expect(res.body.mentions).toEqual([]);
    expect(res.body).toEqual(await readApart(token));

    // Without files or reactions: empty lists, not nulls, on both paths.
    const plain = await post(ben, group, { text: 'Plain' });
    const plainLink = await share(ben, plain.id);
    const plainAnswer = await h.api.get(`/public/${plainLink.token}`);
    expect(plainAnswer.status, plainAnswer.text).toBe(200);
    expect(plainAnswer.body).toMatchObject({ files: [], reactions: [] });
    expect(plainAnswer.body).toEqual(await readApart(plainLink.token));
  });

  it('answers 404 for a well-formed token that matches nothing, a revoked link and a deleted message', async () => {
    const unknown = 'U'.repeat(20) + randomUUID().replaceAll('-', '').slice(0, 23);
    expectError(await h.api.get(`/public/${unknown}`), 404, 'not_found');

    const revoked = await post(ana, group, { text: 'Shared, then not' });
    const link = await share(ana, revoked.id);
    expect((await h.api.get(`/public/${link.token}`)).status).toBe(200);
    await revoke(ben, revoked.id);
    expectError(await h.api.get(`/public/${link.token}`), 404, 'not_found');

    const removed = await post(ana, group, { text: 'Shared, then deleted' });
    const removedLink = await share(ana, removed.id);
    expect((await h.api.delete(`/messages/${removed.id}`, { key: ana.key })).status).toBe(204);
    expectError(await h.api.get(`/public/${removedLink.token}`), 404, 'not_found');
  });
});

describe('GET /api/public/{token} with reactions turned off (REACTIONS_ENABLED=false)', () => {
  const h = useTestApp({ REACTIONS_ENABLED: 'false' });
  const { post, share } = helpers(h);

  it('shows no reactions, even ones stored before, on both paths', async () => {
    const ana = await buildUser(h.t.ctx, { name: 'Ana' });
    const group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana] });
    const message = await post(ana, group, { text: 'Liked before' });
    // A reaction left from before the operator turned them off.
    await h.t.ctx.db.kysely
      .insertInto('reactions')
      .values({ id: randomUUID(), message_id: message.id, user_id: ana.user.id, emoji: '👍', created_at: 1 })
      .execute();
    const { token } = await share(ana, message.id);
    const res = await h.api.get(`/public/${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.reactions).toEqual([]);
    const view = await findViewByPublicToken(h.t.ctx.db.kysely, token);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(await publicAnswer(h.t.ctx, view!))));
  });
});
