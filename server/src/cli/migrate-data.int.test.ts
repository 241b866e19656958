import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { dropDatabase, TEST_DB_PREFIX, urlForDatabase, withAdmin } from '../../test/postgres.js';
import { s3Env, startS3Server, type TestS3Server } from '../../test/s3.js';
import { rotatedPhotoWithGps, uploadFile } from '../../test/uploads.js';
import { loadConfig } from '../config.js';
import { openDatabase, type Db } from '../db/database.js';
import { acquireInstanceLock } from '../db/instance-lock.js';
import { migrateToLatest } from '../db/migrate.js';
import { newId } from '../lib/ids.js';
import { randomToken } from '../lib/secrets.js';
import { S3FileStore } from '../storage/s3-file-store.js';
import { migrateData } from './migrate-data.js';
import { runCliCaptured } from '../../test/cli.js';

// `migrate-data` end to end: an embedded instance built through the API (SQLite in a DATA_DIR,
// files in DATA_DIR/files) copied into a fresh PostgreSQL database and an S3 bucket of a test
// s3rver, then served by an app built on the copy. Runs in both projects: the source is always
// embedded (the scale-out settings the postgres project adds are blanked), and every target
// database and bucket is this file's own.

/** Blanks the scale-out settings the postgres project gives test apps: the source is embedded. */
const EMBEDDED = {
  DATABASE_URL: '',
  REDIS_URL: '',
  S3_BUCKET: '',
  S3_ENDPOINT: '',
  S3_ACCESS_KEY_ID: '',
  S3_SECRET_ACCESS_KEY: '',
  S3_FORCE_PATH_STYLE: '',
};

/** The tables the command copies, as the report names them. */
const TABLES = [
  'kith_meta',
  'users',
  'groups',
  'memberships',
  'messages',
  'notifications',
  'password_reset_keys',
  'bookmarks',
  'reactions',
  'mentions',
  'files',
  'message_files',
  'links',
  'jobs',
  'digest_runs',
  'reply_addresses',
  'received_replies',
] as const;

const FIXTURES = path.join(import.meta.dirname, '../../test/fixtures');
/** What a server killed while writing a file leaves in the folder (storage/local-file-store.ts). */
const CUT_WRITE = 'tmp/upload.part-4242-k3x9';

const suffix = () =>
  randomToken()
    .slice(0, 10)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');

// Each test copies a whole instance and starts apps: more than the project's 20 s on a busy machine.
describe('migrate-data', { timeout: 60_000 }, () => {
  let s3: TestS3Server;
  let source: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  let ben: BuiltUser;
  let familyId: string;
  let photoId: string;
  let beachPostId: string;
  let thumbnail: Buffer;
  /** Rows per table in the source, jobs counting only those still to run. */
  const expected: Record<string, number> = {};
  const databases: string[] = [];
  const opened: Db[] = [];

  /** A new, empty PostgreSQL database of this file's own (dropped at the end); returns its URL. */
  async function emptyDatabase(): Promise<string> {
    // Named like the harness's, so that a crashed run's leftovers are dropped by the next one.
    const name = `${TEST_DB_PREFIX}${process.pid}_migrate_${suffix()}`;
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
    databases.push(name);
    return urlForDatabase(name);
  }

  async function newBucket(): Promise<string> {
    const bucket = `kith-migrate-${suffix()}`;
    await s3.createBucket(bucket);
    return bucket;
  }

  function open(url: string): Db {
    const db = openDatabase({ kind: 'postgres', url });
    opened.push(db);
    return db;
  }

  /** The source's configuration, as the CLI reads it, with more variables. */
  function sourceEnv(more: Record<string, string> = {}): Record<string, string> {
    return {
      DATA_DIR: source.config.dataDir,
      SECRET_KEY: source.config.secretKey,
      PUBLIC_URL: 'http://kith.test',
      ...more,
    };
  }

  const cli = runCliCaptured;

  async function count(db: Db, table: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db.kysely);
    return Number(rows[0]?.n);
  }

  async function countsOf(db: Db): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of TABLES) out[table] = await count(db, table);
    return out;
  }

  /** Every key of the source's store: the files under DATA_DIR/files but the write a crash cut. */
  function sourceKeys(): string[] {
    const root = path.join(source.config.dataDir, 'files');
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
      .filter((key) => key !== CUT_WRITE)
      .sort();
  }

  beforeAll(async () => {
    s3 = await startS3Server();
    source = await createTestApp(EMBEDDED);
    api = new ApiClient(source.app);
    const ctx = source.ctx;
    expect(ctx.db.dialect).toBe('sqlite');
    ana = await buildUser(ctx, { name: 'Ana Lima', login: 'ana@example.org' });
    ben = await buildUser(ctx, { name: 'Ben' });
    const cat = await buildUser(ctx, { name: 'Cat' });
    const zed = await buildUser(ctx, { name: 'Zed' });
    const family = await buildGroup(ctx, { name: 'Family', members: [ana, ben, cat], notify: true });
    familyId = family.id;
    const club = await buildGroup(ctx, { name: 'Club', members: [ana, zed] });

    const post = async (key: string, body: Record<string, unknown>) => {
      const res = await api.post('/messages', { key, body });
      expect(res.status, res.text).toBe(201);
      return String(res.body.id);
    };
    // A picture attached to a post, and the thumbnail another member's view made of it.
    const photo = await uploadFile(source, ana.key, await rotatedPhotoWithGps(), 'beach.jpg');
    expect(photo.status, photo.text).toBe(201);
    photoId = String(photo.body.id);
    beachPostId = await post(ana.key, {
      group: family.id,
      data: { title: 'Étretat', text: 'The cliffs at Étretat, with the whole #family' },
      files: [photoId],
    });
    const thumb = await source.app.inject({
      url: `/api/images/thumbnail/720/99999/${photoId}`,
      headers: { 'x-auth-token': ben.key },
    });
    expect(thumb.statusCode, thumb.body).toBe(200);
    thumbnail = thumb.rawPayload;
    // More files, so that an interrupted copy leaves some behind: a PDF and small pictures.
    const more: string[] = [];
    const pdf = await uploadFile(
      source,
      ben.key,
      readFileSync(path.join(FIXTURES, 'first-page-dark-top.pdf')),
      'menu.pdf',
      'application/pdf',
    );
    expect(pdf.status, pdf.text).toBe(201);
    more.push(String(pdf.body.id));
    for (const shade of [40, 120, 220]) {
      const png = await sharp({
        create: { width: 40, height: 30, channels: 3, background: { r: shade, g: 90, b: 10 } },
      })
        .png()
        .toBuffer();
      const picture = await uploadFile(source, ben.key, png, `swatch-${shade}.png`, 'image/png');
      expect(picture.status, picture.text).toBe(201);
      more.push(String(picture.body.id));
    }
    await post(ben.key, { group: family.id, data: { text: 'The menu and some colours' }, files: more });

    // Posts and replies at several depths, in both groups; one post deleted, one reply deleted
    // under a reply (it stays as a placeholder).
    for (let i = 0; i < 8; i += 1) {
      const id = await post(i % 2 === 0 ? ana.key : ben.key, {
        group: family.id,
        data: { text: `Family news number ${i}` },
      });
      const reply = await post(cat.key, { group: family.id, parent: id, data: { text: `Reply ${i} from Cat` } });
      if (i % 3 === 0) await post(ana.key, { group: family.id, parent: reply, data: { text: `Answer ${i}` } });
    }
    await post(ben.key, { group: family.id, parent: beachPostId, data: { text: 'Lovely' } });
    const gone = await post(ana.key, { group: family.id, data: { text: 'A typo' } });
    expect((await api.delete(`/messages/${gone}`, { key: ana.key })).status).toBe(204);
    const holder = await post(ben.key, { group: family.id, data: { text: 'Thread with a hole' } });
    const hole = await post(ana.key, { group: family.id, parent: holder, data: { text: 'Soon deleted' } });
    await post(cat.key, { group: family.id, parent: hole, data: { text: 'Below the hole' } });
    expect((await api.delete(`/messages/${hole}`, { key: ana.key })).status).toBe(204);
    for (let i = 0; i < 3; i += 1) await post(zed.key, { group: club.id, data: { text: `Club meeting ${i}` } });

    expect((await api.post('/bookmarks', { key: ben.key, body: { message_id: beachPostId } })).status).toBe(201);
    expect((await api.post('/bookmarks', { key: ana.key, body: { message_id: holder } })).status).toBe(201);
    // Issue 20: reactions and a pin travel with the messages.
    const react = (key: string, reaction: string) =>
      api.post(`/messages/${beachPostId}/reactions`, { key, body: { reaction } });
    expect((await react(ben.key, '👍')).status).toBe(200);
    expect((await react(cat.key, '👍')).status).toBe(200);
    expect((await react(cat.key, '🎉')).status).toBe(200);
    expect((await api.put(`/messages/${holder}`, { key: cat.key, body: { pinnedInGroup: true } })).status).toBe(200);
    // Issue 21: a mention travels with its message.
    await post(ben.key, { group: family.id, data: { text: 'Thanks @Ana Lima' }, mentions: [ana.user.id] });
    // A password reset: its key, and the mail's job still queued (nothing runs jobs here).
    expect((await api.post('/password-reset-mail', { body: { mail: 'ana@example.org' } })).status).toBe(200);

    // What the API cannot make here (link previews are off in tests, jobs never finish, digests
    // never run): written as the services would.
    const now = source.clock.now();
    await ctx.db.kysely
      .insertInto('links')
      .values({
        id: newId(),
        url: 'https://example.org/page',
        data: JSON.stringify({ title: 'A page' }),
        preview_file_id: null,
        updated_at: now,
        failed: 0,
      })
      .execute();
    const job = (status: 'queued' | 'running' | 'done' | 'failed') => ({
      id: newId(),
      name: 'test-never-registered',
      payload: '{}',
      status,
      attempts: status === 'queued' ? 0 : 1,
      max_attempts: 3,
      run_after: now,
      locked_until: status === 'running' ? now + 60_000 : null,
      last_error: status === 'failed' ? 'boom' : null,
      created_at: now,
      updated_at: now,
    });
    await ctx.db.kysely
      .insertInto('jobs')
      .values([job('done'), job('failed'), job('queued'), job('running')])
      .execute();
    await ctx.db.kysely.insertInto('digest_runs').values({ frequency: 'daily', slot: now }).execute();
    mkdirSync(path.join(source.config.dataDir, 'files', 'tmp'), { recursive: true });
    writeFileSync(path.join(source.config.dataDir, 'files', CUT_WRITE), 'half an upload');

    Object.assign(expected, await countsOf(ctx.db));
    expected.jobs = Number(
      (
        await ctx.db.kysely
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirstOrThrow()
      ).n,
    );
    // The first run adds the instance's identity to kith_meta.
    expected.kith_meta = (expected.kith_meta ?? 0) + 1;
  }, 60_000);

  afterAll(async () => {
    for (const db of opened) await db.close();
    await source?.close();
    await withAdmin(async (client) => {
      for (const name of databases) await dropDatabase(client, name);
    });
    await s3?.close();
  });

  it('copies the instance, and an app on the copy serves the same data, files and search', async () => {
    const url = await emptyDatabase();
    const bucket = await newBucket();
    const env = sourceEnv(s3Env(s3.endpoint, bucket));
    const out = await cli(['migrate-data', '--to', url, '--files-to', 's3'], env);
    expect(out.code, out.stderr).toBe(0);
    const report = out.json;
    for (const table of TABLES) expect(report.tables[table].rows, table).toBe(expected[table]);
    expect(report.tables.jobs.notCopied).toBe(2);
    expect(report.tables.messages.copied).toBe(expected.messages);
    expect(report.search.rows).toBe(report.search.indexed);
    expect(report.groupsCorrected).toBe(0);
    expect(report.sequences).toEqual([]);
    const keys = sourceKeys();
    // The cleaned photo and its thumbnail, the PDF and three pictures.
    expect(keys).toHaveLength(6);
    expect(report.files).toMatchObject({ count: 6, copied: 6, alreadyThere: 0, skipped: [CUT_WRITE] });
    expect(report.target).toEqual({ database: url, files: `s3://${bucket}` });
    // Progress on stderr, the JSON report alone on stdout.
    expect(out.stderr).toMatch(/^migrate-data: messages \d+\/\d+ rows/m);
    expect(out.stderr).toMatch(/^migrate-data: files 6, .* verified/m);

    const target = open(url);
    expect(await countsOf(target)).toEqual(expected);
    // The mail of the password reset, the queued job, and the running one queued again.
    const jobs = await target.kysely.selectFrom('jobs').select(['status', 'locked_until']).execute();
    expect(jobs).toHaveLength(3);
    expect(new Set(jobs.map((job) => `${job.status} ${job.locked_until}`))).toEqual(new Set(['queued null']));
    // The counters: as in the source, not counted twice by the trigger.
    const fronts = async (db: Db) =>
      (await db.kysely.selectFrom('groups').select(['id', 'front_count']).orderBy('id').execute()).map((g) => [
        g.id,
        Number(g.front_count),
      ]);
    expect(await fronts(target)).toEqual(await fronts(source.ctx.db));
    // Every file in the bucket, byte for byte.
    const store = new S3FileStore(loadConfig(env).s3 ?? expect.unreachable());
    for (const key of keys) {
      const chunks: Buffer[] = [];
      for await (const chunk of store.read(key) as AsyncIterable<Buffer>) chunks.push(chunk);
      expect(Buffer.concat(chunks).equals(readFileSync(path.join(source.config.dataDir, 'files', key))), key).toBe(
        true,
      );
    }

    // Run again: nothing to add, every file already there.
    const again = await cli(['migrate-data', '--to', url, '--files-to', 's3'], env);
    expect(again.code, again.stderr).toBe(0);
    for (const table of TABLES) expect(again.json.tables[table].copied, table).toBe(0);
    expect(again.json.files).toMatchObject({ count: 6, copied: 0, alreadyThere: 6 });

    // An app on the copy (same secret, the bucket for files).
    const moved = await createTestApp({ DATABASE_URL: url, ...s3Env(s3.endpoint, bucket) });
    try {
      expect(moved.ctx.db.dialect).toBe('postgres');
      const there = new ApiClient(moved.app);
      const login = await there.post('/login', { body: { login: 'ana@example.org', password: ana.password } });
      expect(login.status, login.text).toBe(200);
      expect(login.body.api_key).toBe(ana.key);

      for (const path of [`/groups/${familyId}/page/0`, `/groups/${familyId}/feed`, `/me/bookmarks`, `/me`]) {
        const before = await api.get(path, { key: ana.key });
        const after = await there.get(path, { key: ana.key });
        expect(after.status, path).toBe(200);
        expect(after.body, path).toEqual(before.body);
      }
      const notifications = async (client: ApiClient) =>
        (await client.get('/me/notifications/200', { key: ben.key })).body.map((n: { id: string }) => n.id);
      expect(await notifications(there)).toEqual(await notifications(api));

      // The photo's bytes and its thumbnail, served from the bucket.
      const message = await there.get(`/messages/${beachPostId}`, { key: ben.key });
      expect(message.status).toBe(200);
      const file = message.body.files[0];
      expect(file.id).toBe(photoId);
      const bytes = await moved.app.inject({ url: `/files/${file.contentUrl}` });
      expect(bytes.statusCode).toBe(200);
      expect(bytes.rawPayload.equals(readFileSync(path.join(source.config.dataDir, 'files', `${photoId}.jpg`)))).toBe(
        true,
      );
      const thumb = await moved.app.inject({
        url: `/api/images/thumbnail/720/99999/${photoId}`,
        headers: { 'x-auth-token': ben.key },
      });
      expect(thumb.statusCode).toBe(200);
      expect(thumb.rawPayload.equals(thumbnail)).toBe(true);

      // Search finds by a word of the title (accent folded), of the text, and a hashtag; and by the
      // author's name what the source finds.
      const hits = async (client: ApiClient, search: string) => {
        const found = await client.post('/messages/search', { key: ben.key, body: { group: familyId, search } });
        expect(found.status, search).toBe(200);
        return (found.body.messages as { id: string }[]).map((m) => m.id).sort();
      };
      for (const search of ['etretat', 'cliffs', '#family'])
        expect(await hits(there, search), search).toEqual([beachPostId]);
      const byAna = await hits(there, 'lima');
      expect(byAna).toContain(beachPostId);
      expect(byAna).toEqual(await hits(api, 'lima'));
      expect(await hits(there, 'news')).toHaveLength(8);
      // The group's count of front messages drives totalItems.
      const page = await there.get(`/groups/${familyId}/page/0`, { key: ana.key });
      expect(page.body.totalItems).toBe(
        (await api.get(`/groups/${familyId}/page/0`, { key: ana.key })).body.totalItems,
      );

      // A new message on the copy is counted once more, no more.
      const fresh = await there.post('/messages', {
        key: ana.key,
        body: { group: familyId, data: { text: 'Moved!' } },
      });
      expect(fresh.status).toBe(201);
      expect((await there.get(`/groups/${familyId}/page/0`, { key: ana.key })).body.totalItems).toBe(
        page.body.totalItems + 1,
      );
    } finally {
      await moved.close();
    }
    // Once the copy has lived on, it no longer matches the source: a run says what differs.
    const late = await cli(['migrate-data', '--to', url], env);
    expect(late.code).toBe(1);
    expect(late.stdout).toBe('');
    expect(late.stderr).toContain(
      `The copy differs from the source:\n  messages: ${expected.messages} rows in the source, ${(expected.messages ?? 0) + 1} in the target`,
    );
  });

  it('finishes after interruptions, with every row and file once', async () => {
    const url = await emptyDatabase();
    const bucket = await newBucket();
    const env = sourceEnv(s3Env(s3.endpoint, bucket));
    const config = loadConfig(env);
    const request = { to: url, filesToS3: true, batchSize: 3 };
    const silent = { progress: () => undefined };

    // Cut after two committed batches of messages, as a kill -9 would.
    const crash = new Error('killed');
    await expect(
      migrateData(config, request, {
        ...silent,
        afterStep: (step) => {
          if (step.phase === 'rows' && step.table === 'messages' && step.rows >= 6) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    const target = open(url);
    expect(await count(target, 'messages')).toBe(6);
    expect(await count(target, 'notifications')).toBe(0);

    // Cut again once the first file is in the bucket.
    await expect(
      migrateData(config, request, {
        ...silent,
        afterStep: (step) => {
          if (step.phase === 'files') throw crash;
        },
      }),
    ).rejects.toBe(crash);
    expect(await count(target, 'notifications')).toBe(expected.notifications);
    const keys = sourceKeys();
    const store = new S3FileStore(config.s3 ?? expect.unreachable());
    const present: string[] = [];
    for (const key of keys) if ((await store.stat(key)) !== null) present.push(key);
    expect(present.length).toBeGreaterThan(0);
    expect(present.length).toBeLessThan(keys.length);
    // One object damaged in the bucket (same size, other bytes): written again, not taken as done.
    const damaged = present[0] ?? expect.unreachable();
    const size = (await store.stat(damaged))?.size ?? 0;
    await store.write(damaged, Readable.from([Buffer.alloc(size, 7)]));

    const out = await cli(['migrate-data', '--to', url, '--files-to', 's3', '--batch-size', '3'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json.tables.messages).toEqual({ rows: expected.messages, copied: 0 });
    expect(out.json.files).toMatchObject({
      count: keys.length,
      copied: keys.length - present.length + 1,
      alreadyThere: present.length - 1,
    });
    for (const key of keys) {
      const chunks: Buffer[] = [];
      for await (const chunk of store.read(key) as AsyncIterable<Buffer>) chunks.push(chunk);
      expect(Buffer.concat(chunks).equals(readFileSync(path.join(source.config.dataDir, 'files', key))), key).toBe(
        true,
      );
    }
    expect(await countsOf(target)).toEqual(expected);
    const searchable = await target.kysely
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('is_deleted', '=', 0)
      .executeTakeFirstOrThrow();
    expect(await count(target, 'message_search')).toBe(Number(searchable.n));
    const front = await target.kysely
      .selectFrom('groups')
      .select('front_count')
      .where('id', '=', familyId)
      .executeTakeFirstOrThrow();
    const sourceFront = await source.ctx.db.kysely
      .selectFrom('groups')
      .select('front_count')
      .where('id', '=', familyId)
      .executeTakeFirstOrThrow();
    expect(Number(front.front_count)).toBe(sourceFront.front_count);
  });

  it('refuses a running server, a target holding another instance, and --files-to s3 without a bucket', async () => {
    const url = await emptyDatabase();
    const untouched = async () => {
      const db = open(url);
      const { rows } = await sql<{ n: number }>`
        select count(*) as n from information_schema.tables where table_schema = 'public'`.execute(db.kysely);
      return Number(rows[0]?.n);
    };

    const lock = await acquireInstanceLock(source.config.database);
    try {
      const out = await cli(['migrate-data', '--to', url], sourceEnv());
      expect(out.code).toBe(1);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/A Kith server is running on .*kith\.db: stop the server first/);
    } finally {
      await lock.release();
    }
    expect(await untouched()).toBe(0);

    const noBucket = await cli(['migrate-data', '--to', url, '--files-to', 's3'], sourceEnv());
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr).toMatch(/--files-to s3 needs the bucket: set S3_BUCKET/);
    expect(await untouched()).toBe(0);

    // A target that another embedded instance was copied into.
    const other = await createTestApp(EMBEDDED);
    try {
      await buildUser(other.ctx);
      const first = await cli(['migrate-data', '--to', url], {
        DATA_DIR: other.config.dataDir,
        SECRET_KEY: other.config.secretKey,
      });
      expect(first.code, first.stderr).toBe(0);
    } finally {
      await other.close();
    }
    const taken = await cli(['migrate-data', '--to', url], sourceEnv());
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/holds the data of another Kith instance/);

    // A target a server already put its own data in.
    const used = await emptyDatabase();
    const usedDb = open(used);
    await migrateToLatest(usedDb);
    await usedDb.kysely
      .insertInto('groups')
      .values({
        id: newId(),
        name: 'Home',
        secret_key: newId(),
        created_at: 1,
        last_activity_date: 1,
        emptied_at: null,
      })
      .execute();
    const busy = await cli(['migrate-data', '--to', used], sourceEnv());
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/already holds Kith data that was not copied from this instance \(groups: 1\)/);

    const cases: [string[], RegExp][] = [
      [['migrate-data'], /Missing --to/],
      [['migrate-data', '--to', 'mysql://somewhere/kith'], /--to must be a PostgreSQL URL/],
      [['migrate-data', '--to', url, '--files-to', 'gcs'], /--files-to must be s3/],
      [['migrate-data', '--to', url, '--batch-size', '0'], /--batch-size must be a whole number/],
    ];
    for (const [argv, message] of cases) {
      const out = await cli(argv, sourceEnv());
      expect(out.code, argv.join(' ')).toBe(1);
      expect(out.stderr, argv.join(' ')).toMatch(message);
    }
    // A configuration that already points at PostgreSQL is no embedded instance.
    const scaledOut = await cli(['migrate-data', '--to', url], sourceEnv({ DATABASE_URL: url }));
    expect(scaledOut.stderr).toMatch(/already points at PostgreSQL/);
  });
});
