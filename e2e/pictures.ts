// Pictures for the scenarios: JPEGs made with sharp, uploaded through the API as the client does.
import sharp from 'sharp';
import { expect } from 'vitest';
import type { Kith } from './harness.js';

/** A plain JPEG of one colour; `hue` tells pictures apart. */
export async function jpeg(hue: number, width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: hue, g: 90, b: 255 - hue } } })
    .jpeg()
    .toBuffer();
}

/** Uploads one JPEG as multipart (`file` part) the way the client does; answers the file object. */
export async function uploadJpeg(
  kith: Kith,
  key: string,
  buffer: Buffer,
  name: string,
): Promise<{ id: string; status: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(buffer)], { type: 'image/jpeg' }), name);
  const res = await fetch(`${kith.url}/api/files`, { method: 'POST', headers: { 'X-AUTH-TOKEN': key }, body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; status: string };
}
