import { createHash } from 'node:crypto';

// A group-wide notification is stored once (notification_events) but each recipient sees it under
// an id of their own, as when each had a row: the event id with its random bits XORed with a hash
// of the recipient's id. The time prefix stays, so ids keep their order; the version and variant
// digits stay, so it is still a UUID v4. XOR is its own inverse: knowing the caller, their id gives
// back the event's, and someone else's id decodes to no event of theirs (404, docs/api §1.8).

const maskCache = new Map<string, Uint8Array>();
const MASK_CACHE_SIZE = 10_000;

/** Hex positions (in the 36-character form) of the random digits that are masked. */
const MASKED = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)];

/** A user's mask: for each of the 36 characters, the 4 bits XORed into it (0 where none is masked). */
function maskOf(userId: string): Uint8Array {
  let mask = maskCache.get(userId);
  if (mask === undefined) {
    const digest = createHash('sha256').update(userId).digest();
    mask = new Uint8Array(36);
    MASKED.forEach((position, i) => {
      (mask as Uint8Array)[position] = ((digest[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    });
    if (maskCache.size >= MASK_CACHE_SIZE) maskCache.clear();
    maskCache.set(userId, mask);
  }
  return mask;
}

/** The character codes of the hex digits, by value. */
const HEX_CODES = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

/** The value of a lowercase hex digit's character code (ids are lowercased before they get here). */
function hexValue(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x57;
}

// The characters of the id being made, reused by every call (the event loop makes one at a time).
const codes: number[] = new Array<number>(36).fill(0);

/** The id `userId` sees for the event `id`, and (the same function) the event of `userId`'s id. */
export function recipientId(id: string, userId: string): string {
  // A post computes one per member of its group (49 in the bench's big group). The string is made
  // once from character codes: adding a character at a time made 21 strings per id, and a post's
  // ids were a sixth of what it allocated (bench/README.md, issue 23 fifteenth session).
  const mask = maskOf(userId);
  for (let position = 0; position < 36; position++) {
    const code = id.charCodeAt(position);
    const bits = mask[position] ?? 0;
    codes[position] = bits === 0 ? code : (HEX_CODES[hexValue(code) ^ bits] ?? code);
  }
  return String.fromCharCode(...codes);
}
