import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import type { ApiResponse } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { rotatedPhotoWithGps, uploadFile } from '../../../test/uploads.js';
import { runCli } from '../../cli/main.js';
import type { GroupRow } from '../../db/rows.js';
import type { KithEvent } from '../../events/event-bus.js';
import { runHousekeeping } from '../../maintenance/housekeeping.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** Every entry of a zip, by name, read back with yauzl. */
function readZip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error !== null) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (openError, stream) => {
          if (openError !== null) return reject(openError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            if (entries.has(entry.fileName)) reject(new Error(`${entry.fileName} is twice in the zip`));
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** The bytes a file store holds under `key`. */
async function storedBytes(read: () => NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of read()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A JSON entry of the archive, read loosely as the API client reads answers. */
const json = (entries: Map<string, Buffer>, name: string): ApiResponse['body'] =>
  JSON.parse(entries.get(`kith-export/${name}`)?.toString('utf8') ?? 'null');

describe('member exports (docs/api §11.12)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let family: GroupRow;
  let scriptPostId: string;
  let benPostId: string;
  let anaCommentId: string;
  let fileId: string;
  let exportId: string;
  let zip: Buffer;
  const events: KithEvent[] = [];

  const download = (id: string, options: { key?: string; query?: string } = {}) =>
    h.t.app.inject({
      method: 'GET',
      url: `/api/me/exports/${id}/download${options.query ?? ''}`,
      headers: options.key === undefined ? {} : { 'x-auth-token': options.key },
    });

  beforeAll(async () => {
    const { ctx } = h.t;
    h.t.ctx.events.subscribe((event) => events.push(event));
    ana = await buildUser(ctx, { name: 'Ana <b>Silva</b>' });
    ben = await buildUser(ctx, { name: 'Ben' });
    zed = await buildUser(ctx, { name: 'Zed' });
    family = await buildGroup(ctx, { name: 'Family & friends', members: [ana, ben] });
    await buildGroup(ctx, { members: [zed] });
    const upload = await uploadFile(h.t, ana.key, await rotatedPhotoWithGps());
    expect(upload.status, upload.text).toBe(201);
    fileId = upload.body.id as string;
    const post = async (u: BuiltUser, body: Record<string, unknown>) => {
      h.t.clock.advance(1000);
      const res = await h.api.post('/messages', { key: u.key, body: { group: family.id, ...body } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    scriptPostId = await post(ana, {
      data: { title: '<script>alert("x")</script>', text: 'Line one\nLine <two>' },
      files: [fileId],
    });
    benPostId = await post(ben, { data: { title: 'Ben’s post', text: 'Hello from Ben' } });
    anaCommentId = await post(ana, { data: { text: 'Ana answers Ben' }, parent: benPostId });
    await post(ben, { data: { text: 'Ben answers Ana' }, parent: scriptPostId });
    // The same photo again: the zip holds it once.
    await post(ana, { data: { text: 'Ana answers herself' }, parent: scriptPostId, files: [fileId] });
    const bookmark = await h.api.post('/bookmarks', { key: ana.key, body: { message_id: benPostId } });
    expect(bookmark.status).toBe(201);
  });

  it('starts an export, which is building until the job has run', async () => {
    const res = await h.api.post('/me/exports', { key: ana.key });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ entityType: 'export', state: 'building', downloadUrl: null, size: null });
    exportId = res.body.id as string;
    const list = await h.api.get('/me/exports', { key: ana.key });
    expect(list.status).toBe(200);
    expect(list.body.exports.map((e: { id: string }) => e.id)).toEqual([exportId]);
    expect(list.body.nextAllowedAt).not.toBeNull();
    // One building at a time.
    expectError(await h.api.post('/me/exports', { key: ana.key }), 409, 'export_in_progress');
  });

  it('becomes ready with a download link and a live event for its owner only', async () => {
    await h.t.ctx.jobs.drain(['build-export']);
    const list = await h.api.get('/me/exports', { key: ana.key });
    const [ready] = list.body.exports;
    expect(ready).toMatchObject({ id: exportId, state: 'ready', size: expect.any(Number) });
    expect(ready.expiresAt - ready.finishedAt).toBe(7 * 24 * 60 * 60);
    expect(ready.downloadUrl).toMatch(new RegExp(`^/api/me/exports/${exportId}/download\\?exp=\\d+&sig=`));
    await expect.poll(() => events.some((e) => e.type === 'export' && e.exportId === exportId)).toBe(true);
    expect(events.filter((e) => e.type === 'export')).toEqual([{ type: 'export', userId: ana.user.id, exportId }]);
  });

  it('downloads for its owner as a streamed zip', async () => {
    const res = await download(exportId, { key: ana.key });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="kith-export-\d{4}-\d{2}-\d{2}\.zip"$/);
    zip = res.rawPayload;
    expect(zip.length).toBe(Number(res.headers['content-length']));
  });

  it('holds the member’s messages, comments, bookmarks and summary as JSON', async () => {
    const entries = await readZip(zip);
    const summary = json(entries, 'export.json');
    expect(summary).toMatchObject({
      format: 'kith-export',
      version: 1,
      kind: 'member',
      member: { id: ana.user.id, name: 'Ana <b>Silva</b>' },
      groups: [{ id: family.id, name: 'Family & friends' }],
      counts: { messages: 1, comments: 2, files: 1, bookmarks: 1 },
    });
    const messages = json(entries, 'messages.json');
    expect(messages.map((m: { id: string }) => m.id)).toEqual([scriptPostId, anaCommentId, expect.any(String)]);
    expect(messages[0]).toMatchObject({
      kind: 'message',
      groupId: family.id,
      parentId: null,
      authorId: ana.user.id,
      title: '<script>alert("x")</script>',
      text: 'Line one\nLine <two>',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      files: [{ id: fileId, type: 'image/jpeg', path: expect.stringMatching(new RegExp(`^files/${fileId}\\.jpg$`)) }],
    });
    expect(messages[1]).toMatchObject({
      kind: 'comment',
      parentId: benPostId,
      rootId: benPostId,
      text: 'Ana answers Ben',
    });
    expect(messages[2].files.map((f: { path: string }) => f.path)).toEqual([`files/${fileId}.jpg`]);
    // Ben's writing is not Ana's to export.
    expect(JSON.stringify(messages)).not.toContain('Hello from Ben');
    expect(json(entries, 'bookmarks.json')).toEqual([
      { messageId: benPostId, groupId: family.id, title: 'Ben’s post', createdAt: expect.any(String) },
    ]);
  });

  it('holds the files byte for byte as stored', async () => {
    const entries = await readZip(zip);
    const file = await h.t.ctx.db.kysely
      .selectFrom('files')
      .selectAll()
      .where('id', '=', fileId)
      .executeTakeFirstOrThrow();
    const inZip = entries.get(`kith-export/files/${fileId}.jpg`);
    expect(inZip).toBeDefined();
    expect(inZip?.equals(await storedBytes(() => h.t.ctx.files.read(file.storage_key)))).toBe(true);
  });

  it('has a static HTML index: escaped texts, no script, pictures from the zip, message and comment links', async () => {
    const html = (await readZip(zip)).get('kith-export/index.html')?.toString('utf8') ?? '';
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Ana &lt;b&gt;Silva&lt;/b&gt;');
    expect(html).toContain('Line one<br>\nLine &lt;two&gt;');
    expect(html).toContain(`<img src="files/${fileId}.jpg"`);
    expect(html).toContain(`id="m-${scriptPostId}"`);
    // The post links to its comment in the export, the comment back to its post.
    const selfReply = (await readZip(zip)).get('kith-export/messages.json')?.toString('utf8') ?? '';
    const selfReplyId = (JSON.parse(selfReply) as { id: string }[])[2]?.id ?? '';
    expect(html).toContain(`href="#m-${selfReplyId}"`);
    expect(html).toContain(`href="#m-${scriptPostId}"`);
  });

  it('is downloaded by its owner or the signed link only', async () => {
    expectError(await h.api.get(`/me/exports/${exportId}/download`), 401, 'auth_required');
    expect((await download(exportId, { key: zed.key })).statusCode).toBe(404);
    expect((await download(exportId, { key: ben.key })).statusCode).toBe(404);
    expect((await download('not-an-id', { key: ana.key })).statusCode).toBe(404);
    const others = await h.api.get('/me/exports', { key: ben.key });
    expect(others.body).toEqual({ exports: [], nextAllowedAt: null });
    const list = await h.api.get('/me/exports', { key: ana.key });
    const url = list.body.exports[0].downloadUrl as string;
    const query = url.slice(url.indexOf('?'));
    const signed = await download(exportId, { query });
    expect(signed.statusCode).toBe(200);
    expect(signed.rawPayload.equals(zip)).toBe(true);
    const tampered = query.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    expect((await download(exportId, { query: tampered })).statusCode).toBe(404);
    // A link for this export opens no other.
    const otherId = '00000000-0000-4000-8000-000000000000';
    expect((await download(otherId, { query })).statusCode).toBe(404);
  });

  it('allows one export per hour, with Retry-After', async () => {
    const res = await h.api.post('/me/exports', { key: ana.key });
    expectError(res, 429, 'export_limit_reached');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(3600);
  });

  it('expires after a week: housekeeping deletes the row and the zip', async () => {
    const row = await h.t.ctx.db.kysely
      .selectFrom('exports')
      .selectAll()
      .where('id', '=', exportId)
      .executeTakeFirstOrThrow();
    expect(await h.t.ctx.files.stat(row.storage_key ?? '')).not.toBeNull();
    h.t.clock.advance(7 * DAY + HOUR);
    const report = await runHousekeeping(h.t.ctx);
    expect(report.exportsExpired).toBeGreaterThanOrEqual(1);
    expect(await h.t.ctx.files.stat(row.storage_key ?? '')).toBeNull();
    expect((await download(exportId, { key: ana.key })).statusCode).toBe(404);
    expect((await h.api.get('/me/exports', { key: ana.key })).body).toEqual({ exports: [], nextAllowedAt: null });
    // And a new export may start.
    expect((await h.api.post('/me/exports', { key: ana.key })).status).toBe(202);
    await h.t.ctx.jobs.drain(['build-export']);
  });

  it('goes with the account: deleting it removes the zip', async () => {
    const cleo = await buildUser(h.t.ctx, { name: 'Cleo' });
    expect((await h.api.post('/me/exports', { key: cleo.key })).status).toBe(202);
    await h.t.ctx.jobs.drain(['build-export']);
    const row = await h.t.ctx.db.kysely
      .selectFrom('exports')
      .selectAll()
      .where('user_id', '=', cleo.user.id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('ready');
    expect(await h.t.ctx.files.stat(row.storage_key ?? '')).not.toBeNull();
    expect((await h.api.request('DELETE', `/users/${cleo.user.id}`, { key: cleo.key })).status).toBe(204);
    expect(await h.t.ctx.files.stat(row.storage_key ?? '')).toBeNull();
    expect(await h.t.ctx.db.kysely.selectFrom('exports').selectAll().where('id', '=', row.id).execute()).toEqual([]);
  });

  it('fails when a file cannot be read: no zip is left, the owner is told and may try again', async () => {
    const dora = await buildUser(h.t.ctx, { name: 'Dora' });
    const own = await buildGroup(h.t.ctx, { members: [dora] });
    const upload = await uploadFile(h.t, dora.key, await rotatedPhotoWithGps());
    expect(upload.status, upload.text).toBe(201);
    const posted = await h.api.post('/messages', {
      key: dora.key,
      body: { group: own.id, data: { text: 'A photo' }, files: [upload.body.id] },
    });
    expect(posted.status, posted.text).toBe(201);
    const file = await h.t.ctx.db.kysely
      .selectFrom('files')
      .select('storage_key')
      .where('id', '=', upload.body.id as string)
      .executeTakeFirstOrThrow();
    await h.t.ctx.files.delete(file.storage_key);
    const started = await h.api.post('/me/exports', { key: dora.key });
    expect(started.status).toBe(202);
    // Each run fails; the retries come after a backoff on the test clock.
    for (let run = 0; run < 5; run += 1) {
      await h.t.ctx.jobs.drain(['build-export']);
      h.t.clock.advance(HOUR);
    }
    const list = await h.api.get('/me/exports', { key: dora.key });
    expect(list.body.exports).toEqual([
      expect.objectContaining({ id: started.body.id, state: 'failed', downloadUrl: null, size: null }),
    ]);
    expect(list.body.nextAllowedAt).toBeNull();
    expect(await h.t.ctx.files.stat(`exports/${started.body.id as string}.zip`)).toBeNull();
    expect(events).toContainEqual({ type: 'export', userId: dora.user.id, exportId: started.body.id });
    expect((await download(started.body.id as string, { key: dora.key })).statusCode).toBe(404);
    expect((await h.api.post('/me/exports', { key: dora.key })).status).toBe(202);
  });

  it('answers 401 to a visitor on every route', async () => {
    expectError(await h.api.get('/me/exports'), 401, 'auth_required');
    expectError(await h.api.post('/me/exports'), 401, 'auth_required');
  });

  describe('export-group (CLI)', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'kith-export-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes the whole group with its members’ names, progress on stderr and a JSON summary', async () => {
      const { config } = h.t;
      const env: Record<string, string> = {
        DATA_DIR: config.dataDir,
        SECRET_KEY: config.secretKey,
        PUBLIC_URL: config.publicUrl,
        ...(config.database.kind === 'postgres' ? { DATABASE_URL: config.database.url } : {}),
        ...(config.s3 === null
          ? {}
          : {
              S3_ENDPOINT: config.s3.endpoint ?? '',
              S3_BUCKET: config.s3.bucket,
              S3_REGION: config.s3.region,
              S3_ACCESS_KEY_ID: config.s3.accessKeyId ?? '',
              S3_SECRET_ACCESS_KEY: config.s3.secretAccessKey ?? '',
              S3_FORCE_PATH_STYLE: String(config.s3.forcePathStyle),
            }),
      };
      const to = path.join(dir, 'family.zip');
      let stdout = '';
      let stderr = '';
      const code = await runCli(['export-group', '--group', family.id, '--to', to], {
        stdout: (s) => (stdout += s),
        stderr: (s) => (stderr += s),
        env,
      });
      expect(code, stderr).toBe(0);
      expect(stderr).toContain('export-group: 5 messages and comments written');
      const summary = JSON.parse(stdout);
      expect(summary).toMatchObject({
        group: { id: family.id, name: 'Family & friends' },
        file: to,
        members: 2,
        counts: { messages: 2, comments: 3, files: 1, bookmarks: 0 },
      });
      const entries = await readZip(readFileSync(to));
      expect(summary.size).toBe(readFileSync(to).length);
      const archive = json(entries, 'export.json');
      expect(archive).toMatchObject({ kind: 'group', group: { id: family.id }, members: [ana.user.id, ben.user.id] });
      expect(archive.people).toEqual(
        expect.arrayContaining([
          { id: ana.user.id, name: 'Ana <b>Silva</b>' },
          { id: ben.user.id, name: 'Ben' },
        ]),
      );
      expect(json(entries, 'messages.json')).toHaveLength(5);
      expect(entries.has(`kith-export/files/${fileId}.jpg`)).toBe(true);
      expect(entries.has('kith-export/bookmarks.json')).toBe(false);
      const html = entries.get('kith-export/index.html')?.toString('utf8') ?? '';
      expect(html).toContain('Hello from Ben');
      expect(html).not.toMatch(/<script/i);
    });

    it('refuses an unknown group', async () => {
      let stderr = '';
      const code = await runCli(['export-group', '--group', '00000000-0000-4000-8000-000000000000'], {
        stdout: () => undefined,
        stderr: (s) => (stderr += s),
        env: {
          DATA_DIR: h.t.config.dataDir,
          SECRET_KEY: h.t.config.secretKey,
          ...(h.t.config.database.kind === 'postgres' ? { DATABASE_URL: h.t.config.database.url } : {}),
        },
      });
      expect(code).toBe(1);
      expect(stderr).toContain('No group has the id');
    });
  });
});
