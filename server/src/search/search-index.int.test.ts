import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGroup, buildUser, type BuiltUser } from '../../test/factories.js';
import { TEST_DIALECT, useTestApp } from '../../test/harness.js';
import { transaction } from '../db/transaction.js';
import type { GroupRow } from '../features/groups/queries.js';
import { newId } from '../lib/ids.js';
import type { SearchResult } from './search-index.js';

// One suite for both engines: the `sqlite` project runs it on FTS5, the `postgres` project on
// PostgreSQL full text (contract §10.7).
describe(`search index on ${TEST_DIALECT} (contract §10.7)`, () => {
  const h = useTestApp();
  let ana: BuiltUser;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
  });

  const group = (): Promise<GroupRow> => buildGroup(h.t.ctx, { members: [ana] });

  interface Post {
    title?: string | null;
    text?: string | null;
    /** Milliseconds; default now. */
    lastActivity?: number;
    id?: string;
    parentId?: string;
    deleted?: boolean;
  }

  /** Inserts a message row and indexes it in the same transaction, as the messages service does. */
  const post = async (g: GroupRow, fields: Post): Promise<string> => {
    const id = fields.id ?? newId();
    const now = h.t.clock.now();
    const title = fields.title ?? null;
    const text = fields.text ?? null;
    await transaction(h.t.ctx, async (tx) => {
      await tx
        .insertInto('messages')
        .values({
          id,
          group_id: g.id,
          author_id: ana.user.id,
          parent_id: fields.parentId ?? null,
          root_id: fields.parentId ?? id,
          lineage: fields.parentId === undefined ? '[]' : JSON.stringify([fields.parentId]),
          title,
          text,
          no_embed: null,
          created_at: now,
          last_activity_date: fields.lastActivity ?? now,
          is_in_front: fields.parentId === undefined ? 1 : 0,
          is_deleted: fields.deleted === true ? 1 : 0,
          public_token: null,
        })
        .execute();
      await h.t.ctx.search.upsert(tx, [{ id, groupId: g.id, title, text }]);
    });
    return id;
  };

  const find = (g: GroupRow, search: string, hashtags = '', limit = 100): Promise<SearchResult> =>
    h.t.ctx.search.search(h.t.ctx.db.kysely, { groupId: g.id, search, hashtags, limit });

  const ids = async (g: GroupRow, search: string, hashtags = ''): Promise<string[]> =>
    (await find(g, search, hashtags)).hits.map((hit) => hit.messageId);

  /** Rows of the index table for one message (both engines name it message_search). */
  const indexRows = async (messageId: string): Promise<number> => {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from message_search where message_id = ${messageId}`.execute(h.t.ctx.db.kysely);
    return Number(rows[0]?.n);
  };

  it('folds accents and case on both sides', async () => {
    const g = await group();
    const noel = await post(g, { title: 'Joyeux Noël', text: 'À bientôt' });
    const summer = await post(g, { text: 'ÉTÉ 2025 au bord de la mer' });
    await post(g, { text: 'rien à voir' });
    expect(await ids(g, 'noel')).toEqual([noel]);
    expect(await ids(g, 'NOËL')).toEqual([noel]);
    expect(await ids(g, 'Noel')).toEqual([noel]);
    expect(await ids(g, 'ete')).toEqual([summer]);
    expect(await ids(g, 'été')).toEqual([summer]);
    expect(await ids(g, 'Bientot')).toEqual([noel]);
    expect((await find(g, 'NOËL+Été')).terms).toEqual(['noel', 'ete']);
  });

  it('matches hashtag terms exactly, and word terms inside hashtags', async () => {
    const g = await group();
    const tagged = await post(g, { text: 'Joyeux Noël #famille' });
    const titleTag = await post(g, { title: 'Photos #Famille', text: 'du week-end' });
    const plainWord = await post(g, { text: 'toute la famille réunie pour Noël' });
    const longerTag = await post(g, { text: 'souvenirs #familles' });
    const sorted = (list: string[]) => [...list].sort();

    expect(sorted(await ids(g, '#famille'))).toEqual(sorted([tagged, titleTag]));
    expect(sorted(await ids(g, '#FAMILLE'))).toEqual(sorted([tagged, titleTag]));
    // The hashtags field, with or without #, holds hashtag terms.
    expect(sorted(await ids(g, '', 'famille'))).toEqual(sorted([tagged, titleTag]));
    expect(sorted(await ids(g, '', '#famille'))).toEqual(sorted([tagged, titleTag]));
    // A word term and a hashtag term together.
    expect(await ids(g, 'noel #famille')).toEqual([tagged]);
    expect(await ids(g, 'noel', 'famille')).toEqual([tagged]);
    expect((await find(g, 'noel #famille')).terms).toEqual(['noel', '#famille']);
    // A hashtag term does not match a plain word.
    expect(await ids(g, '#noel')).toEqual([]);
    expect(await ids(g, '#reunie')).toEqual([]);
    // A word term matches plain words and the word part of hashtags, as a prefix.
    expect(sorted(await ids(g, 'famille'))).toEqual(sorted([tagged, titleTag, plainWord, longerTag]));
    expect(sorted(await ids(g, 'famil'))).toEqual(sorted([tagged, titleTag, plainWord, longerTag]));
  });

  it('requires every term (AND)', async () => {
    const g = await group();
    const both = await post(g, { title: 'La plage', text: 'Du soleil toute la journée' });
    const beachOnly = await post(g, { text: 'La plage sous la pluie' });
    await post(g, { text: 'Du soleil en montagne' });
    expect(await ids(g, 'plage soleil')).toEqual([both]);
    expect(await ids(g, 'plage+soleil+journee')).toEqual([both]);
    expect(await ids(g, 'plage soleil neige')).toEqual([]);
    expect([...(await ids(g, 'plage'))].sort()).toEqual([both, beachOnly].sort());
  });

  it('matches words by prefix only', async () => {
    const g = await group();
    const birthday = await post(g, { text: "Bon anniversaire Léa, l'été sera beau" });
    expect(await ids(g, 'anniv')).toEqual([birthday]);
    expect(await ids(g, 'anniversaire')).toEqual([birthday]);
    expect(await ids(g, 'versaire')).toEqual([]);
    expect(await ids(g, 'anniversaires')).toEqual([]);
    // "l'ete" is split like the text: the single letter is dropped, "ete" is a word term.
    expect(await ids(g, "l'ete")).toEqual([birthday]);
    expect((await find(g, "l'ete")).terms).toEqual(['ete']);
  });

  it('ranks title matches above text matches, then newer activity, then id', async () => {
    const g = await group();
    const t0 = h.t.clock.now();
    // Same length, same words but one: the title match ranks first, older as it is.
    const inText = await post(g, {
      title: 'Dimanche au parc',
      text: 'Nous avons fait une randonnée sous le soleil chaud',
      lastActivity: t0 + 5000,
    });
    const inTitle = await post(g, {
      title: 'Randonnée au parc',
      text: 'Nous avons fait une balade sous le soleil chaud',
      lastActivity: t0,
    });
    let result = await find(g, 'randonnee');
    expect(result.hits.map((hit) => hit.messageId)).toEqual([inTitle, inText]);
    expect(result.hits[0]?.score).toBeGreaterThan(result.hits[1]?.score ?? Infinity);
    for (const hit of result.hits) expect(hit.score).toBeGreaterThan(0);

    // Same relevance: the newest activity first, then the greater id.
    const older = await post(g, { title: 'Pique-nique', text: 'au parc', lastActivity: t0 + 1000 });
    const newer = await post(g, { title: 'Pique-nique', text: 'au parc', lastActivity: t0 + 2000 });
    const [lowId, highId] = ['00000000-0000-4000-8000-000000000001', 'ffffffff-ffff-4fff-bfff-fffffffffff1'];
    await post(g, { id: lowId, title: 'Pique-nique', text: 'au parc', lastActivity: t0 + 3000 });
    await post(g, { id: highId, title: 'Pique-nique', text: 'au parc', lastActivity: t0 + 3000 });
    result = await find(g, 'pique parc');
    expect(result.hits.map((hit) => hit.messageId)).toEqual([highId, lowId, newer, older]);
  });

  it('never returns messages of another group', async () => {
    const g = await group();
    const other = await group();
    const mine = await post(g, { text: 'Réunion de famille dimanche' });
    const theirs = await post(other, { text: 'Réunion de famille dimanche' });
    expect(await ids(g, 'reunion')).toEqual([mine]);
    expect(await ids(other, 'reunion')).toEqual([theirs]);
    expect((await find(g, 'reunion dimanche')).total).toBe(1);
    // The group's own scope marker is not a searchable word.
    expect(await ids(g, `g${g.id.replaceAll('-', '')}`)).toEqual([]);
    expect(await ids(g, g.id)).toEqual([]);
  });

  it('indexes replies too, and never returns placeholders', async () => {
    const g = await group();
    const root = await post(g, { title: 'Vacances' });
    const reply = await post(g, { text: 'Réponse: quelle belle randonnée', parentId: root });
    expect(await ids(g, 'quelle belle')).toEqual([reply]);
    // A placeholder left in the index by mistake is still filtered out.
    await post(g, { text: 'quelle belle journée', deleted: true });
    expect(await ids(g, 'quelle belle')).toEqual([reply]);
    expect((await find(g, 'quelle belle')).total).toBe(1);
  });

  it('remove() takes messages out of the index', async () => {
    const g = await group();
    const first = await post(g, { text: 'Cerises du jardin' });
    const second = await post(g, { text: 'Cerises du marché' });
    expect(await indexRows(first)).toBe(1);
    await transaction(h.t.ctx, (tx) => h.t.ctx.search.remove(tx, [first]));
    expect(await ids(g, 'cerises')).toEqual([second]);
    expect(await indexRows(first)).toBe(0);
    await transaction(h.t.ctx, (tx) => h.t.ctx.search.remove(tx, [second, newId()]));
    expect(await ids(g, 'cerises')).toEqual([]);
    await transaction(h.t.ctx, (tx) => h.t.ctx.search.remove(tx, []));
  });

  it('drops the index row when the message row itself is deleted', async () => {
    const g = await group();
    const gone = await post(g, { text: 'Framboises' });
    expect(await indexRows(gone)).toBe(1);
    await h.t.ctx.db.kysely.deleteFrom('messages').where('id', '=', gone).execute();
    expect(await indexRows(gone)).toBe(0);
  });

  it('upsert() replaces the old text', async () => {
    const g = await group();
    const id = await post(g, { title: 'Brouillon', text: 'ancien contenu' });
    await transaction(h.t.ctx, (tx) =>
      h.t.ctx.search.upsert(tx, [{ id, groupId: g.id, title: 'Version finale', text: 'nouveau contenu' }]),
    );
    expect(await ids(g, 'ancien')).toEqual([]);
    expect(await ids(g, 'brouillon')).toEqual([]);
    expect(await ids(g, 'nouveau')).toEqual([id]);
    expect(await ids(g, 'finale')).toEqual([id]);
    expect(await ids(g, 'contenu')).toEqual([id]);
    expect(await indexRows(id)).toBe(1);
    // The same message twice in one call: the last version wins.
    await transaction(h.t.ctx, (tx) =>
      h.t.ctx.search.upsert(tx, [
        { id, groupId: g.id, title: null, text: 'premier' },
        { id, groupId: g.id, title: null, text: 'second' },
      ]),
    );
    expect(await ids(g, 'premier')).toEqual([]);
    expect(await ids(g, 'second')).toEqual([id]);
    expect(await indexRows(id)).toBe(1);
  });

  it('treats query syntax, quotes and SQL in the input as plain text', async () => {
    const g = await group();
    const noel = await post(g, { title: 'Noël', text: 'near the tree, not far' });
    const inputs = [
      '"',
      '""',
      '"noel',
      'noel"',
      '*',
      'noel*',
      '-noel',
      'NEAR(noel tree)',
      'noel NEAR tree',
      'noel OR tree',
      'noel AND NOT tree',
      '(noel',
      'noel)',
      'title:noel',
      '{title}:noel',
      '^noel',
      "'",
      "noel'",
      '\\',
      'noel:*',
      'noel & !tree | far',
      '<->',
      "'; drop table messages; --",
      '%_',
      '@',
      '#',
      '##',
      '+++',
    ];
    for (const input of inputs) {
      await expect(find(g, input), input).resolves.toBeDefined();
      await expect(find(g, '', input), `hashtags ${input}`).resolves.toBeDefined();
    }
    // The symbols are dropped, the words remain ordinary terms.
    expect(await ids(g, '"noel"')).toEqual([noel]);
    expect(await ids(g, '-noel')).toEqual([noel]);
    expect(await ids(g, 'noel*')).toEqual([noel]);
    expect(await ids(g, 'NEAR')).toEqual([noel]);
    expect(await ids(g, 'noel OR absent')).toEqual([]);
    expect((await find(g, 'noel OR tree')).terms).toEqual(['noel', 'or', 'tree']);
    expect((await find(g, '"*-')).terms).toEqual([]);
    expect(await h.t.ctx.db.kysely.selectFrom('messages').select('id').where('id', '=', noel).execute()).toHaveLength(
      1,
    );
  });

  it('ignores single-character word terms', async () => {
    const g = await group();
    const id = await post(g, { text: 'Un chat a mangé x croquettes' });
    expect((await find(g, 'a chat x')).terms).toEqual(['chat']);
    expect(await ids(g, 'a chat x')).toEqual([id]);
    // Nothing usable: no term, no hit, even though "a" and "x" appear in the text.
    const none = await find(g, 'a x é');
    expect(none).toEqual({ hits: [], total: 0, terms: [] });
    expect(await find(g, '', '')).toEqual({ hits: [], total: 0, terms: [] });
    expect(await find(g, '  + +  ', ' ')).toEqual({ hits: [], total: 0, terms: [] });
  });

  it('uses at most 10 terms, each cut to 64 characters', async () => {
    const g = await group();
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    const id = await post(g, { text: words.join(' ') });
    const result = await find(g, [...words, 'kilo', 'lima'].join('+'));
    // kilo and lima are not in the text: they were not used.
    expect(result.terms).toEqual(words);
    expect(result.hits.map((hit) => hit.messageId)).toEqual([id]);
    // Hashtags count towards the same limit.
    expect((await find(g, words.join(' '), 'absent')).terms).toHaveLength(10);
    expect(await ids(g, words.slice(0, 9).join(' '), 'absent')).toEqual([]);

    const long = 'z'.repeat(70);
    const longId = await post(g, { text: `mot ${long}` });
    const cut = await find(g, long);
    expect(cut.terms).toEqual(['z'.repeat(64)]);
    expect(cut.hits.map((hit) => hit.messageId)).toEqual([longId]);
  });

  it('counts every match in total and returns at most limit hits', async () => {
    const g = await group();
    const t0 = h.t.clock.now();
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push(await post(g, { text: 'Pommes du verger', lastActivity: t0 + i }));
    await post(g, { text: 'Poires du verger' });
    const two = await find(g, 'pommes', '', 2);
    expect(two.total).toBe(5);
    expect(two.hits.map((hit) => hit.messageId)).toEqual([created[4], created[3]]);
    const all = await find(g, 'pommes');
    expect(all.total).toBe(5);
    expect(all.hits).toHaveLength(5);
    const none = await find(g, 'abricots', '', 2);
    expect(none).toEqual({ hits: [], total: 0, terms: ['abricots'] });
  });
});
