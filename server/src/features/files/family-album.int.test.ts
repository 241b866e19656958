import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IMAGE_SIZES } from '@kith/common';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { rotatedPhotoWithGps, uploadFile } from '../../../test/uploads.js';

const FIXTURES = path.join(import.meta.dirname, '../../../test/fixtures');

/**
 * The "Done when" of the files issue as a family would live it: a phone photo, a .mov, an .ogg and a
 * PDF on one message; the other member sees them all made viewable; a stranger sees none of them.
 */
describe('a family album message', () => {
  let t: TestApp;
  let api: ApiClient;
  let dir: string;

  beforeAll(async () => {
    // Link previews on (nothing here reaches the web: refused addresses never connect).
    t = await createTestApp({ LINK_PREVIEWS: 'true' });
    api = new ApiClient(t.app);
    dir = mkdtempSync(path.join(tmpdir(), 'kith-album-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A short clip made by Debian's ffmpeg. */
  function clip(name: string, args: string[]): Buffer {
    const file = path.join(dir, name);
    execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args, file]);
    return readFileSync(file);
  }

  const image = (url: string, key?: string) =>
    t.app.inject({ method: 'GET', url, headers: key === undefined ? {} : { 'x-auth-token': key } });

  it('photo, video, sound and PDF become viewable for members only', async () => {
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const ben = await buildUser(t.ctx, { name: 'Ben' });
    const stranger = await buildUser(t.ctx, { name: 'Carl' });
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    await buildGroup(t.ctx, { members: [stranger] });

    const lavfi = ['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-f', 'lavfi', '-i', 'sine', '-t', '1'];
    const uploads = [
      await uploadFile(t, ana.key, await rotatedPhotoWithGps(), 'IMG_0001.jpg', 'image/jpeg'),
      await uploadFile(
        t,
        ana.key,
        clip('IMG_0002.mov', [...lavfi, '-c:v', 'mjpeg', '-c:a', 'pcm_s16le']),
        'IMG_0002.mov',
      ),
      await uploadFile(
        t,
        ana.key,
        clip('voice.ogg', ['-f', 'lavfi', '-i', 'sine', '-t', '1', '-c:a', 'libvorbis']),
        'voice.ogg',
      ),
      await uploadFile(t, ana.key, readFileSync(path.join(FIXTURES, 'first-page-dark-top.pdf')), 'menu.pdf'),
    ];
    for (const res of uploads) expect(res.status, res.text).toBe(201);
    const [photo, video, sound, pdf] = uploads.map((res) => res.body as { id: string; status: string });
    expect([photo?.status, video?.status, sound?.status, pdf?.status]).toEqual(['ready', 'raw', 'raw', 'ready']);

    const post = await api.post('/messages', {
      key: ana.key,
      body: { group: group.id, data: { title: 'Sunday' }, files: uploads.map((res) => res.body.id) },
    });
    expect(post.status).toBe(201);
    await t.ctx.jobs.drain();

    // Ben sees everything, converted and ready.
    const seen = await api.get(`/messages/${post.body.id}`, { key: ben.key });
    const files = seen.body.files as { id: string; type: string; status: string; error: string | null }[];
    expect(files.map((f) => [f.type, f.status, f.error])).toEqual([
      ['image/jpeg', 'ready', null],
      ['video/mp4', 'ready', null],
      ['audio/mp4', 'ready', null],
      ['application/pdf', 'ready', null],
    ]);
    expect(seen.body.preview.id).toBe(photo?.id);

    // The photo stands upright and carries no location in any size.
    const sizes = [
      ...IMAGE_SIZES.thumbnail.map((s) => `/api/images/thumbnail/${s}/${photo?.id}`),
      ...IMAGE_SIZES.crop.map((s) => `/api/images/crop/${s}/${photo?.id}`),
    ];
    for (const url of sizes) {
      const res = await image(url, ben.key);
      expect(res.statusCode, url).toBe(200);
      const meta = await sharp(res.rawPayload).metadata();
      expect(meta.exif, url).toBeUndefined();
      expect(meta.orientation ?? 1, url).toBe(1);
      if (url.includes('thumbnail')) expect(meta.height, url).toBeGreaterThan(meta.width);
    }

    // The video has a poster, the PDF a first-page picture; sound has no picture.
    expect((await image(`/api/images/thumbnail/1280/720/${video?.id}`, ben.key)).statusCode).toBe(200);
    expect((await image(`/api/images/thumbnail/420/994/${pdf?.id}`, ben.key)).statusCode).toBe(200);
    expect((await image(`/api/images/thumbnail/720/99999/${sound?.id}`, ben.key)).statusCode).toBe(404);

    // A stranger gets nothing: no metadata, no pictures.
    for (const file of files) {
      expectError(await api.get(`/files/${file.id}`, { key: stranger.key }), 404, 'not_found');
      expect((await image(`/api/images/crop/160/160/${file.id}`, stranger.key)).statusCode).toBe(404);
    }
    expectError(await api.get(`/messages/${post.body.id}`, { key: stranger.key }), 404, 'not_found');

    // Links to the machine itself or to the cloud metadata address are refused.
    for (const url of ['http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data']) {
      const res = await api.get(`/links/by_url?url=${encodeURIComponent(url)}`, { key: ben.key });
      expectError(res, 400, 'invalid_url');
    }
  });
});
