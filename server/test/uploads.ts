import sharp from 'sharp';
import type { ApiResponse } from './client.js';
import type { TestApp } from './harness.js';

// Uploads in tests: multipart bodies built by hand, sent through the app in process.

export const BOUNDARY = '----kith-test-boundary-7MA4YWxkTrZu0gW';

export interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer | string;
}

/** A multipart/form-data body. */
export function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** POST /api/files with a raw multipart payload. */
export async function sendUpload(
  t: TestApp,
  key: string | undefined,
  payload: Buffer,
  contentType?: string,
): Promise<ApiResponse> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/files',
    headers: {
      'content-type': contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
      ...(key === undefined ? {} : { 'x-auth-token': key }),
    },
    payload,
  });
  let body: unknown = res.body;
  try {
    body = JSON.parse(res.body);
  } catch {
    // not JSON
  }
  return { status: res.statusCode, headers: res.headers, body, text: res.body };
}

/** Uploads one file in the `file` part. */
export function uploadFile(
  t: TestApp,
  key: string | undefined,
  data: Buffer | string,
  filename = 'photo.jpg',
  type = 'image/jpeg',
  extraParts: Part[] = [],
): Promise<ApiResponse> {
  return sendUpload(t, key, multipart([...extraParts, { name: 'file', filename, type, data }]));
}

/** Uploads a small JPEG of each background colour, in order, and answers their file ids. */
export async function uploadPhotos(t: TestApp, key: string, backgrounds: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const background of backgrounds) {
    const data = await sharp({ create: { width: 40, height: 30, channels: 3, background } })
      .jpeg()
      .toBuffer();
    const upload = await uploadFile(t, key, data);
    if (upload.status !== 201) throw new Error(`upload failed: ${upload.status} ${upload.text}`);
    ids.push(upload.body.id as string);
  }
  return ids;
}

/** A 300×200 JPEG with EXIF orientation 6 (shown rotated 90°) and a GPS position, like a phone's. */
export function rotatedPhotoWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .withMetadata({
      orientation: 6,
      exif: { IFD0: { Make: 'KithCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } },
    })
    .toBuffer();
}
