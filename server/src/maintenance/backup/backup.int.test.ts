import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, TestClock, TEST_DIALECT, type TestApp } from '../../../test/harness.js';
import { dropDatabase, TEST_DB_PREFIX, urlForDatabase, withAdmin } from '../../../test/postgres.js';
import { createTestBucket, s3Env } from '../../../test/s3.js';
import { uploadFile } from '../../../test/uploads.js';
import type { AppContext } from '../../context.js';
import { randomToken } from '../../lib/secrets.js';
import { createBackup, FILES_DIR, verifyBackup, type BackupReport } from './backup.js';
import { listBackups, readManifest } from './manifest.js';
import { runBackupSchedule } from './schedule.js';
import { checkSqlite } from './sqlite-snapshot.js';
import { runCliCaptured } from '../../../test/cli.js';

// Backups and restores end to end, on the engine of the project (SQLite with DATA_DIR/files, or
// PostgreSQL with its S3 bucket): a backup taken while 20 writers post over HTTP, restored into a
// fresh place that a new app then serves; incremental files; damaged backups; refusals; the schedule.

const suffix = () =>
  randomToken()
    .slice(0, 10)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');

const WRITERS = 20;

// Each test takes and restores whole backups: more than the project's 20 s when the machine is busy.
describe('backups and restores', { timeout: 120_000 }, () => {
  let source: TestApp;
  let ana: BuiltUser;
  let groupId: string;
  const temporary: string[] = [];
  const databases: string[] = [];
  let stopWriters = false;

  function tempDir(prefix: string): string {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    temporary.push(dir);
    return dir;
  }

  /** The source's configuration as the CLI reads it, with more variables. */
  function sourceEnv(more: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {
      DATA_DIR: source.config.dataDir,
      SECRET_KEY: source.config.secretKey,
      PUBLIC_URL: 'http://kith.test',
      LOG_LEVEL: 'silent',
    };
    if (source.config.database.kind === 'postgres') env.DATABASE_URL = source.config.database.url;
    if (source.config.s3 !== null) Object.assign(env, s3Env(source.config.s3.endpoint ?? '', source.config.s3.bucket));
    return { ...env, ...more };
  }

  const cli = runCliCaptured;

  /** An empty place to restore into: a data folder path, and on PostgreSQL an empty database and bucket. */
  async function emptyTarget(): Promise<{ to: string; env: Record<string, string>; dataDir: string }> {
    const dataDir = path.join(tempDir('kith-restore-'), 'data');
    if (TEST_DIALECT === 'sqlite') return { to: dataDir, dataDir, env: { DATA_DIR: dataDir } };
    const name = `${TEST_DB_PREFIX}${process.pid}_restore_${suffix()}`;
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
    databases.push(name);
    const bucket = `kith-restore-${suffix()}`;
    await createTestBucket(inject('s3Endpoint'), bucket);
    return {
      to: urlForDatabase(name),
      dataDir,
      env: { DATA_DIR: dataDir, DATABASE_URL: urlForDatabase(name), ...s3Env(inject('s3Endpoint'), bucket) },
    };
  }

  /** A small PNG of its own colour, uploaded by Ana; returns the file id. */
  async function upload(shade: number): Promise<string> {
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: shade, g: 60, b: 9 } } })
      .png()
      .toBuffer();
    const res = await uploadFile(source, ana.key, png, `swatch-${shade}.png`, 'image/png');
    expect(res.status, res.text).toBe(201);
    return String(res.body.id);
  }

  beforeAll(async () => {
    source = await createTestApp();
    ana = await buildUser(source.ctx, { name: 'Ana' });
    groupId = (await buildGroup(source.ctx, { name: 'Family', members: [ana] })).id;
    await upload(10);
    await upload(20);
  });

  afterAll(async () => {
    // A test cut by its timeout leaves its writers running: they stop before the server goes.
    stopWriters = true;
    await source?.close();
    for (const name of databases) await withAdmin((client) => dropDatabase(client, name));
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every post acknowledged before the snapshot of a backup taken while 20 writers post', async () => {
    // Each writer posts in a group of its own: the database sees 20 concurrent transactions, without
    // the notifications a shared group would multiply (this machine runs other suites beside).
    const writers: { user: BuiltUser; groupId: string }[] = [];
    for (let i = 0; i < WRITERS; i += 1) {
      const user = await buildUser(source.ctx, { name: `Writer ${i}` });
      writers.push({ user, groupId: (await buildGroup(source.ctx, { members: [user] })).id });
    }
    await source.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(source.app.server.address() as AddressInfo).port}`;

    // Acknowledged posts, in the order their answers arrived; `snapshotAt` is how many had arrived
    // when the snapshot began.
    const acknowledged: { id: string; text: string }[] = [];
    let snapshotAt = -1;
    stopWriters = false;
    const writing = writers.map(async (writer, w) => {
      for (let n = 0; !stopWriters; n += 1) {
        const text = `post ${n} of writer ${w}`;
        const res = await fetch(`${base}/api/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-auth-token': writer.user.key },
          body: JSON.stringify({ group: writer.groupId, data: { text } }),
        });
        expect(res.status).toBe(201);
        acknowledged.push({ id: String(((await res.json()) as { id: string }).id), text });
      }
    });
    // The writers are well under way when the backup starts, and go on while it runs.
    await expect.poll(() => acknowledged.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2 * WRITERS);
    const root = tempDir('kith-backups-');
    let report: BackupReport;
    try {
      report = await createBackup(source.config, {
        dir: root,
        onSnapshot: () => {
          snapshotAt = acknowledged.length;
        },
      });
    } finally {
      stopWriters = true;
      await Promise.all(writing);
    }
    expect(report.state, report.verification.problems.join('\n')).toBe('verified');
    expect(report.method).toBe(TEST_DIALECT === 'sqlite' ? 'vacuum-into' : 'pg_dump');
    expect(report.files.missing).toEqual([]);
    expect(snapshotAt).toBeGreaterThanOrEqual(2 * WRITERS);
    const before = acknowledged.slice(0, snapshotAt);

    const target = await emptyTarget();
    const restored = await cli(['restore', report.folder, '--to', target.to], sourceEnv(target.env));
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json.tables).toEqual(report.tables);
    expect(restored.json.files.count).toBe(report.files.count);
    if (TEST_DIALECT === 'sqlite') {
      const check = await checkSqlite(path.join(target.dataDir, 'kith.db'));
      expect(check.integrity).toEqual([]);
      expect(check.tables).toEqual(report.tables);
    }

    // A server on the restored place serves every acknowledged post and the files.
    const again = await createTestApp(target.env);
    try {
      const api = new ApiClient(again.app);
      const found = await again.ctx.db.kysely
        .selectFrom('messages')
        .select(['id', 'text'])
        .where(
          'id',
          'in',
          before.map((post) => post.id),
        )
        .execute();
      expect(new Map(found.map((row) => [row.id, row.text]))).toEqual(
        new Map(before.map((post) => [post.id, post.text])),
      );
      const one = before[before.length - 1] as { id: string; text: string };
      const author = writers[Number(/writer (\d+)$/.exec(one.text)?.[1])]?.user.key ?? '';
      const res = await api.get(`/messages/${one.id}`, { key: author });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.text).toBe(one.text);
      const files = await again.ctx.db.kysely.selectFrom('files').select(['storage_key', 'size']).execute();
      expect(files.length).toBeGreaterThan(0);
      for (const file of files)
        expect(await again.ctx.files.stat(file.storage_key)).toEqual({ size: Number(file.size) });
    } finally {
      await again.close();
    }
  });

  it('copies only new or changed files into the next backup; the others are links to the previous copy', async () => {
    const root = tempDir('kith-backups-');
    const first = await cli(['backup', '--to', root], sourceEnv());
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.state).toBe('verified');
    expect(first.json.files.copied).toBe(first.json.files.count);
    expect(first.json.files.count).toBeGreaterThan(0);

    const second = await cli(['backup'], sourceEnv({ BACKUP_DIR: root }));
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.files).toMatchObject({ copied: 0, linked: first.json.files.count });
    const manifest = await readManifest(second.json.folder);
    const key = manifest.files.list[0]?.key ?? '';
    const inode = (folder: string) => statSync(path.join(folder, FILES_DIR, ...key.split('/'))).ino;
    expect(inode(second.json.folder)).toBe(inode(first.json.folder));

    await upload(30);
    const third = await cli(['backup', '--to', root], sourceEnv());
    expect(third.code, third.stderr).toBe(0);
    expect(third.json.files.copied).toBe(third.json.files.count - second.json.files.count);
    expect(third.json.files.copied).toBeGreaterThanOrEqual(1);
    expect(third.json.files.linked).toBe(second.json.files.count);
    expect(await verifyBackup(third.json.folder)).toEqual([]);
  });

  it('finds a damaged backup, refuses to restore it, and marks a backup failing its verification as failed', async () => {
    const root = tempDir('kith-backups-');
    const taken = await cli(['backup', '--to', root], sourceEnv());
    expect(taken.code, taken.stderr).toBe(0);
    const folder = String(taken.json.folder);
    const manifest = await readManifest(folder);
    const entry = manifest.files.list[0];
    if (entry === undefined) throw new Error('no file in the backup');
    // One byte flipped in a copied file.
    const copy = path.join(folder, FILES_DIR, ...entry.key.split('/'));
    const bytes = readFileSync(copy);
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    rmSync(copy);
    writeFileSync(copy, bytes);
    const problems = await verifyBackup(folder);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(entry.key);
    const target = await emptyTarget();
    const refused = await cli(['restore', folder, '--to', target.to], sourceEnv(target.env));
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/does not pass its verification/);
    expect(readdirSync(path.dirname(target.dataDir))).toEqual([]);

    // The database copy cut in half.
    const database = manifest.database.files[0]?.path ?? '';
    const failed = await createBackup(source.config, {
      dir: root,
      beforeVerify: (working) => {
        const file = path.join(working, ...database.split('/'));
        truncateSync(file, Math.floor(statSync(file).size / 2));
        return Promise.resolve();
      },
    });
    expect(failed.state).toBe('failed');
    expect(failed.folder).toMatch(/\.failed$/);
    expect(failed.verification.problems.join('\n')).toContain(database);
    expect((await listBackups(root)).map((b) => b.state)).toEqual(['verified', 'failed']);
    const notGood = await cli(['restore', failed.folder, '--to', target.to], sourceEnv(target.env));
    expect(notGood.code).toBe(3);
    expect(notGood.stderr).toMatch(/failed or did not finish/);
  });

  it('refuses a restore into a place that is not empty, and bad input, changing nothing', async () => {
    const root = tempDir('kith-backups-');
    const taken = await cli(['backup', '--to', root], sourceEnv());
    expect(taken.code, taken.stderr).toBe(0);
    const folder = String(taken.json.folder);

    if (TEST_DIALECT === 'sqlite') {
      const full = tempDir('kith-full-');
      writeFileSync(path.join(full, 'notes.txt'), 'mine');
      const refused = await cli(['restore', folder, '--to', full], sourceEnv());
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/is not empty \(notes\.txt\)/);
      expect(readdirSync(full)).toEqual(['notes.txt']);
    } else {
      const messages = await source.ctx.db.kysely.selectFrom('messages').select('id').execute();
      const refused = await cli(['restore', folder], sourceEnv());
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/is not empty/);
      expect(await source.ctx.db.kysely.selectFrom('messages').select('id').execute()).toHaveLength(messages.length);
    }

    const noFolder = await cli(['restore'], sourceEnv());
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toMatch(/give the backup folder/);
    const notABackup = await cli(['restore', tempDir('kith-nothing-')], sourceEnv());
    expect(notABackup.code).toBe(3);
    expect(notABackup.stderr).toMatch(/no manifest\.json/);
    const typo = await cli(['restore', folder, '--into', '/tmp/x'], sourceEnv());
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Unknown option --into/);
    const nowhere = await cli(['backup'], sourceEnv());
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/--to DIR or set BACKUP_DIR/);
    const method = await cli(['backup', '--to', root, '--method', 'zip'], sourceEnv());
    expect(method.code).toBe(1);
    expect(method.stderr).toMatch(/--method must be one of auto, pg_dump, export/);
    const schedule = await cli(['backup', '--to', root], sourceEnv({ BACKUP_DIR: root, BACKUP_SCHEDULE: '25:00' }));
    expect(schedule.code).toBe(1);
    expect(schedule.stderr).toMatch(/BACKUP_SCHEDULE must be/);
    // Nothing but the one good backup was made.
    expect((await listBackups(root)).map((b) => b.state)).toEqual(['verified']);
  });

  it('backs up PostgreSQL without pg_dump (an export of every table) and restores it; SQLite has no such method', async () => {
    const root = tempDir('kith-backups-');
    if (TEST_DIALECT === 'sqlite') {
      const refused = await cli(['backup', '--to', root, '--method', 'export'], sourceEnv());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/are for PostgreSQL; SQLite is always copied with VACUUM INTO/);
      expect(await listBackups(root)).toEqual([]);
      return;
    }
    const taken = await cli(['backup', '--to', root, '--method', 'export'], sourceEnv());
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.json).toMatchObject({ state: 'verified', method: 'export' });
    expect(taken.json.tables.messages).toBeGreaterThan(0);
    const target = await emptyTarget();
    const restored = await cli(['restore', taken.json.folder, '--to', target.to], sourceEnv(target.env));
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json.tables).toEqual(taken.json.tables);
    // Without pg_dump on PATH, the automatic choice is the export, and the report says why.
    const path_ = process.env.PATH;
    process.env.PATH = tempDir('kith-no-tools-');
    let auto: BackupReport;
    try {
      auto = await createBackup(source.config, { dir: root });
    } finally {
      process.env.PATH = path_;
    }
    expect(auto).toMatchObject({
      state: 'verified',
      method: 'export',
      methodNote: expect.stringMatching(/not on PATH/),
    });
    const again = await createTestApp(target.env);
    try {
      const res = await new ApiClient(again.app).get(`/groups/${groupId}`, { key: ana.key });
      expect(res.status, res.text).toBe(200);
      expect(res.body.name).toBe('Family');
    } finally {
      await again.close();
    }
  });

  it('takes the scheduled backup once per due slot and keeps only BACKUP_KEEP', async () => {
    const root = tempDir('kith-backups-');
    const clock = new TestClock(Date.parse('2026-01-10T02:00:00Z'));
    const settings = { dir: root, schedule: { kind: 'daily', hour: 3, minute: 0 } as const, keep: 2 };
    const ctx: AppContext = {
      ...source.ctx,
      clock,
      log: pino({ level: 'silent' }),
      config: {
        ...source.ctx.config,
        timeZone: 'UTC',
        redisPrefix: `${source.ctx.config.redisPrefix}.schedule`,
        backup: settings,
      },
    };
    // Yesterday's 03:00 has no backup: due at once.
    const first = await runBackupSchedule(ctx);
    // Another process of a scale-out instance, with a folder of its own, finds the slot taken.
    const elsewhere = tempDir('kith-backups-');
    const other: AppContext = { ...ctx, config: { ...ctx.config, backup: { ...settings, dir: elsewhere } } };
    if (ctx.redis !== null) {
      expect(await runBackupSchedule(other)).toBeNull();
      expect(await listBackups(elsewhere)).toEqual([]);
    }
    expect(first?.report.state).toBe('verified');
    expect(first?.report.name).toBe('kith-backup-2026-01-10T02-00-00-000Z');
    clock.set(Date.parse('2026-01-10T02:59:00Z'));
    expect(await runBackupSchedule(ctx)).toBeNull();
    const names: string[] = [String(first?.report.name)];
    for (const at of ['2026-01-10T03:00:00Z', '2026-01-11T03:01:00Z', '2026-01-12T07:30:00Z']) {
      clock.set(Date.parse(at));
      const run = await runBackupSchedule(ctx);
      expect(run?.report.state).toBe('verified');
      names.push(String(run?.report.name));
      expect(await runBackupSchedule(ctx)).toBeNull();
    }
    expect((await listBackups(root)).map((b) => b.name)).toEqual(names.slice(-2));
    mkdirSync(path.join(root, 'unrelated'));
    expect(readdirSync(root).sort()).toEqual([...names.slice(-2), 'unrelated'].sort());
  });
});
