import { CompiledQuery, type QueryResult } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ChangeTracker, mayChange, PostgresReadMemo } from './postgres-memo.js';

const query = CompiledQuery.raw('select name from items where id = $1', ['x']);
const other = CompiledQuery.raw('select name from items where id = $1', ['y']);
const result = (name: string): QueryResult<unknown> => ({ rows: [{ name }] });

describe('PostgreSQL read memo', () => {
  const live = (now = () => 0) => {
    const memo = new PostgresReadMemo(1000, now);
    memo.listening(true);
    return memo;
  };

  it('keeps a result, by SQL and values, until a change', async () => {
    const memo = live();
    let runs = 0;
    const run = (name: string) => () => {
      runs++;
      return Promise.resolve(result(name));
    };
    const first = await memo.read(query, run('a'));
    expect(await memo.read(query, run('b'))).toBe(first);
    expect((await memo.read(other, run('c'))).rows).toEqual([{ name: 'c' }]);
    expect(runs).toBe(2);
    memo.changed();
    expect((await memo.read(query, run('d'))).rows).toEqual([{ name: 'd' }]);
    expect(runs).toBe(3);
  });

  it('keeps nothing while not listening', async () => {
    const memo = new PostgresReadMemo(1000, () => 0);
    await memo.read(query, () => Promise.resolve(result('a')));
    expect((await memo.read(query, () => Promise.resolve(result('b')))).rows).toEqual([{ name: 'b' }]);
    memo.listening(true);
    await memo.read(query, () => Promise.resolve(result('c')));
    memo.listening(false);
    expect(memo.size).toBe(0);
    expect((await memo.read(query, () => Promise.resolve(result('d')))).rows).toEqual([{ name: 'd' }]);
  });

  it('does not keep a result read while something changed', async () => {
    const memo = live();
    let finish: (value: QueryResult<unknown>) => void = () => undefined;
    const running = memo.read(query, () => new Promise<QueryResult<unknown>>((resolve) => (finish = resolve)));
    memo.changed();
    finish(result('old'));
    expect((await running).rows).toEqual([{ name: 'old' }]);
    expect(memo.size).toBe(0);
    expect((await memo.read(query, () => Promise.resolve(result('new')))).rows).toEqual([{ name: 'new' }]);
  });

  it('forgets every result once the oldest is older than its bound', async () => {
    let now = 0;
    const memo = live(() => now);
    await memo.read(query, () => Promise.resolve(result('a')));
    now = 999;
    expect((await memo.read(query, () => Promise.resolve(result('b')))).rows).toEqual([{ name: 'a' }]);
    now = 1000;
    expect((await memo.read(query, () => Promise.resolve(result('c')))).rows).toEqual([{ name: 'c' }]);
  });
});

describe('what a PostgreSQL statement changes', () => {
  it('tells a write by its command tag, or a SELECT by a data-modifying CTE', () => {
    expect(mayChange('select 1', { command: 'SELECT' })).toBe(false);
    expect(mayChange('insert into t values (1)', { command: 'INSERT' })).toBe(true);
    expect(mayChange('update t set a = 1', { command: 'UPDATE', rowCount: 1 })).toBe(true);
    // A write that found no row changed nothing.
    expect(mayChange('update t set a = 1 where false', { command: 'UPDATE', rowCount: 0 })).toBe(false);
    expect(mayChange('with w as (update t set a = 1 returning a) select a from w', { command: 'SELECT' })).toBe(true);
    expect(mayChange('select 1; select 2', [{}, {}])).toBe(true);
    expect(mayChange('create table x (a int)', { command: 'CREATE' })).toBe(true);
    expect(mayChange('set local work_mem = 1', { command: 'SET' })).toBe(false);
    // A column name holding a keyword is no write.
    expect(mayChange('select updated_at, is_deleted from t', { command: 'SELECT' })).toBe(false);
  });

  it('counts a transaction once, at its commit, and only if it wrote', () => {
    let changes = 0;
    const tracker = new ChangeTracker(() => changes++);
    tracker.answered('begin', { command: 'BEGIN' });
    tracker.answered('insert into t values (1)', { command: 'INSERT' });
    tracker.answered('update t set a = 2', { command: 'UPDATE' });
    expect(changes).toBe(0);
    tracker.answered('commit', { command: 'COMMIT' });
    expect(changes).toBe(1);
    tracker.answered('begin', { command: 'BEGIN' });
    tracker.answered('select 1', { command: 'SELECT' });
    tracker.answered('commit', { command: 'COMMIT' });
    expect(changes).toBe(1);
    tracker.answered('begin', { command: 'BEGIN' });
    tracker.answered('delete from t', { command: 'DELETE' });
    tracker.answered('rollback', { command: 'ROLLBACK' });
    expect(changes).toBe(1);
    // Outside a transaction: a write at once, a failed one never.
    tracker.answered('delete from t', { command: 'DELETE' });
    expect(changes).toBe(2);
    tracker.answered('delete from t', undefined);
    tracker.answered('select 1', { command: 'SELECT' });
    expect(changes).toBe(2);
  });
});
