import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/harness.js';
import { formatOpenApiDocument, OPENAPI_FILE, OPENAPI_FILE_ENV } from './openapi-file.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');

/** Where two JSON values differ, as JSON pointers (at most `limit` of them), to point at the change. */
function differences(committed: unknown, served: unknown, at = '', limit = 10): string[] {
  if (isDeepStrictEqual(committed, served)) return [];
  const bothObjects =
    typeof committed === 'object' && committed !== null && typeof served === 'object' && served !== null;
  if (!bothObjects || Array.isArray(committed) !== Array.isArray(served)) return [at === '' ? '/' : at];
  const found: string[] = [];
  const a = committed as Record<string, unknown>;
  const b = served as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (found.length >= limit) break;
    const pointer = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    found.push(...differences(a[key], b[key], pointer, limit - found.length));
  }
  // Same keys and values in another order: the text differs, no single value does.
  return found.length > 0 ? found : [at === '' ? '/' : at];
}

describe(`${OPENAPI_FILE} (docs/api/README.md)`, () => {
  // The settings the file is generated with, so the document served here is the one it must hold.
  const h = useTestApp(OPENAPI_FILE_ENV);

  it('is exactly the document the server serves', async () => {
    const res = await h.api.get('/openapi.json');
    expect(res.status).toBe(200);
    const committed = readFileSync(path.join(repoRoot, OPENAPI_FILE), 'utf8');
    if (committed === formatOpenApiDocument(res.body)) return;
    let differing: string[];
    try {
      differing = differences(JSON.parse(committed), res.body);
    } catch {
      differing = ['the file is not valid JSON'];
    }
    expect.fail(
      `${OPENAPI_FILE} is not what the server serves: run \`npm run docs:api\` and commit the file.\n` +
        `First differences: ${differing.join(', ')}`,
    );
  });
});
