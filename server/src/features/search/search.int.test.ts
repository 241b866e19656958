import { SearchAnswer } from '@kith/common';
import { Value } from 'typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, UUID_V4 } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { transaction } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import type { GroupRow } from '../../db/rows.js';
import { SEARCH_SLICE_MESSAGES, SEARCH_WINDOW_SLICES } from '../../search/search-index.js';

const seconds = (ms: number): number => Math.floor(ms / 1000);

describe('POST /api/messages/search (docs/api §6.8)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let family: GroupRow;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    family = await buildGroup(h.t.ctx, { name: 'Family', members: [ana] });
  });

  interface Post {
    title?: string | null;
    text?: string | null;
    author?: string | null;
    parentId?: string;
    createdAt?: number;
    lastActivity?: number;
    deleted?: boolean;
    group?: GroupRow;
  }

  /** A message row indexed in the same transaction (POST /api/messages is built elsewhere). */
  const post = async (fields: Post): Promise<string> => {
    const id = newId();
    const g = fields.group ?? family;
    const now = h.t.clock.now();
    const title = fields.title ?? null;
    const text = fields.text ?? null;
    const authorId = fields.author === undefined ? ana.user.id : fields.author;
    const authorName = [ana, ben].find((u) => u.user.id === authorId)?.user.name ?? null;
    await transaction(h.t.ctx, async (tx) => {
      await tx
        .insertInto('messages')
        .values({
          id,
          group_id: g.id,
          author_id: authorId,
          parent_id: fields.parentId ?? null,
          root_id: fields.parentId ?? id,
          lineage: fields.parentId === undefined ? '[]' : JSON.stringify([fields.parentId]),
          title,
          text,
          no_embed: null,
          created_at: fields.createdAt ?? now,
          last_activity_date: fields.lastActivity ?? now,
          is_in_front: fields.parentId === undefined ? 1 : 0,
          is_deleted: fields.deleted === true ? 1 : 0,
          public_token: null,
        })
        .execute();
      await h.t.ctx.search.upsert(tx, [{ id, groupId: g.id, title, text, authorName }]);
    });
    return id;
  };

  /** Searches as Ana unless another key, or `null` for none, is given. */
  const search = (body: unknown, key: string | null = ana.key) =>
    h.api.post('/messages/search', { ...(key === null ? {} : { key }), body });

  /** The text a highlight range covers. */
  const marked = (snippet: { text: string; highlights: [number, number][] }) =>
    snippet.highlights.map(([start, end]) => snippet.text.slice(start, end));

  it('answers the 0.5.6 client body with the result objects it reads', async () => {
    const created = h.t.clock.now() - 3_600_000;
    const beach = await post({
      title: 'Plage',
      text: 'Un bel été à la plage avec toute la famille.',
      createdAt: created,
      lastActivity: created + 60_000,
    });
    const first = await post({ text: 'Quelle belle journée', parentId: beach });
    await post({ text: 'Oui, magnifique', parentId: beach, author: ben.user.id });
    await post({ text: 'Et la plage en hiver?', parentId: first });

    const res = await search({ group: [family.id, null], search: 'plage+ete', hashtags: '' });
    expect(res.status, res.text).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect([...Value.Errors(SearchAnswer, res.body)]).toEqual([]);
    expect(Object.keys(res.body).sort()).toEqual(['messages', 'older', 'searchterms', 'totalItems']);
    expect(res.body.older).toBeNull();
    expect(res.body.searchterms).toEqual(['plage', 'ete']);
    expect(res.body.totalItems).toBe(1);
    expect(res.body.messages).toHaveLength(1);
    const [hit] = res.body.messages;
    expect(Object.keys(hit).sort()).toEqual(
      [
        'author',
        'children',
        'createdAt',
        'data',
        'entityType',
        'id',
        'lastActivityDate',
        'parent',
        'preview',
        'score',
        'snippet',
      ].sort(),
    );
    expect(hit).toMatchObject({
      id: beach,
      entityType: 'message',
      data: { title: 'Plage', text: 'Un bel été à la plage avec toute la famille.' },
      author: ana.user.id,
      preview: '',
      parent: '',
      children: 2,
      createdAt: seconds(created),
      lastActivityDate: seconds(created + 60_000),
    });
    expect(hit.id).toMatch(UUID_V4);
    expect(typeof hit.score).toBe('number');
    expect(hit.score).toBeGreaterThan(0);
    // The contract's own example.
    expect(hit.snippet).toEqual({
      text: 'Un bel été à la plage avec toute la famille.',
      highlights: [
        [7, 10],
        [16, 21],
      ],
    });
  });

  it('gives replies their parent id and ids as plain strings', async () => {
    const root = await post({ title: 'Marmotte', text: null });
    const reply = await post({ text: 'Une marmotte siffle', parentId: root, author: null });
    const res = await search({ group: family.id, search: 'marmotte' });
    expect(res.status, res.text).toBe(200);
    const byId = new Map((res.body.messages as { id: string }[]).map((m) => [m.id, m]));
    expect(byId.get(root)).toMatchObject({ parent: '', children: 1, data: { title: 'Marmotte', text: '' } });
    expect(byId.get(reply)).toMatchObject({
      parent: root,
      children: 0,
      author: '',
      data: { title: '', text: 'Une marmotte siffle' },
    });
    expect(res.body.totalItems).toBe(2);
  });

  it('takes the group as a string or {id} too', async () => {
    const id = await post({ text: 'Castor du lac' });
    for (const group of [family.id, { id: family.id }, family.id.toUpperCase(), [{ id: family.id }]]) {
      const res = await search({ group, search: 'castor' });
      expect(res.status, JSON.stringify(group)).toBe(200);
      expect(res.body.messages.map((m: { id: string }) => m.id)).toEqual([id]);
    }
  });

  it('cuts long texts around the first match and highlights accent-insensitively', async () => {
    const before = 'Nous sommes partis tôt le matin et la route était longue mais belle, '.repeat(3);
    const after = ' Ensuite nous avons mangé des crêpes et bu du chocolat chaud pendant des heures.'.repeat(3);
    const text = `${before}puis nous avons fêté NOËL chez mamie.${after}`;
    await post({ text });
    const res = await search({ group: [family.id, null], search: 'noel' });
    expect(res.status, res.text).toBe(200);
    const { snippet } = res.body.messages[0];
    expect(snippet.text.startsWith('…')).toBe(true);
    expect(snippet.text.endsWith('…')).toBe(true);
    expect(snippet.text.length).toBeLessThanOrEqual(162);
    expect(snippet.text.length).toBeGreaterThan(100);
    expect(snippet.text).toContain('fêté NOËL chez');
    // Cut at spaces: the excerpt starts and ends with whole words of the text.
    const inner = snippet.text.slice(1, -1);
    expect(text).toContain(inner);
    expect(text.charAt(text.indexOf(inner) - 1)).toBe(' ');
    expect(text.charAt(text.indexOf(inner) + inner.length)).toBe(' ');
    expect(marked(snippet)).toEqual(['NOËL']);
  });

  it('highlights every matched word, prefixes and hashtags included, in UTF-16 units', async () => {
    await post({ text: '😀 Anniversaire de Zoé #Famille, anniv réussi! #familles' });
    const res = await search({ group: family.id, search: 'anniv', hashtags: 'famille' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.searchterms).toEqual(['anniv', '#famille']);
    const { snippet } = res.body.messages[0];
    expect(snippet.text).toBe('😀 Anniversaire de Zoé #Famille, anniv réussi! #familles');
    expect(snippet.highlights[0]).toEqual([3, 15]);
    expect(marked(snippet)).toEqual(['Anniversaire', '#Famille', 'anniv']);
  });

  it('takes the snippet from the title when the text does not match', async () => {
    await post({ title: 'Randonnée au Mont Blanc', text: 'Photos de la journée' });
    const res = await search({ group: family.id, search: 'mont+blanc' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.messages[0].data.text).toBe('Photos de la journée');
    expect(res.body.messages[0].snippet).toEqual({
      text: 'Randonnée au Mont Blanc',
      highlights: [
        [13, 17],
        [18, 23],
      ],
    });
  });

  it('ranks, counts all matches and honours limit', async () => {
    const t0 = h.t.clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) ids.push(await post({ text: 'Tournesol au jardin', lastActivity: t0 + i * 1000 }));
    const res = await search({ group: family.id, search: 'tournesol', limit: 3 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.totalItems).toBe(4);
    expect(res.body.messages.map((m: { id: string }) => m.id)).toEqual([ids[3], ids[2], ids[1]]);
    const all = await search({ group: family.id, search: 'tournesol' });
    expect(all.body.messages).toHaveLength(4);
    expect(all.body.totalItems).toBe(4);
  });

  it('searches the newest messages first, then older ones with the answer’s older (issue 23)', async () => {
    const g = await buildGroup(h.t.ctx, { members: [ana] });
    const old = await post({ text: 'Le vieux moulin', group: g });
    // As many posts as the window holds, without writing them.
    await h.t.ctx.db.kysely
      .updateTable('groups')
      .set((eb) => ({ messages_posted: eb('messages_posted', '+', SEARCH_WINDOW_SLICES * SEARCH_SLICE_MESSAGES) }))
      .where('id', '=', g.id)
      .execute();
    const recent = await post({ text: 'Le moulin repeint', group: g });
    const first = await search({ group: g.id, search: 'moulin' });
    expect(first.status, first.text).toBe(200);
    expect([...Value.Errors(SearchAnswer, first.body)]).toEqual([]);
    expect(first.body.messages.map((m: { id: string }) => m.id)).toEqual([recent]);
    expect(first.body.totalItems).toBe(1);
    expect(first.body.older).toBe(1);
    const next = await search({ group: g.id, search: 'moulin', before: first.body.older });
    expect(next.body.messages.map((m: { id: string }) => m.id)).toEqual([old]);
    expect(next.body).toMatchObject({ totalItems: 1, older: null });
    // `before` opens no way into a group one is not a member of.
    expectError(await search({ group: g.id, search: 'moulin', before: 1 }, ben.key), 404, 'not_found');
  });

  it('never returns placeholders or messages of other groups', async () => {
    const other = await buildGroup(h.t.ctx, { members: [ana] });
    const mine = await post({ text: 'Hérisson dans le jardin' });
    await post({ text: 'Hérisson dans le jardin', group: other });
    await post({ text: 'Hérisson supprimé', deleted: true, author: null });
    const res = await search({ group: family.id, search: 'herisson' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.messages.map((m: { id: string }) => m.id)).toEqual([mine]);
  });

  it('does not count a reply deleted into a placeholder through the API', async () => {
    const create = async (body: Record<string, unknown>): Promise<string> => {
      const res = await h.api.post('/messages', { key: ana.key, body: { group: family.id, ...body } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const root = await create({ data: { text: 'Le verger' } });
    const reply = await create({ parent: root, data: { text: 'Un écureuil roux' } });
    await create({ parent: reply, data: { text: 'Il revient chaque matin' } });
    expect((await search({ group: family.id, search: 'ecureuil' })).body.totalItems).toBe(1);
    // It has a reply, so it becomes a placeholder (docs/api §10.3) and leaves the index.
    expect((await h.api.delete(`/messages/${reply}`, { key: ana.key })).status).toBe(204);
    const res = await search({ group: family.id, search: 'ecureuil' });
    expect(res.body).toMatchObject({ messages: [], totalItems: 0 });
  });

  it('answers an empty result, not an error, when no term is usable', async () => {
    await post({ text: 'a b c' });
    for (const body of [
      { group: [family.id, null], search: '', hashtags: '' },
      { group: [family.id, null] },
      { group: family.id, search: 'a+b c' },
      { group: family.id, search: '"*-()', hashtags: '#' },
      { group: family.id, search: null, hashtags: null },
    ]) {
      const res = await search(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body).toEqual({ messages: [], totalItems: 0, searchterms: [], older: null });
    }
    const none = await search({ group: family.id, search: 'introuvable' });
    expect(none.body).toEqual({ messages: [], totalItems: 0, searchterms: ['introuvable'], older: null });
  });

  it('answers 404 to non-members and for unknown groups', async () => {
    await post({ text: 'Secret de famille' });
    expectError(await search({ group: [family.id, null], search: 'secret' }, ben.key), 404, 'not_found');
    expectError(await search({ group: family.id, search: '' }, ben.key), 404, 'not_found');
    expectError(await search({ group: [newId(), null], search: 'secret' }), 404, 'not_found');
  });

  it('checks the body: group required and well-formed, limit 1 to 100, strings', async () => {
    for (const body of [{}, { search: 'x' }, { group: null }, { group: '' }, { group: [] }, { group: [null, null] }]) {
      expectError(await search(body), 400, 'missing_field', 'group');
    }
    for (const group of ['not-a-uuid', 42, [42], ['nope', null], { id: 7 }, true, [[family.id]]]) {
      expectError(await search({ group, search: 'x' }), 400, 'invalid_field', 'group');
    }
    for (const limit of [0, 101, -1, 2.5, '10']) {
      expectError(await search({ group: family.id, search: 'secret', limit }), 400, 'invalid_field', 'limit');
    }
    for (const before of [0, -1, 2.5, '3', true]) {
      expectError(await search({ group: family.id, search: 'secret', before }), 400, 'invalid_field', 'before');
    }
    expectError(await search({ group: family.id, search: ['secret'] }), 400, 'invalid_field', 'search');
    expectError(await search({ group: family.id, search: 'x', hashtags: 3 }), 400, 'invalid_field', 'hashtags');
    expectError(await search('[1]'), 400, 'invalid_json');
    const ok = await search({ group: family.id, search: 'secret', limit: 100 });
    expect(ok.status).toBe(200);
  });

  it('needs a valid key', async () => {
    expectError(await search({ group: family.id, search: 'secret' }, null), 401, 'auth_required');
    expectError(await search({ group: family.id, search: 'secret' }, 'not-a-key'), 401, 'invalid_api_key');
  });
});

describe("search by the author's current name (docs/api §10.7, §10.4)", () => {
  const h = useTestApp();
  let mia: BuiltUser;
  let ana: BuiltUser;
  let group: GroupRow;

  beforeAll(async () => {
    mia = await buildUser(h.t.ctx, { name: 'Mia Lopez' });
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    group = await buildGroup(h.t.ctx, { members: [mia, ana] });
  });

  /** POST /api/messages: the id of the new message. */
  const create = async (author: BuiltUser, data: { title?: string; text?: string }, parent?: string) => {
    const res = await h.api.post('/messages', {
      key: author.key,
      body: { group: group.id, data, ...(parent === undefined ? {} : { parent }) },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };

  /** The ids found by Ana, sorted, after checking that totalItems agrees. */
  const found = async (search: string): Promise<string[]> => {
    const res = await h.api.post('/messages/search', { key: ana.key, body: { group: group.id, search } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.totalItems, search).toBe(res.body.messages.length);
    return (res.body.messages as { id: string }[]).map((m) => m.id).sort();
  };

  it('follows creates, edits, a rename and the account deletion', async () => {
    const beach = await create(mia, { title: 'Plage', text: 'Du soleil' });
    const reply = await create(mia, { text: 'Encore du soleil' }, beach);
    const anas = await create(ana, { title: 'Plage', text: 'Du vent' });
    const sorted = (...ids: string[]) => [...ids].sort();

    expect(await found('lopez')).toEqual(sorted(beach, reply));
    expect(await found('mia plage')).toEqual([beach]);
    expect(await found('ana plage')).toEqual([anas]);
    expect(await found('mia vent')).toEqual([]);

    // An edit keeps the name in the index.
    const edited = await h.api.put(`/messages/${beach}`, {
      key: mia.key,
      body: { data: { title: 'Plage', text: 'Beaucoup de soleil' } },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(await found('lopez beaucoup')).toEqual([beach]);

    // A rename re-indexes her messages, and only hers.
    const renamed = await h.api.put(`/users/${mia.user.id}`, { key: mia.key, body: { name: 'Zoé' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await found('lopez')).toEqual([]);
    expect(await found('mia')).toEqual([]);
    expect(await found('zoe')).toEqual(sorted(beach, reply));
    expect(await found('ZOÉ soleil')).toEqual(sorted(beach, reply));
    expect(await found('zoe plage')).toEqual([beach]);
    expect(await found('ana plage')).toEqual([anas]);
    // Other settings sent with the same name change nothing.
    const same = await h.api.put(`/users/${mia.user.id}`, {
      key: mia.key,
      body: { name: 'Zoé', data: { lang: 'fr_FR' } },
    });
    expect(same.status, same.text).toBe(200);
    expect(await found('zoe')).toEqual(sorted(beach, reply));
    const later = await create(mia, { text: 'Après le changement de nom' });
    expect(await found('zoe')).toEqual(sorted(beach, reply, later));

    // Her account goes: the texts stay searchable, no longer by her name.
    const deleted = await h.api.delete(`/users/${mia.user.id}`, { key: mia.key });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await found('zoe')).toEqual([]);
    expect(await found('soleil')).toEqual(sorted(beach, reply));
    expect(await found('changement')).toEqual([later]);
    expect(await found('plage')).toEqual(sorted(beach, anas));
    const res = await h.api.post('/messages/search', { key: ana.key, body: { group: group.id, search: 'soleil' } });
    expect(res.body.messages.map((m: { author: string }) => m.author)).toEqual(['', '']);
  });
});

describe('search is a read', () => {
  const h = useTestApp();

  it('does not count as the caller’s activity', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana] });
    const before = (await api.get('/me', { key: ana.key })).body.lastActivityDate;
    t.clock.advance(60_000);
    const res = await api.post('/messages/search', { key: ana.key, body: { group: group.id, search: 'x' } });
    expect(res.status).toBe(200);
    expect((await api.get('/me', { key: ana.key })).body.lastActivityDate).toBe(before);
  });
});
