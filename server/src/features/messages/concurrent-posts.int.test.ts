import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGroup, buildUser, postRow } from '../../../test/factories.js';
import { TEST_DIALECT, useTestApp } from '../../../test/harness.js';
import { signal } from '../../../test/signal.js';
import { newOrderedId } from '../../lib/ids.js';

// PostgreSQL runs posts to one group side by side (SQLite has one writer and batches them). Their
// transactions must not wait for each other's: the group's front count is kept by a trigger that
// runs at the commit (migration 0026), and the group's activity date is written last.
describe.runIf(TEST_DIALECT === 'postgres')('posts to one group at the same time (PostgreSQL)', () => {
  const h = useTestApp();
  const held = signal();
  afterAll(() => held.resolve());

  it('a post is answered while another post to the group is still open, and both are counted', async () => {
    const ana = await buildUser(h.t.ctx);
    const ben = await buildUser(h.t.ctx);
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const count = async () =>
      (await h.api.get(`/groups/${group.id}/page/0`, { key: ana.key })).body.totalItems as number;
    const before = await count();

    // Ana's post, written as far as its message row and left open.
    const inserted = signal();
    const now = h.t.clock.now();
    const open = h.t.ctx.db.kysely.transaction().execute(async (tx) => {
      await tx
        .insertInto('messages')
        .values(postRow(group.id, ana.user.id, now, { id: newOrderedId(now), title: 'Open' }))
        .execute();
      inserted.resolve();
      await held.promise;
    });
    await inserted.promise;

    // Ben's post goes through and is answered before Ana's transaction ends.
    const res = await h.api.post('/messages', { key: ben.key, body: { group: group.id, data: { text: 'Meanwhile' } } });
    expect(res.status).toBe(201);
    expect(await count()).toBe(before + 1);

    held.resolve();
    await open;
    expect(await count()).toBe(before + 2);
  });

  it('a message moves its group up at the commit, with no statement of its own, and never back', async () => {
    const ana = await buildUser(h.t.ctx);
    const group = await buildGroup(h.t.ctx, { members: [ana] });
    const activity = async () =>
      (
        await h.t.ctx.db.kysely
          .selectFrom('groups')
          .select('last_activity_date')
          .where('id', '=', group.id)
          .executeTakeFirstOrThrow()
      ).last_activity_date;
    const later = (await activity()) + 60_000;
    await h.t.ctx.db.kysely.transaction().execute(async (tx) => {
      await tx
        .insertInto('messages')
        .values(postRow(group.id, ana.user.id, later))
        .execute();
      // Until the commit the group's row is not locked for an update (only shared, by the foreign
      // key): another transaction's update could take it at once.
      await expect(
        sql`select 1 from groups where id = ${group.id} for no key update nowait`.execute(h.t.ctx.db.kysely),
      ).resolves.toBeDefined();
    });
    expect(await activity()).toBe(later);
    // A message dated earlier (an import, say) leaves the date where it is.
    await h.t.ctx.db.kysely
      .insertInto('messages')
      .values(postRow(group.id, ana.user.id, later - 30_000, { is_in_front: 0 }))
      .execute();
    expect(await activity()).toBe(later);
  });
});
