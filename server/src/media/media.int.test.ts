import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../test/client.js';
import { buildUser, type BuiltUser } from '../../test/factories.js';
import { useTestApp, type TestApp } from '../../test/harness.js';
import { uploadFile } from '../../test/uploads.js';
import type { PublishedEvent } from '../events/event-bus.js';
import { presentFrame } from '../features/live/present.js';
import { DbJobQueue } from '../jobs/db-job-queue.js';
import { registerMediaHandlers } from '../features/files/media-jobs.js';
import { ProgressParser } from './ffmpeg.js';

const FIXTURES = path.join(import.meta.dirname, '../../test/fixtures');

let dir: string;
const media: Record<string, Buffer> = {};

/** Makes a test clip with ffmpeg from lavfi sources into the temporary folder. */
function make(name: string, args: string[]): void {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args, file]);
  media[name] = readFileSync(file);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kith-media-'));
  const video = (size: string, seconds: number, rate = 10) => [
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${size}:rate=${rate}`,
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440',
    '-t',
    String(seconds),
  ];
  // Not H.264: converted. Larger than 720p, to check the cap.
  make('clip.mkv', [...video('1280x960', 2), '-c:v', 'mpeg4', '-c:a', 'libvorbis']);
  // Already playable, but with its index at the end and a title and place in its metadata.
  make('ready.mp4', [
    ...video('320x240', 2),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-metadata',
    'title=SecretTitle',
    '-metadata',
    'location=+48.8584+002.2945/',
  ]);
  make('short.mov', [...video('320x240', 0.5), '-c:v', 'mjpeg', '-c:a', 'pcm_s16le']);
  // Long enough to be stopped in the middle of its conversion.
  make('long.mkv', [
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=25',
    '-f',
    'lavfi',
    '-i',
    'sine',
    '-t',
    '12',
    '-c:v',
    'mpeg4',
    '-c:a',
    'libvorbis',
  ]);
  make('sound.ogg', ['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '2', '-c:a', 'libvorbis']);
  make('sound.mp3', [
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440',
    '-t',
    '2',
    '-c:a',
    'libmp3lame',
    '-metadata',
    'title=SecretTitle',
    '-metadata',
    'artist=SecretArtist',
  ]);
  // A Matroska header followed by noise.
  media['broken.mkv'] = Buffer.concat([(media['clip.mkv'] ?? Buffer.alloc(0)).subarray(0, 300), randomBytes(20_000)]);
  media['page.pdf'] = readFileSync(path.join(FIXTURES, 'first-page-dark-top.pdf'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function randomBytes(n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7919 + ((i * i) % 251)) % 256;
  return out;
}

function clip(name: string): Buffer {
  const bytes = media[name];
  if (bytes === undefined) throw new Error(`no test media ${name}`);
  return bytes;
}

function upload(t: TestApp, user: BuiltUser, name: string): Promise<ApiResponse> {
  return uploadFile(t, user.key, clip(name), name, 'application/octet-stream');
}

async function getFile(t: TestApp, user: BuiltUser, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/files/${id}`, headers: { 'x-auth-token': user.key } });
  expect(res.statusCode, res.body).toBe(200);
  return JSON.parse(res.body) as Record<string, unknown>;
}

async function storedBytes(t: TestApp, id: string): Promise<Buffer> {
  const row = await t.ctx.db.kysely.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const chunks: Buffer[] = [];
  for await (const chunk of t.ctx.files.read(row.storage_key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Probed {
  format: { format_name: string; tags?: Record<string, string> };
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; tags?: Record<string, string> }[];
}

function ffprobe(bytes: Buffer, name: string): Probed {
  const file = path.join(dir, `probe-${name}`);
  writeFileSync(file, bytes);
  const out = execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]);
  return JSON.parse(out.toString()) as Probed;
}

/** Top-level MP4 box types in order. */
function topBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  let at = 0;
  while (at + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (size === 1) size = Number(bytes.readBigUInt64BE(at + 8));
    boxes.push(type);
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

function expectMoovFirst(bytes: Buffer): void {
  const boxes = topBoxes(bytes);
  expect(boxes).toContain('moov');
  expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
}

async function thumbnail(t: TestApp, user: BuiltUser, size: string, id: string) {
  return t.app.inject({
    method: 'GET',
    url: `/api/images/thumbnail/${size}/${id}`,
    headers: { 'x-auth-token': user.key },
  });
}

describe('media processing through the API', () => {
  const h = useTestApp();

  it('answers a .mkv raw, shows its frame while raw, and converts it to a playable 720p H.264/AAC MP4', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const events: PublishedEvent[] = [];
    const unsubscribe = t.ctx.events.subscribe((_event, published) => events.push(published));
    const res = await upload(t, ana, 'clip.mkv');
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'raw', progress: 0, error: null, type: 'video/matroska' });
    expect(res.body.contentUrl).toMatch(/\.mkv\?/);
    const id = res.body.id as string;

    // The job was recorded with the upload.
    const jobs = await t.ctx.db.kysely.selectFrom('jobs').selectAll().where('payload', 'like', `%${id}%`).execute();
    expect(jobs).toMatchObject([{ name: 'process-video', status: 'queued' }]);

    // A poster from the original while it is raw.
    const rawPoster = await thumbnail(t, ana, '1280/720', id);
    expect(rawPoster.statusCode, rawPoster.body).toBe(200);
    expect(rawPoster.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(rawPoster.rawPayload).metadata()).width).toBe(960);

    await t.ctx.jobs.drain();
    const file = await getFile(t, ana, id);
    expect(file).toMatchObject({
      id,
      status: 'ready',
      progress: null,
      error: null,
      type: 'video/mp4',
      name: 'clip.mp4',
    });
    expect(file.contentUrl).toMatch(new RegExp(`^${id}\\.mp4\\?`));
    const bytes = await storedBytes(t, id);
    expect(file.size).toBe(bytes.length);
    const probed = ffprobe(bytes, 'clip.mp4');
    const video = probed.streams.find((s) => s.codec_type === 'video');
    const audio = probed.streams.find((s) => s.codec_type === 'audio');
    expect(video).toMatchObject({ codec_name: 'h264', width: 960, height: 720 });
    expect(audio?.codec_name).toBe('aac');
    expectMoovFirst(bytes);
    // The original is gone.
    expect(await t.ctx.files.stat(`${id}.mkv`)).toBeNull();

    const poster = await thumbnail(t, ana, '1280/720', id);
    expect(poster.statusCode).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect(await sharp(poster.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 960, height: 720 });
    const crop = await t.app.inject({
      method: 'GET',
      url: `/api/images/crop/160/160/${id}`,
      headers: { 'x-auth-token': ana.key },
    });
    expect(await sharp(crop.rawPayload).metadata()).toMatchObject({ width: 160, height: 160 });

    // The uploader's streams hear of it, with the File object.
    unsubscribe();
    const fileEvents = events.filter((e) => e.event.type === 'file');
    expect(fileEvents.length).toBeGreaterThanOrEqual(1);
    expect(fileEvents.every((e) => e.event.type === 'file' && e.event.userId === ana.user.id)).toBe(true);
    const frame = await presentFrame(t.ctx, t.ctx.db.kysely, fileEvents.at(-1) as PublishedEvent);
    expect(frame).toContain('event: file\n');
    const data = JSON.parse(/^data: (.*)$/m.exec(frame ?? '')?.[1] ?? '{}') as Record<string, unknown>;
    expect(data).toMatchObject({ id, entityType: 'file', status: 'ready', type: 'video/mp4' });
  });

  it('only remuxes an MP4 that is already H.264 + AAC: no metadata, moov first', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const original = clip('ready.mp4');
    expect(topBoxes(original).indexOf('moov')).toBeGreaterThan(topBoxes(original).indexOf('mdat'));
    expect(original.includes('SecretTitle')).toBe(true);
    const res = await upload(t, ana, 'ready.mp4');
    expect(res.body).toMatchObject({ status: 'raw', type: 'video/mp4' });
    const started = Date.now();
    await t.ctx.jobs.drain();
    expect(Date.now() - started).toBeLessThan(5000);
    const file = await getFile(t, ana, res.body.id);
    expect(file).toMatchObject({ status: 'ready', type: 'video/mp4', error: null });
    const bytes = await storedBytes(t, res.body.id);
    expectMoovFirst(bytes);
    expect(bytes.includes('SecretTitle')).toBe(false);
    expect(bytes.includes('48.8584')).toBe(false);
    const probed = ffprobe(bytes, 'ready.mp4');
    expect(probed.format.tags?.title).toBeUndefined();
    expect(probed.streams.map((s) => s.codec_name).sort()).toEqual(['aac', 'h264']);
    // Not re-encoded: the same resolution, and the stream bytes are kept (the size barely changes).
    expect(probed.streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: 320, height: 240 });
  });

  it('takes the first frame as poster of a clip shorter than 1 s', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana, 'short.mov');
    expect(res.body).toMatchObject({ status: 'raw', type: 'video/quicktime' });
    const raw = await thumbnail(t, ana, '1280/720', res.body.id);
    expect(raw.statusCode).toBe(200);
    await t.ctx.jobs.drain();
    expect(await getFile(t, ana, res.body.id)).toMatchObject({ status: 'ready', type: 'video/mp4', error: null });
    const poster = await thumbnail(t, ana, '1280/720', res.body.id);
    expect(await sharp(poster.rawPayload).metadata()).toMatchObject({ width: 320, height: 240 });
  });

  it('converts an .ogg sound to AAC in M4A; audio has no thumbnail', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana, 'sound.ogg');
    expect(res.body).toMatchObject({ status: 'raw', progress: 0 });
    expect((await thumbnail(t, ana, '720/99999', res.body.id)).statusCode).toBe(404);
    await t.ctx.jobs.drain();
    const file = await getFile(t, ana, res.body.id);
    expect(file).toMatchObject({ status: 'ready', type: 'audio/mp4', progress: null, error: null });
    expect(file.contentUrl).toMatch(/\.m4a\?/);
    const probed = ffprobe(await storedBytes(t, res.body.id), 'sound.m4a');
    expect(probed.streams.map((s) => s.codec_name)).toEqual(['aac']);
    expect(probed.format.format_name).toContain('mp4');
  });

  it('keeps an MP3 as MP3 without its ID3 tags', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    expect(clip('sound.mp3').subarray(0, 3).toString()).toBe('ID3');
    const res = await upload(t, ana, 'sound.mp3');
    expect(res.body).toMatchObject({ status: 'raw', type: 'audio/mpeg' });
    await t.ctx.jobs.drain();
    const file = await getFile(t, ana, res.body.id);
    expect(file).toMatchObject({ status: 'ready', type: 'audio/mpeg', error: null });
    expect(file.contentUrl).toMatch(/\.mp3\?/);
    const bytes = await storedBytes(t, res.body.id);
    expect(bytes.subarray(0, 3).toString()).not.toBe('ID3');
    expect(bytes.includes('SecretTitle')).toBe(false);
    expect(bytes.includes('SecretArtist')).toBe(false);
    expect(ffprobe(bytes, 'sound.mp3').streams.map((s) => s.codec_name)).toEqual(['mp3']);
  });

  it('previews the first page of a PDF', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana, 'page.pdf');
    expect(res.body).toMatchObject({ status: 'ready', type: 'application/pdf' });
    const page = await thumbnail(t, ana, '420/994', res.body.id);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toBe('image/jpeg');
    // 200 × 300 pt at 100 dpi, not enlarged; the top half is black, the bottom half white.
    const image = sharp(page.rawPayload);
    expect(await image.metadata()).toMatchObject({ width: 278, height: 417 });
    const { data, info } = await image.greyscale().raw().toBuffer({ resolveWithObject: true });
    expect(data[Math.floor(info.height / 4) * info.width + 100]).toBeLessThan(40);
    expect(data[Math.floor((3 * info.height) / 4) * info.width + 100]).toBeGreaterThan(215);
  });

  it('ends a video that cannot be read ready, with its original and a readable reason', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana, 'broken.mkv');
    expect(res.body).toMatchObject({ status: 'raw', type: 'video/matroska' });
    expect((await thumbnail(t, ana, '1280/720', res.body.id)).statusCode).toBe(404);
    await t.ctx.jobs.drain();
    const file = await getFile(t, ana, res.body.id);
    expect(file).toMatchObject({ status: 'ready', type: 'video/matroska', progress: null });
    expect(file.error).toEqual(expect.any(String));
    expect(file.error).toMatch(/cannot be read/);
    expect(file.contentUrl).toMatch(/\.mkv\?/);
    expect((await storedBytes(t, res.body.id)).equals(clip('broken.mkv'))).toBe(true);
    const job = await t.ctx.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('payload', 'like', `%${res.body.id}%`)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('reports the media kinds as available in /api/info when the tools are installed', async () => {
    const res = await h.t.app.inject({ method: 'GET', url: '/api/info' });
    expect(JSON.parse(res.body).upload).toEqual({ image: true, video: true, audio: true, pdf: true });
  });
});

describe('a restart in the middle of a conversion', () => {
  const h = useTestApp();

  // Two real 720p conversions (one stopped): the timeout leaves room for a machine loaded by other tests.
  it('stops ffmpeg, queues the job again, and a new runner ends the file ready', { timeout: 60_000 }, async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana, 'long.mkv');
    const id = res.body.id as string;
    t.ctx.jobs.start();
    // Progress rises while ffmpeg runs.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = await t.ctx.db.kysely
        .selectFrom('files')
        .select(['progress', 'status'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('raw');
      if ((row.progress ?? 0) > 0) break;
      if (Date.now() > deadline) throw new Error('no progress seen');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await getFile(t, ana, id)).progress).toBeGreaterThan(0);
    await t.ctx.jobs.stop();
    expect(await getFile(t, ana, id)).toMatchObject({ status: 'raw', type: 'video/matroska' });
    const job = await t.ctx.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('payload', 'like', `%${id}%`)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'queued', attempts: 0 });

    const next = new DbJobQueue(t.ctx.db, { clock: t.clock });
    registerMediaHandlers(t.ctx, next);
    await next.drain();
    const file = await getFile(t, ana, id);
    expect(file).toMatchObject({ status: 'ready', type: 'video/mp4', error: null, progress: null });
    const probed = ffprobe(await storedBytes(t, id), 'long.mp4');
    expect(probed.streams.find((s) => s.codec_type === 'video')).toMatchObject({ codec_name: 'h264', height: 720 });
  });

  it('resumes a job whose runner died (lease expired)', async () => {
    const { t } = h;
    const ana = await buildUser(t.ctx);
    const res = await upload(t, ana, 'sound.ogg');
    const id = res.body.id as string;
    await t.ctx.db.kysely
      .updateTable('jobs')
      .set({ status: 'running', attempts: 1, locked_until: t.clock.now() - 1 })
      .where('payload', 'like', `%${id}%`)
      .execute();
    const next = new DbJobQueue(t.ctx.db, { clock: t.clock });
    registerMediaHandlers(t.ctx, next);
    await next.drain();
    expect(await getFile(t, ana, id)).toMatchObject({ status: 'ready', type: 'audio/mp4' });
  });
});

describe('ffmpeg progress', () => {
  it('turns out_time against the duration into 0–99 percent', () => {
    const seen: number[] = [];
    const parser = new ProgressParser(10, (p) => seen.push(p));
    parser.push('frame=1\nout_time_us=2500');
    parser.push('000\nprogress=continue\nout_time_ms=9990000\nout_time_us=12000000\nprogress=end\n');
    expect(seen).toEqual([25, 99, 99]);
  });
});
