import { threadId as mainThreadId } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { TEST_DIALECT, useTestApp } from '../../../test/harness.js';
import type { GroupRow } from '../../db/rows.js';
import { SEARCH_APPLICATION_NAME } from '../../search/postgres-fts.js';
import { answerSearch } from './answer.js';
import { searchRunner, searchThreadLimits, type SearchRunner } from './threads.js';

// Where searches run (threads.ts): in a worker thread with its own read-only connection on a SQLite
// file, in the server's thread on PostgreSQL (on connections of their own) and on a SQLite
// `:memory:` database.
describe('searches off the event loop (issue 23)', () => {
  const h = useTestApp();
  const sqlite = TEST_DIALECT === 'sqlite';
  const limits = { ...searchThreadLimits };
  const runners: SearchRunner[] = [];
  let ana: BuiltUser;
  let outsider: BuiltUser;
  let group: GroupRow;

  const runner = (ctx = h.t.ctx): SearchRunner => {
    const made = searchRunner(ctx);
    runners.push(made);
    return made;
  };
  const search = (key: string, words: string) =>
    h.api.post('/messages/search', { key, body: { group: group.id, search: words } });
  const post = async (text: string): Promise<string> => {
    const res = await h.api.post('/messages', { key: ana.key, body: { group: group.id, data: { text } } });
    expect(res.status, res.text).toBe(201);
    return (res.body as { id: string }).id;
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    outsider = await buildUser(h.t.ctx, { name: 'Zed' });
    group = await buildGroup(h.t.ctx, { name: 'Walkers', members: [ana] });
    await post('Lanterns along the river at dusk');
    await post('The river walk is on Sunday');
  });

  afterEach(async () => {
    Object.assign(searchThreadLimits, limits);
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });

  it('answers what the server thread would, from a worker thread on a SQLite file only', async () => {
    const query = { groupId: group.id, search: 'river', hashtags: '', limit: 100 };
    const here = await answerSearch(h.t.ctx.db.kysely, h.t.ctx.search, query);
    expect(here.totalItems).toBe(2);
    const searches = runner();
    expect(JSON.parse(Buffer.from(await searches.answer(query)).toString())).toEqual(here);
    if (sqlite) {
      expect(searches.threadId).not.toBeNull();
      expect(searches.threadId).not.toBe(mainThreadId);
    } else {
      expect(searches.threadId).toBeNull();
    }
    // No other connection can open a `:memory:` database: the server's thread searches it.
    const memory = runner({
      ...h.t.ctx,
      config: { ...h.t.ctx.config, database: { kind: 'sqlite', file: ':memory:' } },
    });
    expect(JSON.parse(Buffer.from(await memory.answer(query)).toString())).toEqual(here);
    expect(memory.threadId).toBeNull();
  });

  it.runIf(!sqlite)('searches on PostgreSQL on connections of its own, closed when it stops', async () => {
    // Counted from the test's start: the app's own runner (the route's) may hold one from an earlier
    // test, and close it meanwhile after 10 s idle.
    const { rows: started } = await sql<{ at: Date }>`select clock_timestamp() as at`.execute(h.t.ctx.db.kysely);
    const since = started[0]?.at;
    const backends = async () => {
      const { rows } = await sql<{ n: string | number }>`
        select count(*) as n from pg_stat_activity
        where datname = current_database() and application_name = ${SEARCH_APPLICATION_NAME}
          and backend_start >= ${since}`.execute(h.t.ctx.db.kysely);
      return Number(rows[0]?.n);
    };
    const searches = runner();
    const answer = await searches.answer({ groupId: group.id, search: 'river', hashtags: '', limit: 100 });
    expect(JSON.parse(Buffer.from(answer).toString())).toMatchObject({ totalItems: 2 });
    expect(await backends()).toBe(1);
    await searches.stop();
    await vi.waitFor(async () => expect(await backends()).toBe(0), { timeout: 10_000 });
  });

  it('finds a message posted just before, and never shows a group to an outsider', async () => {
    const id = await post('Fireflies above the meadow');
    const res = await search(ana.key, 'firefl');
    expect(res.status, res.text).toBe(200);
    // The worker's JSON goes out as it is, typed as JSON.
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((res.body as { messages: { id: string }[] }).messages.map((m) => m.id)).toEqual([id]);
    expectError(await search(outsider.key, 'firefl'), 404, 'not_found');
  });

  it.runIf(sqlite)(
    'answers 503 with Retry-After past the deadline, and the next search runs in a new worker',
    async () => {
      searchThreadLimits.deadlineMs = 0;
      // A warm worker may still answer a tiny search before a 0 ms timer fires: ask until one is late.
      let late = await search(ana.key, 'river');
      await expect
        .poll(async () => {
          late = await search(ana.key, 'river');
          return late.status;
        })
        .toBe(503);
      expectError(late, 503, 'service_unavailable');
      expect(late.headers['retry-after']).toBe('1');
      searchThreadLimits.deadlineMs = limits.deadlineMs;
      const res = await search(ana.key, 'river');
      expect(res.status, res.text).toBe(200);
      expect((res.body as { totalItems: number }).totalItems).toBe(2);
    },
  );

  it('answers 503 at once while too many searches wait, and nothing is lost after', async () => {
    searchThreadLimits.maxWaiting = 0;
    const crowded = await search(ana.key, 'river');
    expectError(crowded, 503, 'service_unavailable');
    expect(crowded.headers['retry-after']).toBe('1');
    searchThreadLimits.maxWaiting = limits.maxWaiting;
    expect((await search(ana.key, 'river')).status).toBe(200);
  });
});
