import { randomFillSync, randomUUID } from 'node:crypto';
import { notFound } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new id: a lowercase UUID v4 (docs/api §1.4). */
export function newId(): string {
  return randomUUID();
}

/**
 * A new id in the same v4 form whose first 48 bits are the time `at` (ms), the other 74 random.
 * For rows written many at a time (the notifications of a post): ids that follow each other land on
 * the same page of the primary-key index, where random ones put every row on a different page
 * (docs/decisions.md). Only for rows whose time is shown anyway; the random part keeps them unguessable.
 */
export function newOrderedId(at: number): string {
  const time = Math.max(0, Math.min(Math.trunc(at), 0xffff_ffff_ffff))
    .toString(16)
    .padStart(12, '0');
  const random = randomHex(20);
  const variant = ((Number.parseInt(random[3] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-4${random.slice(0, 3)}-${variant}${random.slice(4, 7)}-${random.slice(7, 19)}`;
}

// Random bytes drawn 4 KiB at a time, as `randomUUID` does: one call to the system's generator per
// post's worth of ids rather than one per id.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(chars: number): string {
  const bytes = chars / 2;
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return pool.toString('hex', poolOffset - bytes, poolOffset);
}

/** Path ids are lowercased before lookup; anything that is not a UUID is `null` (answered 404). */
export function parseId(value: string): string | null {
  const id = value.toLowerCase();
  return UUID.test(id) ? id : null;
}

/** A path id that must name something: anything that is not a UUID answers 404 like an unknown id. */
export function requireId(value: string): string {
  const id = parseId(value);
  if (id === null) throw notFound();
  return id;
}
