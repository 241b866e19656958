import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { FilesTable } from '../../db/schema.js';
import { expectError } from '../../../test/expect.js';
import { buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp, type TestApp } from '../../../test/harness.js';
import { uploadFile } from '../../../test/uploads.js';
import { derivedKey, MAX_OUTPUT_SIDE, NO_PICTURE_RETRY_MS, noPictureKey, parseImageRequest } from './images.js';

// Pictures of extreme images (issue 15, item 2): refused at upload past 1:50, clamped to what
// JPEG and WebP can hold, and, for files stored before the rule, a 404 remembered instead of a 500
// recomputed on every view.

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();

/** A GET of a picture as `user`, as the 0.5.6 client asks (JPEG), or WebP when `webp`. */
function picture(t: TestApp, user: BuiltUser, path: string, webp = false) {
  return t.app.inject({
    method: 'GET',
    url: `/api/images/${path}`,
    headers: { 'x-auth-token': user.key, ...(webp ? { accept: 'image/webp,*/*' } : {}) },
  });
}

const asResponse = (r: { statusCode: number; headers: Record<string, unknown>; body: string }) => ({
  status: r.statusCode,
  headers: r.headers as Record<string, string>,
  text: r.body,
});

/**
 * A file as an older version of Kith stored it: bytes put in the store and a row inserted
 * directly, past today's upload checks.
 */
async function storeOldFile(
  t: TestApp,
  owner: BuiltUser,
  bytes: Buffer,
  sides: { width: number | null; height: number | null },
): Promise<FilesTable> {
  const id = randomUUID();
  const now = t.clock.now();
  const row: FilesTable = {
    id,
    uploader_id: owner.user.id,
    type: 'image/png',
    kind: 'image',
    status: 'ready',
    size: bytes.length,
    name: 'old.png',
    storage_key: `${id}.png`,
    ext: 'png',
    width: sides.width,
    height: sides.height,
    progress: null,
    error: null,
    created_at: now,
    updated_at: now,
  };
  await t.ctx.files.write(row.storage_key, Readable.from([bytes]));
  await t.ctx.db.kysely.insertInto('files').values(row).execute();
  return row;
}

describe('uploads of extreme images', () => {
  const h = useTestApp();

  it('refuses 1 × 100,000 and 100,000 × 1 with 415 unsupported_file_type, and keeps nothing', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    for (const [width, height] of [
      [1, 100_000],
      [100_000, 1],
      [20, 1020],
    ] as const) {
      const res = await uploadFile(t, ana.key, await png(width, height), 'strip.png', 'image/png');
      expectError(res, 415, 'unsupported_file_type', {
        field: 'file',
        message: 'This image is too long and narrow to be shown (one side over 50 times the other)',
      });
    }
    expect(await t.ctx.db.kysely.selectFrom('files').select('id').execute()).toEqual([]);
  });

  it('keeps a 1:50 image, and a moderately extreme one gives every picture, clamped to the format', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    // Exactly 1:50 is accepted, tall or wide (the wide one is scaled to 4096 × 82).
    for (const [width, height, stored] of [
      [20, 1000, [20, 1000]],
      [5000, 100, [4096, 82]],
    ] as const) {
      const res = await uploadFile(t, ana.key, await png(width, height), 'edge.png', 'image/png');
      expect(res.status, res.text).toBe(201);
      const thumb = await picture(t, ana, `thumbnail/720/99999/${res.body.id}`);
      expect(thumb.statusCode, thumb.body).toBe(200);
      const bytes = await t.app.inject({ method: 'GET', url: `/files/${res.body.contentUrl}` });
      const meta = await sharp(bytes.rawPayload).metadata();
      expect([meta.width, meta.height]).toEqual(stored);
    }

    // 500 × 20,000 (1:40): taller than WebP's 16,383 px once fitted into 720 × 99999.
    const res = await uploadFile(t, ana.key, await png(500, 20_000), 'scroll.png', 'image/png');
    expect(res.status, res.text).toBe(201);
    const id = res.body.id as string;
    const jpeg = await picture(t, ana, `thumbnail/720/99999/${id}`);
    expect(jpeg.statusCode, jpeg.body).toBe(200);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    const jm = await sharp(jpeg.rawPayload).metadata();
    expect([jm.width, jm.height]).toEqual([500, 20_000]);

    const webp = await picture(t, ana, `thumbnail/720/99999/${id}`, true);
    expect(webp.statusCode, webp.body).toBe(200);
    expect(webp.headers['content-type']).toBe('image/webp');
    const wm = await sharp(webp.rawPayload).metadata();
    expect(wm.height).toBe(MAX_OUTPUT_SIDE.webp);
    expect(wm.width).toBe(Math.round((500 * MAX_OUTPUT_SIDE.webp) / 20_000));

    for (const path of ['thumbnail/2048/99999', 'crop/320/180', 'crop/1024/270', 'crop/80/80']) {
      for (const inWebp of [false, true]) {
        const res2 = await picture(t, ana, `${path}/${id}`, inWebp);
        expect(res2.statusCode, `${path} ${res2.body}`).toBe(200);
      }
    }
  });
});

describe('pictures of extreme files stored before the upload rule', () => {
  const h = useTestApp();

  it('answers 404, not 500, for 1 × 100,000 and for the 4096 × 1 that 100,000 × 1 became, and remembers it', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const tall = await storeOldFile(t, ana, await png(1, 100_000), { width: 1, height: 100_000 });
    const wide = await storeOldFile(t, ana, await png(4096, 1), { width: 4096, height: 1 });
    for (const file of [tall, wide]) {
      for (const path of ['thumbnail/720/99999', 'thumbnail/1366/99999', 'crop/160/160']) {
        for (const inWebp of [false, true]) {
          const res = await picture(t, ana, `${path}/${file.id}`, inWebp);
          expectError(asResponse(res), 404, 'not_found');
          // Not kept by the browser as a picture would be.
          expect(res.headers.etag).toBeUndefined();
          expect(res.headers['cache-control']).not.toContain('max-age=86400');
        }
      }
      expect(await t.ctx.files.stat(noPictureKey(file))).not.toBeNull();
      const made = derivedKey(file, parseImageRequest('thumbnail', '720', '99999'), 'jpeg');
      expect(await t.ctx.files.stat(made)).toBeNull();
    }
    // The file itself is still served as it is.
    const meta = await h.api.get(`/files/${tall.id}`, { key: ana.key });
    expect(meta.status).toBe(200);
  });

  it('does not read the file again while the failure is remembered, and tries again once it has expired', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const healthy = await png(30, 20);
    // An extreme picture whose row does not carry its sides (they are measured), and a broken
    // one that sharp cannot decode.
    const extreme = await storeOldFile(t, ana, await png(1, 100_000), { width: null, height: null });
    const broken = await storeOldFile(t, ana, Buffer.concat([healthy.subarray(0, 40), Buffer.alloc(200, 7)]), {
      width: 30,
      height: 20,
    });
    for (const file of [extreme, broken]) {
      const url = `thumbnail/720/99999/${file.id}`;
      expectError(asResponse(await picture(t, ana, url)), 404, 'not_found');
      expect(await t.ctx.files.stat(noPictureKey(file))).not.toBeNull();

      // Swap in healthy bytes under the same key: had the source been read again, a picture
      // would now be made. The remembered failure answers instead, for every size and format.
      await t.ctx.files.write(file.storage_key, Readable.from([healthy]));
      expectError(asResponse(await picture(t, ana, url)), 404, 'not_found');
      expectError(asResponse(await picture(t, ana, `crop/80/80/${file.id}`, true)), 404, 'not_found');
    }

    t.clock.advance(NO_PICTURE_RETRY_MS + 1000);
    for (const file of [extreme, broken]) {
      const res = await picture(t, ana, `thumbnail/720/99999/${file.id}`);
      expect(res.statusCode, res.body).toBe(200);
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height]).toEqual([30, 20]);
    }
  });
});
