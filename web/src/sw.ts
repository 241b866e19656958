// Kith's service worker, built to `sw.js` at the root of the client (vite.config.ts) so that its
// scope is the whole app under the base path. It exists for three things: making the app
// installable, receiving what other apps share with it (the manifest's share_target), and showing
// the Web Push notifications the server sends while Kith is closed (issue 21), opening the message
// when one is tapped. It answers no other request: the API, the live event stream and the pages go
// to the network exactly as without a worker, so nothing is ever served stale from here.
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

interface WorkerPushEvent extends WorkerEvent {
  readonly data: { text(): string } | null;
}

interface WorkerNotification {
  readonly data: unknown;
  close(): void;
}

interface WorkerNotificationEvent extends WorkerEvent {
  readonly notification: WorkerNotification;
}

interface WindowClient {
  readonly url: string;
  focus(): Promise<WindowClient>;
  navigate(url: string): Promise<WindowClient | null>;
}

interface WorkerScope {
  readonly registration: {
    readonly scope: string;
    showNotification(title: string, options: NotificationOptions & { data?: unknown }): Promise<void>;
  };
  readonly clients: {
    claim(): Promise<void>;
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: WorkerEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: WorkerFetchEvent) => void): void;
  addEventListener(type: 'push', listener: (event: WorkerPushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: WorkerNotificationEvent) => void): void;
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

/**
 * What a push carries (PushPayload in common/src/api/push-schemas.ts, repeated here because the
 * worker imports nothing): the texts are already in the recipient's language.
 */
interface Payload {
  title: string;
  body: string;
  url: string;
  tag: string;
  lang: string;
}

/** The payload of a push, or null when it is not one Kith's server writes. */
function payloadOf(event: WorkerPushEvent): Payload | null {
  let value: unknown;
  try {
    value = JSON.parse(event.data?.text() ?? '');
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { title, body, url, tag, lang } = value as Record<string, unknown>;
  if (typeof title !== 'string' || title === '' || typeof url !== 'string') return null;
  return {
    title,
    body: typeof body === 'string' ? body : '',
    url,
    tag: typeof tag === 'string' ? tag : '',
    lang: typeof lang === 'string' ? lang : '',
  };
}

/** A page of the app: a path under the base (what the server sends), never another origin. */
function appUrl(path: string): string {
  const url = new URL(path.replace(/^\/+/, ''), scope);
  return url.origin === scope.origin && url.pathname.startsWith(scope.pathname) ? url.href : scope.href;
}

worker.addEventListener('push', (event) => {
  // The subscription promised the browser that every push shows something (userVisibleOnly), so a
  // payload this worker cannot read still shows a notification; it has no texts of its own to say
  // more than the name, and opens the app.
  const payload = payloadOf(event) ?? { title: 'Kith', body: '', url: '', tag: '', lang: '' };
  event.waitUntil(
    worker.registration.showNotification(payload.title, {
      body: payload.body,
      // One notification per message: a later push about it replaces the earlier one.
      tag: payload.tag || undefined,
      lang: payload.lang,
      icon: new URL('icons/icon-192.png', scope).href,
      badge: new URL('icons/badge-96.png', scope).href,
      data: { url: appUrl(payload.url) },
    }),
  );
});

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data as { url?: unknown } | null;
  const url = typeof data?.url === 'string' ? appUrl(data.url) : scope.href;
  event.waitUntil(openPage(url));
});

/**
 * Shows `url` in a window of the app: one already open is brought to the front and led there (a
 * tab showing that very page is only focused), else a new window opens.
 */
async function openPage(url: string): Promise<void> {
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open =
    windows.find((client) => client.url === url) ?? windows.find((client) => client.url.startsWith(scope.href));
  if (open === undefined) {
    await worker.clients.openWindow(url);
    return;
  }
  // Focus first: the browser allows it only while handling the click. A click this worker did not
  // receive from the browser may not focus, yet the page is still led to the message.
  const focused = await open.focus().catch(() => open);
  if (focused.url === url) return;
  try {
    await focused.navigate(url);
  } catch {
    // A page this worker does not control yet (opened before it was installed) cannot be led.
    await worker.clients.openWindow(url);
  }
}
