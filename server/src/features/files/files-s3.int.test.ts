import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { s3Env, startS3Server, type TestS3Server } from '../../../test/s3.js';
import { rotatedPhotoWithGps, uploadFile } from '../../../test/uploads.js';
import { RETENTION, runHousekeeping } from '../../maintenance/housekeeping.js';
import { S3FileStore } from '../../storage/s3-file-store.js';

// The app with its file store in S3 (S3_BUCKET): the whole life of a picture and a PDF through
// the API, the bytes checked in the bucket itself. The file rules are tested on the local store
// (files.int.test.ts); the store's own behaviour in storage/s3-file-store.int.test.ts.

const BUCKET = 'kith-app-files';
const FIXTURES = path.join(import.meta.dirname, '../../../test/fixtures');
const HOUR = 60 * 60 * 1000;

describe('files in an S3 bucket, through the API', () => {
  let s3: TestS3Server;
  let bucket: S3Client;
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    s3 = await startS3Server();
    await s3.createBucket(BUCKET);
    bucket = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    t = await createTestApp(s3Env(s3.endpoint, BUCKET));
    api = new ApiClient(t.app);
  });
  afterAll(async () => {
    await t.close();
    bucket.destroy();
    await s3.close();
  });

  /** Every object name in the bucket, sorted. */
  async function objects(): Promise<string[]> {
    const page = await bucket.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key])).sort();
  }

  it('stores, serves, pictures and deletes a photo and a PDF in the bucket', async () => {
    expect(t.ctx.files).toBeInstanceOf(S3FileStore);
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });

    const photo = await uploadFile(t, ana.key, await rotatedPhotoWithGps(), 'beach.jpg');
    expect(photo.status, photo.text).toBe(201);
    const pdfBytes = readFileSync(path.join(FIXTURES, 'first-page-dark-top.pdf'));
    const pdf = await uploadFile(t, ana.key, pdfBytes, 'menu.pdf', 'application/pdf');
    expect(pdf.status, pdf.text).toBe(201);
    const photoId = String(photo.body.id);
    const pdfId = String(pdf.body.id);
    // The cleaned photo and the PDF as sent, under their final names; the temporary upload key is gone.
    expect(await objects()).toEqual([`${photoId}.jpg`, `${pdfId}.pdf`].sort());

    const message = await api.post('/messages', { key: ana.key, body: { group: group.id, files: [photoId, pdfId] } });
    expect(message.status, message.text).toBe(201);

    // The bytes, read back from the bucket through the signed URLs.
    const photoBytes = await t.app.inject({ url: `/files/${photo.body.contentUrl}` });
    expect(photoBytes.statusCode).toBe(200);
    expect(photoBytes.rawPayload.length).toBe(Number(photo.body.size));
    const meta = await sharp(photoBytes.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['jpeg', 200, 300, undefined]);
    const whole = await t.app.inject({ url: `/files/${pdf.body.contentUrl}` });
    expect(whole.rawPayload.equals(pdfBytes)).toBe(true);
    const range = await t.app.inject({ url: `/files/${pdf.body.contentUrl}`, headers: { range: 'bytes=5-14' } });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 5-14/${pdfBytes.length}`);
    expect(range.rawPayload.equals(pdfBytes.subarray(5, 15))).toBe(true);
    const last = await t.app.inject({ url: `/files/${pdf.body.contentUrl}`, headers: { range: 'bytes=-1' } });
    expect(last.rawPayload.equals(pdfBytes.subarray(-1))).toBe(true);

    // Pictures made for the other member, kept in the bucket beside the file and served from there.
    const thumbnail = await t.app.inject({
      url: `/api/images/thumbnail/720/99999/${photoId}`,
      headers: { 'x-auth-token': ben.key },
    });
    expect(thumbnail.statusCode, thumbnail.body).toBe(200);
    expect((await sharp(thumbnail.rawPayload).metadata()).width).toBe(200);
    const page = await t.app.inject({ url: `/api/images/crop/160/160/${pdfId}`, headers: { 'x-auth-token': ben.key } });
    expect(page.statusCode, page.body).toBe(200);
    expect((await sharp(page.rawPayload).metadata()).format).toBe('jpeg');
    const made = await objects();
    // A derived picture is named after the file's version (a time): the rest of each name is fixed.
    // Only under derived/: a file id may end in twelve decimal digits too (one in about 280).
    expect(made.map((key) => key.replace(/^(derived\/.*)-\d+\.jpg$/, '$1-<version>.jpg'))).toEqual(
      [
        `${photoId}.jpg`,
        `${pdfId}.pdf`,
        `derived/${photoId}/thumbnail-720x99999-<version>.jpg`,
        `derived/${pdfId}/crop-160x160-<version>.jpg`,
        `derived/${pdfId}/still-<version>.jpg`,
      ].sort(),
    );
    // The second view is served from the bucket, not made again.
    const again = await t.app.inject({
      url: `/api/images/thumbnail/720/99999/${photoId}`,
      headers: { 'x-auth-token': ben.key },
    });
    expect(again.rawPayload.equals(thumbnail.rawPayload)).toBe(true);
    expect(await objects()).toEqual(made);

    // The message deleted, the unused files go with housekeeping, derived pictures included.
    expect((await api.delete(`/messages/${String(message.body.id)}`, { key: ana.key })).status).toBe(204);
    t.clock.advance(RETENTION.unattachedFileMs + HOUR);
    expect((await runHousekeeping(t.ctx)).filesDeleted).toBe(2);
    expect(await objects()).toEqual([]);
    // Nothing ever went to the local folder.
    expect(existsSync(path.join(t.config.dataDir, 'files'))).toBe(false);
  });
});
