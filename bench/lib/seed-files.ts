/**
 * Uploaded images of the big group, stored as `POST /api/files` stores a JPEG (src/features/files/
 * service.ts): the upload is re-encoded by sharp (orientation applied, metadata dropped, white
 * background, JPEG quality 90) and kept in the FileStore as `<id>.jpg`, with a `ready` files row.
 * Thumbnails are then made on demand by the real server, which is what the benchmark measures.
 */
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { AppContext } from '../../server/dist/context.js';
import type { FilesTable } from '../../server/dist/db/schema.js';
import type { SeedDb } from './db.ts';
import type { MessagePlan } from './plan-messages.ts';
import type { PeoplePlan } from './plan-people.ts';
import { Random } from './prng.ts';

/** Phone-camera-like sizes, landscape and portrait. */
const SIZES: [number, number][] = [
  [800, 600],
  [600, 800],
  [1024, 768],
  [1200, 900],
];

/**
 * A "photo": a diagonal gradient between two colours with grain, so it compresses like a picture
 * rather than a flat colour, and decoding it for a thumbnail costs what a real one does.
 */
function photoPixels(rng: Random, width: number, height: number): Buffer {
  const from = [rng.int(256), rng.int(256), rng.int(256)];
  const to = [rng.int(256), rng.int(256), rng.int(256)];
  const pixels = Buffer.alloc(width * height * 3);
  // A cheap inline generator for the grain: millions of values per image, seeded from the stream.
  let noise = rng.u32() | 1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const t = (x + y) / (width + height);
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c += 1) {
        noise ^= noise << 13;
        noise ^= noise >>> 17;
        noise ^= noise << 5;
        const grain = ((noise >>> 0) % 25) - 12;
        const value = (from[c] as number) + ((to[c] as number) - (from[c] as number)) * t + grain;
        pixels[at + c] = Math.max(0, Math.min(255, Math.round(value)));
      }
    }
  }
  return pixels;
}

/** The bytes an upload of this photo leaves in the store (same steps as the server's processImage). */
async function storedJpeg(rng: Random, width: number, height: number): Promise<Buffer> {
  const camera = await sharp(photoPixels(rng, width, height), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  return sharp(camera, { limitInputPixels: false })
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 90 })
    .toBuffer();
}

export interface WrittenFiles {
  /** Post index → id of the image it carries (position 0, so also its card picture). */
  fileOf: Map<number, string>;
  /** The first image: the runner asks for its thumbnail. */
  firstFileId: string;
}

/** Stores one image per planned image post, uploaded by the post's author shortly before posting. */
export async function writeFiles(
  ctx: AppContext,
  seedDb: SeedDb,
  seed: number,
  people: PeoplePlan,
  plan: MessagePlan,
): Promise<WrittenFiles> {
  const rng = new Random(seed, 'files');
  const fileOf = new Map<number, string>();
  const rows: FilesTable[] = [];
  for (const [k, post] of plan.imagePosts.entries()) {
    const id = rng.uuid();
    const [width, height] = rng.pick(SIZES);
    const bytes = await storedJpeg(rng, width, height);
    const key = `${id}.jpg`;
    const { size } = await ctx.files.write(key, Readable.from([bytes]));
    const uploadedAt = (plan.createdAt[post] as number) - rng.between(5_000, 300_000);
    rows.push({
      id,
      uploader_id: people.users[plan.author[post] as number]?.id ?? null,
      type: 'image/jpeg',
      kind: 'image',
      status: 'ready',
      size,
      name: `IMG_${String(2000 + k).padStart(4, '0')}.jpg`,
      storage_key: key,
      ext: 'jpg',
      width,
      height,
      progress: null,
      error: null,
      created_at: uploadedAt,
      updated_at: uploadedAt,
    });
    fileOf.set(post, id);
  }
  rows.sort((a, b) => a.created_at - b.created_at);
  await seedDb.transaction((tx) => seedDb.insert(tx, 'files', rows));
  const first = fileOf.get(plan.imagePosts[0] ?? -1);
  if (first === undefined) throw new Error('No image was planned');
  return { fileOf, firstFileId: first };
}
