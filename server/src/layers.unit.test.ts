import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layering of server/src (docs/ARCHITECTURE.md, "Layers"): infrastructure folders never import a
// feature, and the features import each other as a tree (no two features import each other, however
// indirectly). ESLint's no-restricted-imports says the first rule at each import; this test says
// both over the whole tree, so a cycle through three folders is caught too.

const root = path.dirname(fileURLToPath(import.meta.url));

/** Folders whose code is domain-free: they may be imported by features, never the reverse. */
const INFRASTRUCTURE = ['db', 'events', 'http', 'jobs', 'lib', 'mail', 'media', 'search', 'storage'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.includes('.test.') ? [full] : [];
  });
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
    for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
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
