/**
 * Seeded randomness for the data generator. Everything the generator draws comes from here, never
 * from Math.random or crypto, so one `--seed` always gives the same rows.
 *
 * Each concern (users, message structure, texts, notifications…) takes its own stream, named by a
 * label: a change in how one part draws its numbers does not shift the data of the others.
 */

/** 32-bit FNV-1a of a label, so stream names turn into seed material. */
function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i += 1) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** splitmix32: spreads a small seed over the four state words of sfc32. */
function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of state, fast in
 * JavaScript's 32-bit integer arithmetic, and good enough statistically for test data.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** A stream for `label` under `seed`; the same pair always yields the same numbers. */
  constructor(seed: number, label: string) {
    const mix = splitmix32((seed >>> 0) ^ hashLabel(label));
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix() | 1;
    // The first outputs of a freshly seeded sfc32 are still correlated with the seed.
    for (let i = 0; i < 12; i += 1) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A uniform integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Shuffles in place (Fisher–Yates) and returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i -= 1) {
      const j = this.int(i + 1);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /** An exponentially distributed number with this mean (waiting times). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** A standard normal number (Box–Muller), for log-normal sizes. */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** Random bytes (API keys, tokens, the data folder's secret). */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      out[i] = v & 0xff;
      if (i + 1 < n) out[i + 1] = (v >>> 8) & 0xff;
      if (i + 2 < n) out[i + 2] = (v >>> 16) & 0xff;
      if (i + 3 < n) out[i + 3] = v >>> 24;
    }
    return out;
  }

  /** 256 bits as 43 base64url characters: the shape of the server's API keys and public tokens. */
  token(): string {
    return this.bytes(32).toString('base64url');
  }

  /** A lowercase UUID v4 string, the id format of every table (docs/api §1.4). */
  uuid(): string {
    const a = this.u32();
    const b = this.u32();
    // Version 4 in the high nibble of the 7th byte, variant 10xx in the 9th.
    const c = ((this.u32() & 0xffff0fff) | 0x00004000) >>> 0;
    const d = ((this.u32() & 0x3fffffff) | 0x80000000) >>> 0;
    const e = this.u32();
    const byte = (v: number, shift: number): string => HEX[(v >>> shift) & 0xff] as string;
    return (
      byte(a, 24) +
      byte(a, 16) +
      byte(a, 8) +
      byte(a, 0) +
      '-' +
      byte(b, 24) +
      byte(b, 16) +
      '-' +
      byte(c, 8) +
      byte(c, 0) +
      '-' +
      byte(d, 24) +
      byte(d, 16) +
      '-' +
      byte(d, 8) +
      byte(d, 0) +
      byte(e, 24) +
      byte(e, 16) +
      byte(e, 8) +
      byte(e, 0)
    );
  }

  /** The server's `newOrderedId(at)` (notifications): a UUID v4 whose first 48 bits are `at` in ms. */
  orderedUuid(at: number): string {
    const time = Math.trunc(at).toString(16).padStart(12, '0');
    return `${time.slice(0, 8)}-${time.slice(8)}${this.uuid().slice(13)}`;
  }
}

/**
 * Draws indexes with given weights in O(log n): the cumulative sums once, then a binary search per
 * draw. Used for Zipf word choice, popular threads and talkative members.
 */
export class WeightedPicker {
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(weights: ArrayLike<number>) {
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    for (let i = 0; i < weights.length; i += 1) {
      sum += weights[i] ?? 0;
      this.cumulative[i] = sum;
    }
    if (!(sum > 0)) throw new Error('WeightedPicker needs a positive total weight');
    this.total = sum;
  }

  /** An index in [0, weights.length). */
  pick(rng: Random): number {
    const target = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] ?? 0) > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Zipf weights 1/rank^s for ranks 1..n: a few very common items and a long tail of rare ones. */
export function zipfWeights(n: number, exponent: number): Float64Array {
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i += 1) weights[i] = 1 / Math.pow(i + 1, exponent);
  return weights;
}
