/* global self, caches, crypto, Request, Response, URL */
// Kith's service worker. It exists for two things only: making the app installable, and receiving
// what other apps share with it (the manifest's share_target). It answers no other request: the
// API, the live event stream and the pages go to the network exactly as without a worker, so
// nothing is ever served stale from here. Its copy of the share cache's name is also in
// web/src/features/share/sharedFiles.ts.

const SHARE_CACHE = 'kith-share-target';
const scope = new URL(self.registration.scope);
const SHARE_ACTION = new URL('share-target', scope).pathname;

self.addEventListener('install', () => {
  // Nothing to precache, so a new version may take over at once.
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method === 'POST' && new URL(request.url).pathname === SHARE_ACTION) {
    event.respondWith(receiveShare(request));
  }
});

/**
 * A share from another app: title, text and url go into the query of /share; the photos wait in
 * Cache Storage under share-target/<batch>/<index> until the share form takes them.
 */
async function receiveShare(request) {
  const target = new URL('share', scope);
  let form;
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
    .filter((file) => typeof file !== 'string' && file.size > 0 && file.type.startsWith('image/'));
  if (photos.length > 0) {
    // The time first, so the form can drop batches nobody opened.
    const batch = `${Date.now()}-${crypto.randomUUID()}`;
    const cache = await caches.open(SHARE_CACHE);
    await Promise.all(
      photos.map((file, index) =>
        cache.put(
          new Request(new URL(`share-target/${batch}/${index}`, scope).href),
          new Response(file, {
            headers: { 'Content-Type': file.type, 'X-File-Name': encodeURIComponent(file.name || '') },
          }),
        ),
      ),
    );
    target.searchParams.set('files', batch);
  }
  return Response.redirect(target.href, 303);
}
