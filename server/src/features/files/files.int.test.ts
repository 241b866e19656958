import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { IMAGE_SIZES } from '@kith/common';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { expectError, UUID_V4 } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp, type TestApp } from '../../../test/harness.js';
import { multipart, rotatedPhotoWithGps, sendUpload, uploadFile } from '../../../test/uploads.js';

const HOUR = 60 * 60 * 1000;

const upload = uploadFile;
const send = sendUpload;

/** GET of a raw URL through the app (file bytes, images). */
async function raw(t: TestApp, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  return t.app.inject({ method, url, headers });
}

const solid = (width: number, height: number, alpha = false) =>
  sharp({
    create: {
      width,
      height,
      channels: alpha ? 4 : 3,
      background: alpha ? { r: 200, g: 30, b: 30, alpha: 0.5 } : { r: 200, g: 30, b: 30 },
    },
  });

const MINIMAL_PDF = [
  '%PDF-1.4',
  '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
  '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
  '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
  'trailer << /Root 1 0 R >>',
  '%%EOF',
  '',
].join('\n');

const FILE_KEYS = [
  'contentUrl',
  'createdAt',
  'entityType',
  'error',
  'fileIndex',
  'id',
  'name',
  'progress',
  'size',
  'status',
  'type',
].sort();

function bytesUrl(contentUrl: string): string {
  return `/files/${contentUrl}`;
}

describe('POST /api/files', () => {
  const h = useTestApp();

  it('stores a rotated JPEG upright, without EXIF or GPS, and answers it ready', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const photo = await rotatedPhotoWithGps();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const res = await upload(t, ana.key, photo, 'beach.jpg');
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(FILE_KEYS);
    expect(res.body).toMatchObject({
      entityType: 'file',
      type: 'image/jpeg',
      status: 'ready',
      name: 'beach.jpg',
      fileIndex: 0,
      progress: null,
      createdAt: Math.floor(t.clock.now() / 1000),
    });
    expect(res.body.id).toMatch(UUID_V4);
    expect(res.body.contentUrl).toMatch(new RegExp(`^${res.body.id}\\.jpg\\?exp=\\d+&sig=[A-Za-z0-9_-]{22}$`));

    const bytes = await raw(t, bytesUrl(res.body.contentUrl));
    expect(bytes.statusCode).toBe(200);
    expect(Number(res.body.size)).toBe(bytes.rawPayload.length);
    const meta = await sharp(bytes.rawPayload).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.width, meta.height]).toEqual([200, 300]);
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(bytes.rawPayload.includes(Buffer.from('KithCam'))).toBe(false);
  });

  it('keeps PNG, WebP and GIF (animated too) and turns TIFF and AVIF into JPEG', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const cases: [string, Buffer, string, string][] = [
      ['a.png', await solid(40, 30, true).png().toBuffer(), 'image/png', 'png'],
      ['a.webp', await solid(40, 30).webp().toBuffer(), 'image/webp', 'webp'],
      ['a.gif', await solid(40, 30).gif().toBuffer(), 'image/gif', 'gif'],
      ['a.tiff', await solid(40, 30).tiff().toBuffer(), 'image/jpeg', 'jpg'],
      ['a.avif', await solid(40, 30).avif().toBuffer(), 'image/jpeg', 'jpg'],
      ['a.jpeg', await solid(40, 30).jpeg().toBuffer(), 'image/jpeg', 'jpg'],
    ];
    for (const [name, data, type, ext] of cases) {
      const res = await upload(t, ana.key, data, name, 'application/octet-stream');
      expect(res.status, `${name} ${res.text}`).toBe(201);
      expect(res.body.type, name).toBe(type);
      expect(res.body.status).toBe('ready');
      expect(res.body.contentUrl).toContain(`.${ext}?`);
      const bytes = await raw(t, bytesUrl(res.body.contentUrl));
      const meta = await sharp(bytes.rawPayload).metadata();
      expect([meta.width, meta.height], name).toEqual([40, 30]);
    }

    // An animated GIF stays animated.
    const frame = (r: number) =>
      sharp({ create: { width: 20, height: 10, channels: 3, background: { r, g: 0, b: 0 } } })
        .png()
        .toBuffer();
    const gif = await sharp([await frame(255), await frame(0)], { join: { animated: true } })
      .gif({ loop: 0 })
      .toBuffer();
    expect((await sharp(gif).metadata()).pages).toBe(2);
    const res = await upload(t, ana.key, gif, 'anim.gif', 'image/gif');
    expect(res.status, res.text).toBe(201);
    const stored = (await raw(t, bytesUrl(res.body.contentUrl))).rawPayload;
    const meta = await sharp(stored).metadata();
    expect([meta.format, meta.pages, meta.width, meta.height]).toEqual(['gif', 2, 20, 10]);
  });

  it('limits the longer side to 4096 px', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana.key, await solid(5000, 2500).png().toBuffer(), 'wide.png');
    expect(res.status, res.text).toBe(201);
    const meta = await sharp((await raw(t, bytesUrl(res.body.contentUrl))).rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([4096, 2048]);
  });

  it('accepts a PDF as it is, ready', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana.key, MINIMAL_PDF, 'notes.pdf', 'application/pdf');
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      type: 'application/pdf',
      status: 'ready',
      size: MINIMAL_PDF.length,
      name: 'notes.pdf',
    });
    const bytes = await raw(t, bytesUrl(res.body.contentUrl));
    expect(bytes.body).toBe(MINIMAL_PDF);
    expect(bytes.headers['content-type']).toBe('application/pdf');
  });

  it('refuses HTML, SVG and other formats whatever their name, with 415', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const fakes = [
      '<!DOCTYPE html><html><body><script>alert(1)</script></body></html>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>',
      Buffer.from('504b0304140000000800', 'hex'),
      'just some text',
    ];
    for (const data of fakes) {
      expectError(await upload(t, ana.key, data, 'photo.jpg', 'image/jpeg'), 415, 'unsupported_file_type');
    }
  });

  it('answers 400 missing_file without a non-empty part named file', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    expectError(
      await send(t, ana.key, multipart([{ name: 'other', filename: 'a.pdf', data: MINIMAL_PDF }])),
      400,
      'missing_file',
    );
    expectError(await send(t, ana.key, multipart([{ name: 'text', data: 'hello' }])), 400, 'missing_file');
    expectError(await upload(t, ana.key, ''), 400, 'missing_file');
    expectError(await send(t, ana.key, Buffer.from('{}'), 'application/json'), 400, 'missing_file');
    // Other parts are ignored; the part named file is used.
    const res = await upload(t, ana.key, MINIMAL_PDF, 'n.pdf', 'application/pdf', [
      { name: 'note', data: 'x' },
      { name: 'other', filename: 'x.bin', data: 'zzz' },
    ]);
    expect(res.status, res.text).toBe(201);
  });

  it('needs a key', async () => {
    const { t } = h;
    expectError(await upload(t, undefined, MINIMAL_PDF), 401, 'auth_required');
  });
});

describe('upload switches and limits', () => {
  const h = useTestApp({ UPLOAD_PDF: 'false', UPLOAD_MAX_IMAGE_MB: '1' });

  it('answers 403 feature_disabled for a kind that is off', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    expectError(await upload(t, ana.key, MINIMAL_PDF, 'a.pdf'), 403, 'feature_disabled');
  });

  it('answers 413 file_too_large past the limit of the kind, and keeps nothing', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const big = await sharp({
      create: {
        width: 1200,
        height: 1200,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 128, sigma: 60 },
      },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    expectError(await upload(t, ana.key, big, 'big.png'), 413, 'file_too_large');
    const rows = await t.ctx.db.kysely.selectFrom('files').select('id').execute();
    expect(rows).toEqual([]);
    expect(await t.ctx.files.stat('tmp')).toBeNull();
  });
});

/** Uploads an image as `user` and returns its File object. */
async function uploadImage(t: TestApp, user: BuiltUser, image?: Buffer): Promise<ApiResponse['body']> {
  const res = await upload(t, user.key, image ?? (await rotatedPhotoWithGps()), 'photo.jpg');
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('GET /files/<signed name>', () => {
  const h = useTestApp();

  it('serves the bytes with the contract headers, and Range', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana.key, MINIMAL_PDF, 'Été à la plage (1).pdf', 'application/pdf');
    const url = bytesUrl(res.body.contentUrl);
    const exp = Number(/exp=(\d+)/.exec(url)?.[1]);
    const full = await raw(t, url);
    expect(full.statusCode).toBe(200);
    expect(full.headers).toMatchObject({
      'content-type': 'application/pdf',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'accept-ranges': 'bytes',
      'cache-control': `private, max-age=${exp - Math.floor(t.clock.now() / 1000)}`,
      'content-length': String(MINIMAL_PDF.length),
    });
    // A PDF is downloaded, never shown by the browser's viewer (its scripts would run on our origin).
    expect(full.headers['content-disposition']).toBe(
      `attachment; filename="_t_ _ la plage (1).pdf"; filename*=UTF-8''%C3%89t%C3%A9%20%C3%A0%20la%20plage%20%281%29.pdf`,
    );
    // The URL lives 12 to 24 hours.
    const lifetime = exp * 1000 - t.clock.now();
    expect(lifetime).toBeGreaterThan(12 * HOUR);
    expect(lifetime).toBeLessThanOrEqual(24 * HOUR);

    const part = await raw(t, url, { range: 'bytes=0-7' });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('%PDF-1.4');
    expect(part.headers['content-range']).toBe(`bytes 0-7/${MINIMAL_PDF.length}`);
    const tail = await raw(t, url, { range: 'bytes=-6' });
    expect(tail.statusCode).toBe(206);
    expect(tail.body).toBe('%%EOF\n');
    const outside = await raw(t, url, { range: `bytes=${MINIMAL_PDF.length + 10}-` });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${MINIMAL_PDF.length}`);

    const head = await raw(t, url, {}, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(MINIMAL_PDF.length));
    expect(head.body).toBe('');
  });

  it('sends a PDF with OpenAction JavaScript as an attachment, sandboxed; pictures, video and audio inline', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const scripted = MINIMAL_PDF.replace(
      '/Type /Catalog /Pages 2 0 R',
      '/Type /Catalog /Pages 2 0 R /OpenAction << /S /JavaScript /JS (app.alert\\(document.domain\\)) >>',
    );
    expect(scripted).toContain('/OpenAction');
    const pdf = await upload(t, ana.key, scripted, 'invoice.pdf', 'application/pdf');
    expect(pdf.status, pdf.text).toBe(201);
    const sandbox = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
    for (const method of ['GET', 'HEAD'] as const) {
      const served = await raw(t, bytesUrl(pdf.body.contentUrl), {}, method);
      expect(served.statusCode).toBe(200);
      expect(served.headers).toMatchObject({
        'content-type': 'application/pdf',
        'content-disposition': 'attachment; filename="invoice.pdf"',
        'content-security-policy': sandbox,
        'x-content-type-options': 'nosniff',
      });
    }
    // A range (as a viewer would ask) is an attachment too.
    const part = await raw(t, bytesUrl(pdf.body.contentUrl), { range: 'bytes=0-7' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-disposition']).toBe('attachment; filename="invoice.pdf"');

    // Pictures, video and audio stay inline, with the same sandbox.
    const photo = await uploadImage(t, ana);
    const inline = [{ id: photo.id as string, name: 'photo.jpg', type: 'image/jpeg' }];
    for (const [type, ext] of [
      ['video/mp4', 'mp4'],
      ['audio/mp4', 'm4a'],
      ['audio/mpeg', 'mp3'],
    ] as const) {
      const id = randomUUID();
      await t.ctx.files.write(`${id}.${ext}`, Readable.from([Buffer.from('not really media')]));
      await t.ctx.db.kysely
        .insertInto('files')
        .values({
          id,
          uploader_id: ana.user.id,
          type,
          kind: type.startsWith('video/') ? 'video' : 'audio',
          status: 'ready',
          size: 16,
          name: `clip.${ext}`,
          storage_key: `${id}.${ext}`,
          ext,
          width: null,
          height: null,
          progress: null,
          error: null,
          created_at: t.clock.now(),
          updated_at: t.clock.now(),
        })
        .execute();
      inline.push({ id, name: `clip.${ext}`, type });
    }
    for (const file of inline) {
      const fresh = await api.get(`/files/${file.id}`, { key: ana.key });
      const served = await raw(t, bytesUrl(fresh.body.contentUrl));
      expect(served.statusCode, file.type).toBe(200);
      expect(served.headers).toMatchObject({
        'content-type': file.type,
        'content-disposition': `inline; filename="${file.name}"`,
        'content-security-policy': sandbox,
        'x-content-type-options': 'nosniff',
      });
    }
  });

  it('answers 404 for a bad or missing signature and for an unknown file, 403 url_expired once expired', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const file = await uploadImage(t, ana);
    const url = bytesUrl(file.contentUrl);
    const sig = /sig=([^&]+)/.exec(url)?.[1] ?? '';
    const tampered = url.replace(`sig=${sig}`, `sig=${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const toJson = (r: { statusCode: number; headers: ApiResponse['headers']; body: string }) => ({
      status: r.statusCode,
      headers: r.headers,
      text: r.body,
    });
    expectError(toJson(await raw(t, tampered)), 404, 'not_found');
    expectError(toJson(await raw(t, url.split('?')[0] ?? '')), 404, 'not_found');
    expectError(toJson(await raw(t, url.replace('.jpg?', '.png?'))), 404, 'not_found');
    // A longer expiry with the old signature is refused too.
    expectError(
      toJson(
        await raw(
          t,
          url.replace(/exp=\d+/, (m) => `exp=${Number(m.slice(4)) + 3600}`),
        ),
      ),
      404,
      'not_found',
    );

    t.clock.advance(25 * HOUR);
    expectError(toJson(await raw(t, url)), 403, 'url_expired');
    // A fresh name from GET /api/files/{id} works again.
    const fresh = await h.api.get(`/files/${file.id}`, { key: ana.key });
    expect(fresh.status).toBe(200);
    expect(fresh.body.contentUrl).not.toBe(file.contentUrl);
    expect((await raw(t, bytesUrl(fresh.body.contentUrl))).statusCode).toBe(200);

    await t.ctx.db.kysely.deleteFrom('files').where('id', '=', file.id).execute();
    expectError(toJson(await raw(t, bytesUrl(fresh.body.contentUrl))), 404, 'not_found');
  });
});

describe('GET /api/files/{id} and files on messages', () => {
  const h = useTestApp();

  it('lets the uploader and members of a group where it is attached read it; others get 404', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const eve = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    const file = await uploadImage(t, ana);

    expect((await api.get(`/files/${file.id}`, { key: ana.key })).body).toMatchObject({ id: file.id, status: 'ready' });
    expectError(await api.get(`/files/${file.id}`, { key: ben.key }), 404, 'not_found');
    expectError(await api.get(`/files/${file.id}`), 401, 'auth_required');
    expectError(await api.get('/files/not-a-uuid', { key: ana.key }), 404, 'not_found');

    const post = await api.post('/messages', { key: ana.key, body: { group: group.id, files: [file.id] } });
    expect(post.status, post.text).toBe(201);
    expect(post.body.files).toHaveLength(1);
    expect(post.body.files[0]).toMatchObject({ id: file.id, fileIndex: 0, type: 'image/jpeg', status: 'ready' });
    expect(post.body.preview).toEqual(post.body.files[0]);

    const seen = await api.get(`/files/${file.id}`, { key: ben.key });
    expect(seen.status).toBe(200);
    expect((await raw(t, bytesUrl(seen.body.contentUrl))).statusCode).toBe(200);
    expectError(await api.get(`/files/${file.id}`, { key: eve.key }), 404, 'not_found');

    // Ben reads the message with its files, the card, the feed and his bookmarks.
    const message = await api.get(`/messages/${post.body.id}`, { key: ben.key });
    expect(message.body.files.map((f: { id: string }) => f.id)).toEqual([file.id]);
    const card = await api.get(`/messages/${post.body.id}/preview`, { key: ben.key });
    expect(card.body.preview).toMatchObject({ id: file.id, fileIndex: 0 });
    const feed = await api.get(`/groups/${group.id}/feed`, { key: ben.key });
    expect(feed.body.messages[0].preview).toMatchObject({ id: file.id });
    await api.post('/bookmarks', { key: ben.key, body: { message_id: post.body.id } });
    const marks = await api.get('/me/bookmarks?expand=message', { key: ben.key });
    expect(marks.body[0].message.preview).toMatchObject({ id: file.id });

    // Ben may share the file on to another of his groups (attached to a message he can read).
    const other = await buildGroup(t.ctx, { members: [ben] });
    const shared = await api.post('/messages', { key: ben.key, body: { group: other.id, files: [{ id: file.id }] } });
    expect(shared.status, shared.text).toBe(201);
  });

  it('refuses files that are unknown or not attachable with invalid_file', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    const bens = await uploadImage(t, ben);
    for (const files of [[bens.id], ['9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d'], ['nope']]) {
      expectError(
        await api.post('/messages', { key: ana.key, body: { group: group.id, data: { text: 'x' }, files } }),
        400,
        'invalid_file',
        'files',
      );
    }
  });

  it('keeps files in order, replaces them on PUT, keeps them when files is absent, and a file-only message is not empty', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana] });
    const [a, b, c] = [await uploadImage(t, ana), await uploadImage(t, ana), await uploadImage(t, ana)];
    const post = await api.post('/messages', { key: ana.key, body: { group: group.id, files: [b.id, a.id, b.id] } });
    expect(post.status, post.text).toBe(201);
    expect(post.body.files.map((f: { id: string; fileIndex: number }) => [f.id, f.fileIndex])).toEqual([
      [b.id, 0],
      [a.id, 1],
    ]);
    const id = post.body.id as string;
    // Publishing-like PUT without files keeps them.
    const edited = await api.put(`/messages/${id}`, { key: ana.key, body: { data: { title: 'T' } } });
    expect(edited.body.files.map((f: { id: string }) => f.id)).toEqual([b.id, a.id]);
    const replaced = await api.put(`/messages/${id}`, { key: ana.key, body: { files: [c.id] } });
    expect(replaced.body.files.map((f: { id: string }) => f.id)).toEqual([c.id]);
    expect(replaced.body.preview.id).toBe(c.id);
    // Removing the files and the title leaves it empty.
    expectError(
      await api.put(`/messages/${id}`, { key: ana.key, body: { files: [], data: {} } }),
      400,
      'empty_message',
    );
    const cleared = await api.put(`/messages/${id}`, { key: ana.key, body: { files: [] } });
    expect(cleared.body.files).toEqual([]);
    expect(cleared.body.preview).toBeNull();

    // Deleting a message detaches its files.
    await api.put(`/messages/${id}`, { key: ana.key, body: { files: [a.id] } });
    expect((await api.delete(`/messages/${id}`, { key: ana.key })).status).toBe(204);
    const left = await t.ctx.db.kysely.selectFrom('message_files').selectAll().where('message_id', '=', id).execute();
    expect(left).toEqual([]);
  });
});

describe('avatars', () => {
  const h = useTestApp();

  it('accepts an image the caller uploaded, refuses others, removes with null', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    const mine = await uploadImage(t, ana);
    const bens = await uploadImage(t, ben);
    const pdf = (await upload(t, ana.key, MINIMAL_PDF, 'a.pdf')).body as { id: string };

    for (const avatar of [bens.id, pdf.id, '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d']) {
      expectError(
        await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar } }),
        400,
        'invalid_avatar',
        'avatar',
      );
    }
    const set = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar: { id: mine.id } } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.avatar).toEqual({ id: mine.id, entityType: 'file' });
    // A visible user's avatar is readable; its thumbnail too.
    expect((await api.get(`/files/${mine.id}`, { key: ben.key })).status).toBe(200);
    expect((await api.get(`/images/crop/80/80/${mine.id}`, { key: ben.key })).status).toBe(200);
    void group;

    const cleared = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar: null } });
    expect(cleared.body.avatar).toBeNull();
    expectError(await api.get(`/files/${mine.id}`, { key: ben.key }), 404, 'not_found');
  });
});

describe('GET /api/images/{thumbnail|crop}/{w}/{h}/{id}', () => {
  const h = useTestApp();

  it('makes every allowed size for a member, upright and without metadata, cached with an ETag', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    await buildGroup(t.ctx, { members: [ana, ben] });
    const file = await uploadImage(t, ana, await rotatedPhotoWithGps());
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    await api.post('/messages', { key: ana.key, body: { group: group.id, files: [file.id] } });

    for (const type of ['thumbnail', 'crop'] as const) {
      for (const size of IMAGE_SIZES[type]) {
        const [w, hgt] = size.split('/').map(Number) as [number, number];
        const url = `/api/images/${type}/${size}/${file.id}`;
        const res = await raw(t, url, { 'x-auth-token': ben.key });
        expect(res.statusCode, `${url} ${res.body}`).toBe(200);
        expect(res.headers['content-type']).toBe('image/jpeg');
        expect(res.headers['cache-control']).toBe('private, max-age=86400');
        expect(res.headers.vary).toContain('Accept');
        const meta = await sharp(res.rawPayload).metadata();
        expect(meta.format).toBe('jpeg');
        expect(meta.isProgressive).toBe(true);
        expect(meta.exif).toBeUndefined();
        expect(meta.orientation).toBeUndefined();
        const width = meta.width ?? 0;
        const height = meta.height ?? 0;
        if (type === 'thumbnail') {
          // The upright photo is 200×300 and is never enlarged.
          expect(width / height).toBeCloseTo(200 / 300, 1);
          expect(width).toBeLessThanOrEqual(Math.min(w, 200));
          expect(height).toBeLessThanOrEqual(Math.min(hgt, 300));
        } else {
          expect(width / height).toBeCloseTo(w / hgt, 1);
          expect(width).toBeLessThanOrEqual(w);
        }
        // Made once: the second answer is the same bytes, and If-None-Match gives 304.
        const again = await raw(t, url, { 'x-auth-token': ben.key });
        expect(again.rawPayload.equals(res.rawPayload)).toBe(true);
        expect(again.headers.etag).toBe(res.headers.etag);
        const cached = await raw(t, url, { 'x-auth-token': ben.key, 'if-none-match': String(res.headers.etag) });
        expect(cached.statusCode).toBe(304);
      }
    }
    // Upright: the 320×180 crop of a portrait photo is landscape, the thumbnail portrait.
    const thumb = await raw(t, `/api/images/thumbnail/720/99999/${file.id}`, { 'x-auth-token': ben.key });
    const tm = await sharp(thumb.rawPayload).metadata();
    expect([tm.width, tm.height]).toEqual([200, 300]);

    const webp = await raw(t, `/api/images/crop/100/100/${file.id}`, {
      'x-auth-token': ben.key,
      accept: 'image/avif,image/webp,*/*',
    });
    expect(webp.headers['content-type']).toBe('image/webp');
    expect((await sharp(webp.rawPayload).metadata()).format).toBe('webp');
  });

  it('refuses other sizes and types, strangers, and callers without key or cookie', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const eve = await buildUser(t.ctx);
    const file = await uploadImage(t, ana);
    expectError(await api.get(`/images/thumbnail/100/100/${file.id}`, { key: ana.key }), 400, 'unsupported_image_size');
    expectError(await api.get(`/images/crop/720/99999/${file.id}`, { key: ana.key }), 400, 'unsupported_image_size');
    expectError(await api.get(`/images/blur/80/80/${file.id}`, { key: ana.key }), 400, 'invalid_field');
    expectError(await api.get(`/images/crop/80/80/${file.id}`, { key: eve.key }), 404, 'not_found');
    expectError(await api.get(`/images/crop/80/80/${file.id}`), 401, 'auth_required');
    // A PDF's picture is its first page (src/media/media.int.test.ts covers it); strangers still get 404.
    const pdf = (await upload(t, ana.key, MINIMAL_PDF, 'a.pdf')).body as { id: string };
    expect((await api.get(`/images/crop/80/80/${pdf.id}`, { key: ana.key })).status).toBe(200);
    expectError(await api.get(`/images/crop/80/80/${pdf.id}`, { key: eve.key }), 404, 'not_found');
  });

  it('accepts the media cookie from GET /api/me without the header', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const file = await uploadImage(t, ana);
    const me = await api.get('/me', { key: ana.key });
    const cookie = String([me.headers['set-cookie']].flat()[0]).split(';')[0] ?? '';
    expect(cookie).toMatch(/^kith_media=/);
    const res = await raw(t, `/api/images/crop/160/160/${file.id}`, { cookie });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
