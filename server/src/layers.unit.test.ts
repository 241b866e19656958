import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layering of server/src (docs/ARCHITECTURE.md, "Layers"): infrastructure folders never import a
// feature, and the features import each other as a tree (no two features import each other, however
// indirectly). ESLint's no-restricted-imports says the first rule at each import; this test says
// both over the whole tree, so a cycle through three folders is caught too. And in a feature folder,
// SQL (Kysely statements and `sql` templates) lives only in `queries.ts`: routes stay thin and
// services hold the rules, calling named query functions. Tests may query directly.

const root = path.dirname(fileURLToPath(import.meta.url));

/** Folders whose code is domain-free: they may be imported by features, never the reverse. */
const INFRASTRUCTURE = ['db', 'events', 'http', 'jobs', 'lib', 'mail', 'media', 'search', 'storage'];

// The start of a Kysely statement or sub-query, or a `sql` template (`sql<T>` included).
const STATEMENT = /\.(?:selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(?:<[^`\n]*>)?`/;

// Feature files allowed to hold SQL outside a queries.ts, with the reason. None so far: add one only
// for a statement that truly belongs elsewhere, and say why here.
const SQL_ALLOWED = new Set<string>([]);

/** The source files under `dir` (absolute paths), tests left out. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.includes('.test.'))
    .map((file) => path.join(dir, file))
    .sort();
}

/** The feature modules (paths relative to features/, with `/`) that are not a queries.ts. */
function featureModules(): string[] {
  const features = path.join(root, 'features');
  return sourceFiles(features)
    .map((file) => path.relative(features, file).split(path.sep).join('/'))
    .filter((file) => path.posix.basename(file) !== 'queries.ts');
}

/** The folder of a file under server/src that counts as one unit: `features/<name>`, or the top folder. */
function unitOf(file: string): string {
  const parts = path.relative(root, file).split(path.sep);
  if (parts[0] === 'features' && parts.length > 2) return `features/${parts[1]}`;
  return parts.length > 1 ? (parts[0] ?? '') : '.';
}

/** Unit → the units its files import (relative imports only; packages are outside the rule). */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = unitOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import) '(\.{1,2}\/[^']+)'/g)) {
      const to = unitOf(path.resolve(path.dirname(file), match[1] ?? ''));
      if (to !== from) targets.add(to);
    }
  }
  return graph;
}

/** The import cycles among the given units, each as the path that closes it. */
function cycles(graph: Map<string, Set<string>>, units: string[]): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (unit: string, trail: string[]) => {
    state.set(unit, 'open');
    for (const next of graph.get(unit) ?? []) {
      if (!units.includes(next)) continue;
      if (state.get(next) === 'open') found.push([...trail.slice(trail.indexOf(next)), unit, next]);
      else if (state.get(next) === undefined) visit(next, [...trail, unit]);
    }
    state.set(unit, 'done');
  };
  for (const unit of units) if (state.get(unit) === undefined) visit(unit, []);
  return found;
}

describe('the layers of server/src', () => {
  const graph = importGraph();

  it('infrastructure folders import no feature', () => {
    const offending = INFRASTRUCTURE.flatMap((unit) =>
      [...(graph.get(unit) ?? [])].filter((to) => to.startsWith('features/')).map((to) => `${unit} -> ${to}`),
    );
    expect(offending).toEqual([]);
  });

  it('features import each other as a tree, without cycles', () => {
    const features = [...graph.keys()].filter((unit) => unit.startsWith('features/'));
    expect(features.length).toBeGreaterThan(5);
    expect(cycles(graph, features).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const sample = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(cycles(sample, ['a', 'b', 'c'])).toHaveLength(1);
    expect(cycles(new Map([['a', new Set(['b'])]]), ['a', 'b'])).toEqual([]);
  });
});

describe('the SQL layer of features/', () => {
  it('finds the feature modules it checks', () => {
    // Guards the test itself: a wrong folder would find nothing and pass.
    expect(featureModules()).toContain('messages/service.ts');
  });

  it('keeps every Kysely statement in a queries.ts', () => {
    const offending = featureModules().filter(
      (file) => !SQL_ALLOWED.has(file) && STATEMENT.test(readFileSync(path.join(root, 'features', file), 'utf8')),
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
