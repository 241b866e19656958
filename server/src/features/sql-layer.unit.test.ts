import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The layer rule of docs/ARCHITECTURE.md: in a feature folder, SQL (Kysely statements and `sql`
// templates) lives only in `queries.ts`; routes stay thin and services hold the rules, calling
// named query functions. Tests may query directly; migrations are not under features/.

const FEATURES = import.meta.dirname;

// The start of a Kysely statement or sub-query, or a `sql` template (`sql<T>` included).
const STATEMENT = /\.(?:selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(?:<[^`\n]*>)?`/;

// Files allowed to hold SQL outside a queries.ts, with the reason. None so far: add one only for a
// statement that truly belongs elsewhere, and say why here.
const ALLOWED = new Set<string>([]);

/** The feature modules (paths relative to features/) that are neither queries.ts nor tests. */
function featureModules(): string[] {
  return readdirSync(FEATURES, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .filter((file) => path.posix.basename(file) !== 'queries.ts')
    .sort();
}

describe('the SQL layer of features/', () => {
  it('finds the feature modules it checks', () => {
    // Guards the test itself: a wrong folder would find nothing and pass.
    expect(featureModules()).toContain('messages/service.ts');
  });

  it('keeps every Kysely statement in a queries.ts', () => {
    const offending = featureModules().filter(
      (file) => !ALLOWED.has(file) && STATEMENT.test(readFileSync(path.join(FEATURES, file), 'utf8')),
    );
    expect(offending, 'move these statements into the folder’s queries.ts').toEqual([]);
  });

  it('recognizes the statement starts it looks for', () => {
    for (const line of [
      "db.selectFrom('users')",
      '  .insertInto(',
      "tx.updateTable('groups')",
      "eb.deleteFrom('x')",
      'sql`select 1`',
      'sql<number>`count(*)`',
    ]) {
      expect(STATEMENT.test(line), line).toBe(true);
    }
    expect(STATEMENT.test('const mysql = 1; selectFromList(); `template`')).toBe(false);
  });
});
