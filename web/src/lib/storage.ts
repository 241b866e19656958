/**
 * Local storage (product spec): every entry is wrapped as { data, createdAt, metadata }, and
 * logout clears everything. Browsers refuse storage in some private modes or when full; the app
 * then keeps its entries in memory for the session instead of failing.
 */

/** The stored wrapper around a value; `createdAt` is in ms since the epoch. */
export interface StoredEntry<T> {
  data: T;
  createdAt: number;
  metadata: Record<string, unknown>;
}

// Entries whose write to localStorage failed. They shadow localStorage, which may still hold an
// older value under the same key, so reads see the latest write.
const memory = new Map<string, string>();

function local(): Storage | null {
  try {
    // Merely reading window.localStorage throws a SecurityError when site data is blocked.
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

function readRaw(key: string): string | null {
  const fromMemory = memory.get(key);
  if (fromMemory !== undefined) return fromMemory;
  try {
    return local()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function writeRaw(key: string, value: string): void {
  try {
    const store = local();
    if (store === null) throw new Error('no localStorage');
    store.setItem(key, value);
    memory.delete(key);
  } catch {
    memory.set(key, value);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseEntry(raw: string | null): StoredEntry<unknown> | null {
  if (raw === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  // Anything without the wrapper (written by an older client or by hand) is not trusted.
  if (!isRecord(parsed) || !('data' in parsed)) return null;
  const { data, createdAt, metadata } = parsed;
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt) || !isRecord(metadata)) return null;
  return { data, createdAt, metadata };
}

/** The app's local storage: wrapped JSON entries, with an in-memory fallback. */
export const storage = {
  /** The stored value, or null when missing, unreadable or not wrapped. */
  get<T>(key: string): T | null {
    const entry = parseEntry(readRaw(key));
    return entry === null ? null : (entry.data as T);
  },

  /** The whole stored entry with its creation time and metadata, or null. */
  getEntry<T>(key: string): StoredEntry<T> | null {
    return parseEntry(readRaw(key)) as StoredEntry<T> | null;
  },

  /** Stores a value wrapped with the current time and optional metadata. */
  set<T>(key: string, data: T, metadata: Record<string, unknown> = {}): void {
    const entry: StoredEntry<T> = { data, createdAt: Date.now(), metadata };
    writeRaw(key, JSON.stringify(entry));
  },

  /** Removes one entry. */
  remove(key: string): void {
    memory.delete(key);
    try {
      local()?.removeItem(key);
    } catch {
      // Nothing to do: the entry is unreachable either way.
    }
  },

  /**
   * Removes every entry, as logout requires, but the `keep` ones: the device's language, so the
   * sign-in page after a logout speaks the language the person used.
   */
  clear(keep: readonly string[] = []): void {
    const kept = keep.map((key) => [key, readRaw(key)] as const);
    memory.clear();
    try {
      local()?.clear();
    } catch {
      // Storage that cannot be cleared could not be written either.
    }
    for (const [key, raw] of kept) if (raw !== null) writeRaw(key, raw);
  },
};
