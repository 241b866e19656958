import { createHash } from 'node:crypto';

// A group-wide notification is stored once (notification_events) but each recipient sees it under
// an id of their own, as when each had a row: the event id with its random bits XORed with a hash
// of the recipient's id. The time prefix stays, so ids keep their order; the version and variant
// digits stay, so it is still a UUID v4. XOR is its own inverse: knowing the caller, their id gives
// back the event's, and someone else's id decodes to no event of theirs (404, docs/api §1.8).

const maskCache = new Map<string, number[]>();
const MASK_CACHE_SIZE = 10_000;

/** Hex positions (in the 36-character form) of the random digits that are masked. */
const MASKED = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)];

function maskOf(userId: string): number[] {
  let mask = maskCache.get(userId);
  if (mask === undefined) {
    const digest = createHash('sha256').update(userId).digest();
    mask = MASKED.map((_, i) => ((digest[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf);
    if (maskCache.size >= MASK_CACHE_SIZE) maskCache.clear();
    maskCache.set(userId, mask);
  }
  return mask;
}

/** The id `userId` sees for the event `id`, and (the same function) the event of `userId`'s id. */
export function recipientId(id: string, userId: string): string {
  const mask = maskOf(userId);
  const chars = id.split('');
  MASKED.forEach((position, i) => {
    chars[position] = (Number.parseInt(chars[position] ?? '0', 16) ^ (mask[i] ?? 0)).toString(16);
  });
  return chars.join('');
}
