// Kith's service worker, built to `sw.js` at the root of the client (vite.config.ts) so that its
// scope is the whole app under the base path. It exists for two things only: making the app
// installable, and receiving what other apps share with it (the manifest's share_target). It
// answers no other request: the API, the live event stream and the pages go to the network
// exactly as without a worker, so nothing is ever served stale from here.
//
// It imports nothing, so the build keeps it one classic script. The types below are the few parts
// of the worker's global scope it uses (the web client's TypeScript library is the page's, DOM).

interface WorkerEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}

interface WorkerFetchEvent extends WorkerEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}

interface WorkerScope {
  readonly registration: { readonly scope: string };
  readonly clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: WorkerEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: WorkerFetchEvent) => void): void;
}

const worker = self as unknown as WorkerScope;

/** Where shared photos wait for the share form; the same name is in features/share/sharedFiles.ts. */
const SHARE_CACHE = 'kith-share-target';
const scope = new URL(worker.registration.scope);
/** The manifest's share_target action, relative to the scope. */
const SHARE_ACTION = new URL('share-target', scope).pathname;

worker.addEventListener('install', () => {
  // Nothing to precache, so a new version may take over at once.
  void worker.skipWaiting();
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method === 'POST' && new URL(request.url).pathname === SHARE_ACTION) {
    event.respondWith(receiveShare(request));
  }
});

/**
 * A share from another app: title, text and url go into the query of /share; the photos wait in
 * Cache Storage under share-target/<batch>/<index> until the share form takes them.
 */
async function receiveShare(request: Request): Promise<Response> {
  const target = new URL('share', scope);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return Response.redirect(target.href, 303);
  }
  for (const name of ['title', 'text', 'url']) {
    const value = form.get(name);
    if (typeof value === 'string' && value.trim() !== '') target.searchParams.set(name, value);
  }
  const photos = form
    .getAll('files')
    .filter((file): file is File => typeof file !== 'string' && file.size > 0 && file.type.startsWith('image/'));
  if (photos.length > 0) {
    // The time first, so the form can drop batches nobody opened.
    const batch = `${Date.now()}-${crypto.randomUUID()}`;
    const cache = await caches.open(SHARE_CACHE);
    await Promise.all(
      photos.map((file, index) =>
        cache.put(
          new Request(new URL(`share-target/${batch}/${index}`, scope).href),
          new Response(file, {
            headers: { 'Content-Type': file.type, 'X-File-Name': encodeURIComponent(file.name) },
          }),
        ),
      ),
    );
    target.searchParams.set('files', batch);
  }
  return Response.redirect(target.href, 303);
}
