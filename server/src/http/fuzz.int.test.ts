// A fuzzing pass over every route of the API (issue 15): wrong types in every documented field,
// hostile path parameters and query strings, bodies that are huge, deeply nested, not JSON or not
// UTF-8, and broken multipart. Whatever comes in, the answer is never a 5xx and every error is the
// envelope of docs/api §1.5. Inputs come from a seeded generator, so a failure can be replayed.
import { randomUUID } from 'node:crypto';
import { ERROR_CODES } from '@kith/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { BOUNDARY, multipart, sendUpload, uploadFile } from '../../test/uploads.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Route {
  method: Method;
  /** OpenAPI form, e.g. `/api/groups/{id}`. */
  path: string;
  /** Every property name of the documented request body, nested ones included. */
  fields: string[];
}

interface OpenApiSchema {
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
}

interface OpenApiDocument {
  paths: Record<
    string,
    Partial<Record<Lowercase<Method>, { requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> } }>>
  >;
}

/** Property names of a JSON schema, depth first. */
function fieldNames(schema: OpenApiSchema | undefined, into: Set<string> = new Set()): string[] {
  if (schema === undefined) return [...into];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    into.add(name);
    fieldNames(child, into);
  }
  for (const child of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.items ? [schema.items] : [])]) {
    fieldNames(child, into);
  }
  return [...into];
}

/** A small deterministic generator (mulberry32), so a failing input can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values of the wrong type, size or shape for any field. */
const HOSTILE_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 53 + 1,
  true,
  '',
  '   ',
  'x'.repeat(70_000),
  '\ud800',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'ÿ'.repeat(300),
  [],
  [1, 'a', null],
  {},
  { $gt: '' },
  // Parsed, so `__proto__` is an own key that reaches the server (a literal would set the prototype).
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  Array.from({ length: 1000 }, (_, i) => i),
];

/** Path parameter values besides a real id. */
const HOSTILE_PARAMS = [
  () => randomUUID(),
  () => 'x',
  () => '%FF%FE',
  () => '..%2F..%2Fetc%2Fpasswd',
  () => 'a'.repeat(3000),
  () => '-1',
  () => '1e309',
  () => '%00',
  () => encodeURIComponent('😀'),
  () => randomUUID().toUpperCase(),
];

/** Query strings for every route (a repeated key arrives as an array). */
const HOSTILE_QUERIES = [
  '?limit=-1',
  '?limit=abc&limit=2',
  '?cursor=%FF&cursor=x',
  '?url=javascript:alert(1)',
  '?url=http://127.0.0.1:1/&url=x',
  `?expand=${'m'.repeat(5000)}`,
  '?page[]=1&lang[x]=y',
  '?%FF=%FE',
];

/** Raw bodies that are no JSON object at all. */
const HOSTILE_BODIES: (string | Buffer)[] = [
  '[]',
  'null',
  '"x"',
  '{"a":',
  '\u0000',
  '['.repeat(200_000),
  `{"a":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_001)}`,
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
  Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
  `{"data":{"text":"${'a'.repeat(1024 * 1024)}"}}`,
];

describe('fuzzing every route (issue 15)', () => {
  let t: TestApp;
  let api: ApiClient;
  let routes: Route[];
  let other: BuiltUser;
  let othersFile = '';

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    const doc = (await api.get('/openapi.json')).body as OpenApiDocument;
    routes = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'delete'] as const) {
        const operation = operations[method];
        if (operation === undefined) continue;
        const schema = Object.values(operation.requestBody?.content ?? {})[0]?.schema;
        routes.push({ method: method.toUpperCase() as Method, path, fields: fieldNames(schema) });
      }
    }
    other = await buildUser(t.ctx);
    const uploaded = await uploadFile(t, other.key, 'not really a jpeg, but a file', 'notes.txt', 'text/plain');
    othersFile = uploaded.status === 201 ? (uploaded.body as { id: string }).id : randomUUID();
  });
  afterAll(() => t.close());

  /**
   * A member with a group, a message in it, a notification and a bookmark: a new one for each route,
   * because some calls (reset the key, delete the account, leave the group) end what the next
   * would need.
   */
  async function world() {
    const me = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [me, other] });
    const post = await api.post('/messages', {
      key: other.key,
      body: { group: group.id, data: { text: 'hello #tag' } },
    });
    const message = (post.body as { id: string }).id;
    const mark = await api.post('/bookmarks', { key: me.key, body: { message } });
    const notifications = (await api.get('/me/notifications/5', { key: me.key })).body as { id: string }[];
    return {
      me,
      ids: {
        groups: group.id,
        messages: message,
        users: me.user.id,
        files: othersFile,
        notifications: notifications[0]?.id ?? randomUUID(),
        bookmarks: (mark.body as { id?: string }).id ?? randomUUID(),
      } as Record<string, string>,
    };
  }

  /** The path with its parameters filled: the real id of its kind, or a hostile value. */
  function fill(path: string, ids: Record<string, string>, hostile: (() => string) | null): string {
    const kind = /^\/api\/([a-z-]+)/.exec(path)?.[1] ?? '';
    return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      if (hostile !== null) return hostile();
      if (name === 'id') return ids[kind] ?? randomUUID();
      if (name === 'limit' || name === 'n') return '5';
      if (name === 'type') return 'thumbnail';
      if (name === 'w') return '720';
      if (name === 'h') return '99999';
      return ids[name.replace(/Id$/, 's')] ?? randomUUID();
    });
  }

  /** A body the route accepts, for the routes whose checks run in several steps; null for the others. */
  function validBody(route: Route, ids: Record<string, string>): Record<string, unknown> | null {
    const key = `${route.method} ${route.path}`;
    const bodies: Record<string, Record<string, unknown>> = {
      'POST /api/messages': { group: ids.groups, parent: ids.messages, data: { title: 't', text: 'x #y' }, files: [] },
      'PUT /api/messages/{id}': { data: { title: 't', text: 'x' }, files: [] },
      'PUT /api/users/{id}': { name: 'N', data: { notification_emails: 'daily', lang: 'fr_FR' } },
      'POST /api/groups': { name: 'G' },
      'PUT /api/groups/{id}': { name: 'G' },
      'POST /api/messages/search': { group: ids.groups, search: 'hello', hashtags: ['tag'], limit: 10 },
      'POST /api/bookmarks': { message_id: ids.messages },
      'POST /api/login': { login: 'nobody@example.org', password: 'wrong password' },
      'PUT /api/notifications/{id}': { read: true },
    };
    return bodies[key] ?? null;
  }

  const failures: string[] = [];
  let probes = 0;
  let slowest = { ms: 0, what: '' };

  /** Sends one request and records it when the answer breaks the rules. */
  async function probe(
    method: Method,
    url: string,
    key: string | undefined,
    payload?: string | Buffer,
    contentType = 'application/json',
  ): Promise<void> {
    const started = performance.now();
    const res = await t.app.inject({
      method,
      url,
      headers: { ...(key !== undefined ? { 'x-auth-token': key } : {}), 'content-type': contentType },
      ...(payload !== undefined ? { payload } : {}),
    });
    const ms = performance.now() - started;
    probes += 1;
    const what = `${method} ${url.slice(0, 160)} ${payload === undefined ? '' : String(payload).slice(0, 120)}`;
    if (ms > slowest.ms) slowest = { ms, what };
    if (res.statusCode >= 500) {
      failures.push(`${res.statusCode} ${what} → ${res.body.slice(0, 200)}`);
      return;
    }
    if (res.statusCode >= 400) {
      let body: { code?: string; message?: unknown; error?: unknown } = {};
      try {
        body = JSON.parse(res.body) as typeof body;
      } catch {
        failures.push(`${res.statusCode} without JSON envelope: ${what} → ${res.body.slice(0, 200)}`);
        return;
      }
      const known = (ERROR_CODES as readonly string[]).includes(body.code ?? '');
      if (!known || typeof body.message !== 'string' || body.error !== body.message) {
        failures.push(`${res.statusCode} with a broken envelope: ${what} → ${res.body.slice(0, 200)}`);
      }
    }
  }

  it('answers every hostile request to every route without a 5xx, errors in the envelope', async () => {
    expect(routes.length).toBeGreaterThan(30);
    const next = random(15);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    // Routes that end the caller's account or key go last within each world, so they cannot
    // hide the others' answers behind 401.
    const ending = (route: Route) =>
      /reset-api-key|^DELETE \/api\/(me|users)/.test(`${route.method} ${route.path}`) ? 1 : 0;
    for (const route of routes) {
      const routeStart = performance.now();
      const { me, ids } = await world();
      const url = fill(route.path, ids, null);
      const write = route.method === 'POST' || route.method === 'PUT';
      if (route.path === '/api/events') {
        // A valid key opens a stream that never ends: only refusals are probed here (the stream
        // itself has its own tests).
        for (const query of HOSTILE_QUERIES) await probe(route.method, `${url}${query}`, undefined);
        await probe(route.method, url, 'x'.repeat(5000));
        continue;
      }
      for (const hostile of HOSTILE_PARAMS) await probe(route.method, fill(route.path, ids, hostile), me.key);
      for (const query of HOSTILE_QUERIES) await probe(route.method, `${url}${query}`, me.key);
      await probe(route.method, url, undefined);
      await probe(route.method, url, 'x'.repeat(5000));
      if (write && ending(route) === 0) {
        for (const body of HOSTILE_BODIES) await probe(route.method, url, me.key, body);
        // Every documented field with each hostile value, then random mixes of them.
        for (const value of HOSTILE_VALUES) {
          const body: Record<string, unknown> = {};
          for (const field of route.fields) body[field] = value;
          body.data = { ...Object.fromEntries(route.fields.map((f) => [f, value])) };
          await probe(route.method, url, me.key, JSON.stringify(body));
        }
        // A valid body with one field made hostile at a time, so each value reaches the checks that
        // come after the first field's.
        const base = validBody(route, ids);
        if (base !== null) {
          for (const field of route.fields) {
            for (const value of HOSTILE_VALUES) {
              const body = structuredClone(base);
              const holder = field in body || !('data' in body) ? body : (body.data as Record<string, unknown>);
              holder[field] = value;
              await probe(route.method, url, me.key, JSON.stringify(body));
            }
          }
        }
        for (let i = 0; i < 25; i += 1) {
          const body: Record<string, unknown> = {};
          for (const field of route.fields) if (next() < 0.7) body[field] = pick(HOSTILE_VALUES);
          if (next() < 0.5) body.data = { text: pick(HOSTILE_VALUES), title: pick(HOSTILE_VALUES) };
          await probe(route.method, url, me.key, JSON.stringify(body));
        }
      }
      if (process.env.FUZZ_DEBUG) {
        console.info(
          `${route.method} ${route.path} [${route.fields.join(',')}] ${(performance.now() - routeStart).toFixed(0)} ms`,
        );
      }
    }
    // The routes that end the account, last, with the same hostile bodies.
    for (const route of routes.filter((r) => ending(r) === 1)) {
      for (const value of HOSTILE_VALUES) {
        const { me, ids } = await world();
        await probe(route.method, fill(route.path, ids, null), me.key, JSON.stringify({ password: value, x: value }));
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    // The documented bodies were found, so the wrong-type probes reached the services' checks.
    const fieldsOf = (method: Method, path: string) =>
      routes.find((r) => r.method === method && r.path === path)?.fields;
    expect(fieldsOf('POST', '/api/messages')).toEqual(expect.arrayContaining(['group', 'data', 'text']));
    expect(fieldsOf('PUT', '/api/users/{id}')).toEqual(expect.arrayContaining(['name', 'password']));
    expect(probes).toBeGreaterThan(2500);
    // Not a timing assertion: the slowest request is printed for the note.
    console.info(`fuzz: ${probes} requests, slowest ${slowest.ms.toFixed(0)} ms: ${slowest.what}`);
  }, 300_000);

  it('answers broken multipart uploads with 400 and stores nothing', async () => {
    const me = await buildUser(t.ctx);
    const countFiles = async () =>
      Number(
        (
          await t.ctx.db.kysely
            .selectFrom('files')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await countFiles();
    const good = multipart([{ name: 'file', filename: 'a.txt', type: 'text/plain', data: 'hello' }]);
    const cases: [string, Buffer, string][] = [
      ['no boundary', good, 'multipart/form-data'],
      ['a wrong boundary', good, 'multipart/form-data; boundary=nope'],
      ['a body cut before the closing boundary', good.subarray(0, good.length - 20), ''],
      ['a body cut inside the part headers', good.subarray(0, 30), ''],
      ['only the closing boundary', Buffer.from(`--${BOUNDARY}--\r\n`), ''],
      ['garbage', Buffer.from('\u0000\u0001garbage'), ''],
      ['a JSON body', Buffer.from('{"file":"x"}'), ''],
      ['an empty body', Buffer.alloc(0), ''],
      [
        'a part without a name',
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; filename="a.jpg"\r\n\r\nxyz\r\n--${BOUNDARY}--\r\n`,
        ),
        '',
      ],
    ];
    const answers: string[] = [];
    for (const [label, payload, type] of cases) {
      const res = await sendUpload(t, me.key, payload, type === '' ? undefined : type);
      answers.push(`${label}: ${res.status} ${(res.body as { code?: string }).code ?? res.text.slice(0, 80)}`);
      expect(res.status, label).toBeGreaterThanOrEqual(400);
      expect(res.status, label).toBeLessThan(500);
    }
    expect(await countFiles(), answers.join('\n')).toBe(before);
  });
});
