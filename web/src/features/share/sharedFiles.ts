/**
 * Photos received through the installed app's share target. The service worker
 * (web/src/sw.ts) keeps them in Cache Storage under `share-target/<batch>/<index>` and opens /share?files=<batch>;
 * the share form takes them from there once, and the cache entries go.
 */

/** The cache the service worker writes; the same name is in web/src/sw.ts. */
export const SHARE_CACHE = 'kith-share-target';

/** Batches are named `<epoch ms>-<random>`; ones older than this were never opened and are dropped. */
const STALE_MS = 24 * 60 * 60 * 1000;

const taken = new Map<string, Promise<File[]>>();

/** The index of a stored photo's key in `batch`, or null when the key belongs to another batch. */
export function indexInBatch(url: string, batch: string): number | null {
  const match = /\/share-target\/([^/]+)\/(\d+)$/.exec(new URL(url).pathname);
  return match?.[1] === batch ? Number(match[2]) : null;
}

/** Whether a stored key's batch is older than a day at `now`. */
export function isStale(url: string, now: number): boolean {
  const stamp = /\/share-target\/(\d+)-/.exec(new URL(url).pathname)?.[1];
  return stamp !== undefined && now - Number(stamp) > STALE_MS;
}

async function take(batch: string): Promise<File[]> {
  if (typeof caches === 'undefined') return [];
  const cache = await caches.open(SHARE_CACHE);
  const requests = await cache.keys();
  const mine = requests
    .map((request) => ({ request, index: indexInBatch(request.url, batch) }))
    .filter((entry): entry is { request: Request; index: number } => entry.index !== null)
    .sort((a, b) => a.index - b.index);
  const files: File[] = [];
  for (const { request, index } of mine) {
    const response = await cache.match(request);
    if (response === undefined) continue;
    const blob = await response.blob();
    const name = decodeURIComponent(response.headers.get('X-File-Name') ?? '') || `photo-${index + 1}.jpg`;
    files.push(new File([blob], name, { type: blob.type || response.headers.get('Content-Type') || '' }));
  }
  const now = Date.now();
  await Promise.all(
    requests.filter((r) => indexInBatch(r.url, batch) !== null || isStale(r.url, now)).map((r) => cache.delete(r)),
  );
  return files;
}

/**
 * The photos of a shared batch, read once: a second call for the same batch (a re-render, React's
 * development double effects) gets the same answer rather than an emptied cache.
 */
export function takeSharedFiles(batch: string): Promise<File[]> {
  let files = taken.get(batch);
  if (files === undefined) {
    files = take(batch).catch(() => []);
    taken.set(batch, files);
  }
  return files;
}
