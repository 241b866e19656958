import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { expectError } from '../../../test/expect.js';
import { buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp, type TestApp } from '../../../test/harness.js';
import { BOUNDARY, multipart, sendUpload } from '../../../test/uploads.js';
import { runHousekeeping } from '../../maintenance/housekeeping.js';
import { newId } from '../../lib/ids.js';
import { insertFile, replaceConvertedFile } from './queries.js';

// Storage quotas (issue 22, part 4): QUOTA_USER_MB and QUOTA_INSTANCE_MB, the 413s, the claims of
// uploads under way, and GET /api/me/storage.

const MIB = 1024 * 1024;
const local = process.env.KITH_TEST_SCALE_OUT !== 'true';

/** A PDF of exactly `size` bytes (kept as it is: its stored size is its uploaded size). */
const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, '%')]);
const head = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
);
const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
const uploadPdf = (t: TestApp, key: string, size: number) =>
  sendUpload(t, key, multipart([{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: pdf(size) }]));

/** Every regular file under the local store, none when it does not exist. */
async function storedFiles(t: TestApp): Promise<string[]> {
  const dir = path.join(t.config.dataDir, 'files');
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
}

/** The user's counters as stored. */
const counters = (t: TestApp, userId: string) =>
  t.ctx.db.kysely
    .selectFrom('users')
    .select(['storage_bytes', 'storage_reserved'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
const fileIdsOf = async (t: TestApp, userId: string) =>
  (await t.ctx.db.kysely.selectFrom('files').select('id').where('uploader_id', '=', userId).execute()).map((r) => r.id);

/** POST /api/files with a streamed body; `body` is written by the test. */
function streamedUpload(t: TestApp, key: string, body: Readable, headers: Record<string, string> = {}) {
  return t.app
    .inject({
      method: 'POST',
      url: '/api/files',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-auth-token': key, ...headers },
      payload: body,
    })
    .then((r) => ({ status: r.statusCode, headers: r.headers, text: r.body, body: JSON.parse(r.body) as unknown }));
}

describe('storage quotas', () => {
  const h = useTestApp({ QUOTA_USER_MB: '1', QUOTA_INSTANCE_MB: '4' });

  it('GET /api/me/storage needs a key, and shows an account with nothing stored', async () => {
    const { t, api } = h;
    expectError(await api.get('/me/storage'), 401, 'auth_required');
    const ana = await buildUser(t.ctx);
    const res = await api.get('/me/storage', { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ used: 0, limit: MIB, available: MIB });
  });

  it('counts a stored upload in the usage, and the instance’s', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const before = await t.ctx.db.kysely.selectFrom('instance_storage').select('bytes').executeTakeFirstOrThrow();
    const res = await uploadPdf(t, ana.key, 300_000);
    expect(res.status, res.text).toBe(201);
    expect(res.body.size).toBe(300_000);
    expect((await api.get('/me/storage', { key: ana.key })).body).toEqual({
      used: 300_000,
      limit: MIB,
      available: MIB - 300_000,
    });
    expect(await counters(t, ana.user.id)).toEqual({ storage_bytes: 300_000, storage_reserved: 0 });
    const after = await t.ctx.db.kysely.selectFrom('instance_storage').select('bytes').executeTakeFirstOrThrow();
    expect(after.bytes - before.bytes).toBe(300_000);
    // The Zusam client's /api/me is unchanged by the addition.
    expect((await api.get('/me', { key: ana.key })).body).not.toHaveProperty('storage');
  });

  it('refuses an upload whose declared size does not fit before reading a byte of it', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    expect((await uploadPdf(t, ana.key, 300_000)).status).toBe(201);
    const body = new PassThrough();
    let read = 0;
    body.on('data', (chunk: Buffer) => (read += chunk.length));
    // Nothing of the body is ever written: the answer comes from the Content-Length alone.
    const res = await streamedUpload(t, ana.key, body, { 'content-length': String(900_000) });
    body.end();
    expectError(res, 413, 'quota_exceeded', {
      field: 'file',
      message: 'This file does not fit in your storage allowance',
    });
    expect(read).toBe(0);
    expect(await fileIdsOf(t, ana.user.id)).toHaveLength(1);
    expect(await counters(t, ana.user.id)).toEqual({ storage_bytes: 300_000, storage_reserved: 0 });
  });

  it('stops a streamed upload soon after it passes the limit, and keeps nothing of it', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const filesBefore = await storedFiles(t);
    // 16 MiB offered 64 KiB at a time, without a Content-Length: only the bytes decide.
    const total = 16 * MIB;
    let pulled = 0;
    const chunk = Buffer.alloc(64 * 1024, '%');
    const body = new Readable({
      read() {
        if (pulled === 0) this.push(Buffer.concat([head, Buffer.from('%PDF-1.4\n')]));
        if (pulled >= total) return this.push(null);
        pulled += chunk.length;
        this.push(chunk);
      },
    });
    const res = await streamedUpload(t, ana.key, body);
    body.destroy();
    expectError(res, 413, 'quota_exceeded');
    expect(pulled).toBeLessThan(4 * MIB);
    expect(await fileIdsOf(t, ana.user.id)).toEqual([]);
    expect(await counters(t, ana.user.id)).toEqual({ storage_bytes: 0, storage_reserved: 0 });
    if (local) expect(await storedFiles(t)).toEqual(filesBefore);
  });

  it('lets only one of two uploads under way through when only one fits', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const file = Buffer.concat([head, pdf(600_000), tail]);
    const bodies = [new PassThrough(), new PassThrough()];
    const answers = bodies.map((body) => streamedUpload(t, ana.key, body));
    // Both are past their first 400 KB (each fits alone) before either goes on.
    for (const body of bodies) body.write(file.subarray(0, 400_000));
    await until(async () => (await counters(t, ana.user.id)).storage_reserved >= 2 * 390_000);
    for (const body of bodies) body.end(file.subarray(400_000));
    const results = await Promise.all(answers);
    expect(results.map((r) => r.status).sort()).toEqual([201, 413]);
    expectError(
      results.find((r) => r.status === 413)!,
      413,
      'quota_exceeded',
    );
    expect(await fileIdsOf(t, ana.user.id)).toHaveLength(1);
    expect(await counters(t, ana.user.id)).toEqual({ storage_bytes: 600_000, storage_reserved: 0 });
    expect((await api.get('/me/storage', { key: ana.key })).body.used).toBe(600_000);
  });

  it('answers storage_full past the instance’s limit, and counts what others store', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const stored = await t.ctx.db.kysely.selectFrom('instance_storage').select('bytes').executeTakeFirstOrThrow();
    // Someone else's big file (a link preview's, with no uploader) leaves 200 KB on the instance.
    const bigId = newId();
    const now = t.clock.now();
    await insertFile(t.ctx.db.kysely, {
      id: bigId,
      uploader_id: null,
      type: 'application/pdf',
      kind: 'pdf',
      status: 'ready',
      size: 4 * MIB - stored.bytes - 200_000,
      name: 'big.pdf',
      storage_key: `${bigId}.pdf`,
      ext: 'pdf',
      width: null,
      height: null,
      progress: null,
      error: null,
      created_at: now,
      updated_at: now,
    });
    expect((await api.get('/me/storage', { key: ana.key })).body).toEqual({ used: 0, limit: MIB, available: 200_000 });
    expectError(await uploadPdf(t, ana.key, 300_000), 413, 'storage_full', {
      message: 'This instance has no room left for this file',
    });
    expect(await fileIdsOf(t, ana.user.id)).toEqual([]);
    expect((await uploadPdf(t, ana.key, 150_000)).status).toBe(201);
    // Its deletion gives the room back.
    await t.ctx.db.kysely.deleteFrom('files').where('id', '=', bigId).execute();
    expect((await api.get('/me/storage', { key: ana.key })).body).toEqual({
      used: 150_000,
      limit: MIB,
      available: MIB - 150_000,
    });
  });

  it('follows a conversion that changes the size, and gives the space back when files are deleted', async () => {
    const { t, api } = h;
    const ana: BuiltUser = await buildUser(t.ctx);
    const res = await uploadPdf(t, ana.key, 500_000);
    expect(res.status).toBe(201);
    // A converted video replaces the stored bytes: the usage is the new size (migration 0021).
    const rawId = newId();
    const now = t.clock.now();
    await insertFile(t.ctx.db.kysely, {
      id: rawId,
      uploader_id: ana.user.id,
      type: 'video/quicktime',
      kind: 'video',
      status: 'raw',
      size: 100_000,
      name: 'clip.mov',
      storage_key: `${rawId}.mov`,
      ext: 'mov',
      width: null,
      height: null,
      progress: 0,
      error: null,
      created_at: now,
      updated_at: now,
    });
    expect((await counters(t, ana.user.id)).storage_bytes).toBe(600_000);
    const converted = await replaceConvertedFile(
      t.ctx.db.kysely,
      { id: rawId, storage_key: `${rawId}.mov` },
      {
        type: 'video/mp4',
        ext: 'mp4',
        name: 'clip.mp4',
        storage_key: `${rawId}.mp4`,
        size: 40_000,
        width: 640,
        height: 360,
        updated_at: now,
      },
    );
    expect(converted).toBe(true);
    expect((await api.get('/me/storage', { key: ana.key })).body.used).toBe(540_000);

    // Unattached uploads go after a day (docs/api §7.1): their space comes back.
    t.clock.advance(25 * 60 * 60 * 1000);
    const report = await runHousekeeping(t.ctx);
    expect(report.filesDeleted).toBeGreaterThanOrEqual(2);
    expect((await api.get('/me/storage', { key: ana.key })).body).toEqual({ used: 0, limit: MIB, available: MIB });
    const instance = await t.ctx.db.kysely
      .selectFrom('instance_storage')
      .select(['bytes', 'reserved'])
      .executeTakeFirstOrThrow();
    expect(instance).toEqual({ bytes: 0, reserved: 0 });
    expect((await uploadPdf(t, ana.key, 900_000)).status).toBe(201);
  });
});
