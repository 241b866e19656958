// The browser's side of Web Push in the e2e suite: pushes delivered to the app's service worker
// through the DevTools protocol (standing in for the push service, which lies outside this
// machine), the notifications it shows as the page sees them, and a tap on one.
import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { expect } from 'vitest';

/** What `registration.getNotifications()` shows of a notification. */
export interface Shown {
  title: string;
  body: string;
  tag: string;
  lang: string;
  icon: string;
  badge: string;
  data: { url?: string } | null;
}

// The browser's types, which this project's TypeScript (Node's library) lacks: the few parts used.
interface BrowserNotification extends Omit<Shown, 'data'> {
  readonly data: unknown;
  close(): void;
}
interface BrowserRegistration {
  getNotifications(filter?: { tag: string }): Promise<BrowserNotification[]>;
}
interface PageScope {
  navigator: { serviceWorker: { ready: Promise<BrowserRegistration>; controller: unknown } };
}
interface WorkerScope {
  registration: BrowserRegistration;
  NotificationEvent: new (type: string, init: { notification: BrowserNotification }) => Event;
  dispatchEvent(event: Event): boolean;
}

/** In the page: whether a service worker controls it (run through `page.waitForFunction`). */
export const controlled = () => (globalThis as unknown as PageScope).navigator.serviceWorker.controller !== null;

/**
 * Delivers pushes to the service worker registered for `origin` in `page`'s browser, as the push
 * service would: once the worker runs (the browser wakes an idle one before delivering).
 */
export async function pushDelivery(
  context: BrowserContext,
  page: Page,
  origin: string,
): Promise<{ cdp: CDPSession; deliver: (data: string) => Promise<void> }> {
  const cdp = await context.newCDPSession(page);
  const registered = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
      if (ours !== undefined) resolve(ours.registrationId);
    });
  });
  const running = new Set<string>();
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) {
      if (v.runningStatus === 'running' && v.status === 'activated') running.add(v.registrationId);
      else running.delete(v.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await registered;
  return {
    cdp,
    deliver: async (data: string) => {
      await expect.poll(() => running.has(registrationId)).toBe(true);
      await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
    },
  };
}

/**
 * Delivers `data` and waits until the worker shows a notification tagged `tag`, delivering it again
 * every few seconds until then. On a busy machine, a push sent while the browser was still starting
 * or replacing the worker was seen lost (CI, 2026-11-28: nothing shown in 30 s); a real push service
 * retries too, and a repeated push replaces the notification of the same tag, so the retry shows
 * nothing twice.
 */
export async function deliverUntilShown(
  deliver: (data: string) => Promise<void>,
  page: Page,
  data: string,
  tag: string,
  // What must be shown: by default any notification of `tag` (a replacement names its own).
  done: (shown: Shown[]) => boolean = (shown) => shown.length > 0,
): Promise<void> {
  let last = 0;
  await expect
    .poll(
      async () => {
        if (done(await shownNotifications(page, tag))) return true;
        if (Date.now() - last > 5_000) {
          last = Date.now();
          await deliver(data);
        }
        return false;
      },
      { timeout: 60_000, interval: 200 },
    )
    .toBe(true);
}

/** The notifications the app's worker shows now (those with `tag`, or all), as the page sees them. */
export function shownNotifications(page: Page, tag = ''): Promise<Shown[]> {
  return page.evaluate(async (wanted) => {
    const registration = await (globalThis as unknown as PageScope).navigator.serviceWorker.ready;
    const list = await registration.getNotifications(wanted === '' ? undefined : { tag: wanted });
    return list.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      lang: n.lang,
      icon: n.icon,
      badge: n.badge,
      data: n.data as Shown['data'],
    }));
  }, tag);
}

/** Closes every notification of the app, so that a step sees only its own. */
export async function closeAllNotifications(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await (globalThis as unknown as PageScope).navigator.serviceWorker.ready;
    for (const notification of await registration.getNotifications()) notification.close();
  });
  await expect.poll(() => shownNotifications(page)).toEqual([]);
}

/** Taps the worker's notification with `tag`: the click event the browser would dispatch. */
export async function tapNotification(worker: Worker, tag: string): Promise<void> {
  await worker.evaluate(async (wanted) => {
    const scope = globalThis as unknown as WorkerScope;
    const [notification] = await scope.registration.getNotifications({ tag: wanted });
    if (notification === undefined) throw new Error(`no notification tagged ${wanted}`);
    scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification }));
  }, tag);
}
