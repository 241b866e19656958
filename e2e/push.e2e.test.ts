// Web Push end to end (issue 21): Ana turns push on for her phone in the settings, in Korean; she
// closes Kith; Ben comments three times on her message; the push service stand-in receives ONE
// encrypted push, which reads (decrypted with the device's own keys) as a count of 3 in Korean
// opening the newest comment; that same push, delivered to the app's service worker, shows the
// notification, and a tap opens the comment. Last, the device is removed from the settings at
// desktop size. The push service lies outside this machine (and Chromium here is offline), so the
// browser's PushManager is replaced by one that subscribes to the stand-in with the test's keys.
// The server waits one minute after the first notification of a burst (PUSH_COLLAPSE_MS, not
// configurable), so the wait for the push is a poll with a generous limit, not a sleep.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { PushPayload } from '@kith/common';
import { type Device, PushServiceStandIn } from '../server/test/push-service.js';
import { accessibilityViolations } from './axe.js';
import { controlled, deliverUntilShown, pushDelivery, shownNotifications, tapNotification } from './push-browser.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { webText } from './locales.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { visible } from './wait.js';

/** How long the push may take: the server's one-minute wait, and a busy machine. */
const PUSH_WAIT_MS = 150_000;

/** What the init script needs to stand in for the browser's push service. */
interface FakeSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * Runs in the page before the app: `PushManager` subscribes to the stand-in with the test's keys.
 * The subscription is kept in local storage, as the browser keeps its own across reloads.
 */
function fakePushManager(fake: FakeSubscription): void {
  const STORED = 'e2e-push-subscription-key';
  const scope = globalThis as unknown as {
    PushManager: { prototype: Record<string, unknown> };
    localStorage: {
      getItem(k: string): string | null;
      setItem(k: string, v: string): void;
      removeItem(k: string): void;
    };
    atob(text: string): string;
  };
  const bytes = (base64url: string): ArrayBuffer => {
    const binary = scope.atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
  };
  const subscription = (serverKey: string) => ({
    endpoint: fake.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: bytes(serverKey) },
    getKey: (name: 'p256dh' | 'auth') => bytes(fake.keys[name]),
    toJSON: () => ({ endpoint: fake.endpoint, expirationTime: null, keys: { ...fake.keys } }),
    unsubscribe: () => {
      scope.localStorage.removeItem(STORED);
      return Promise.resolve(true);
    },
  });
  const toBase64url = (key: unknown): string => {
    const view = new Uint8Array(key instanceof ArrayBuffer ? key : (key as ArrayBufferView).buffer);
    return btoa(String.fromCharCode(...view))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  };
  scope.PushManager.prototype.subscribe = (options: { applicationServerKey: unknown }) => {
    const serverKey = toBase64url(options.applicationServerKey);
    scope.localStorage.setItem(STORED, serverKey);
    return Promise.resolve(subscription(serverKey));
  };
  scope.PushManager.prototype.getSubscription = () => {
    const serverKey = scope.localStorage.getItem(STORED);
    return Promise.resolve(serverKey === null ? null : subscription(serverKey));
  };
}

let kith: Kith;
let browser: Browser;
let pushService: PushServiceStandIn;
let device: Device;
const opened: IsolatedPage[] = [];
const ana = { login: 'ana.push@example.org', key: '', id: '', group: '', groupName: '' };
const ben = { login: 'ben.push@example.org', key: '', name: '' };
let phone: IsolatedPage;
let messageId = '';
const burst: string[] = [];
let payload: PushPayload;
/** The presence reports (PUT /api/me/presence) of the browsers the test opened, in order. */
const presenceReports: { focused: boolean }[] = [];

beforeAll(async () => {
  pushService = new PushServiceStandIn();
  await pushService.start();
  device = pushService.device();
  kith = await startKith({ env: { PUSH_ALLOW_LOOPBACK: 'true', PUSH_ENABLED: 'true' } });
  browser = await launchBrowser();
  const signedUp = await signUpApi(kith, ana.login);
  ana.key = signedUp.api_key;
  ana.group = signedUp.group;
  ben.key = (await signUpApi(kith, ben.login)).api_key;
  ana.id = (await api<{ id: string }>(kith, 'GET', '/me', undefined, ana.key)).body.id;
  ana.groupName = (await api<{ name: string }>(kith, 'GET', `/groups/${ana.group}`, undefined, ana.key)).body.name;
  const posted = await api<{ id: string }>(
    kith,
    'POST',
    '/messages',
    { group: ana.group, data: { title: 'Picnic on Sunday', text: 'Who brings what?' } },
    ana.key,
  );
  expect(posted.status).toBe(201);
  messageId = posted.body.id;
}, 120_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => undefined);
  await browser?.close();
  await kith?.stop();
  await pushService?.stop();
}, 60_000);

/** A page whose browser subscribes to the stand-in, and may show notifications. */
async function pushPage(viewport: 'phone' | 'desktop'): Promise<IsolatedPage> {
  const isolated = await newPage(browser, viewport);
  opened.push(isolated);
  await isolated.context.grantPermissions(['notifications'], { origin: kith.url });
  const { endpoint, keys } = device.subscription();
  await isolated.context.addInitScript(fakePushManager, { endpoint, keys });
  isolated.context.on('request', (request) => {
    if (request.url().endsWith('/api/me/presence') && request.method() === 'PUT')
      presenceReports.push(JSON.parse(request.postData() ?? '{}') as { focused: boolean });
  });
  return isolated;
}

async function setAna(data: Record<string, string>): Promise<void> {
  expect((await api(kith, 'PUT', `/users/${ana.id}`, { data }, ana.key)).status).toBe(200);
}

async function devices(): Promise<{ id: string; endpoint: string; label: string }[]> {
  const res = await api<{ subscriptions: { id: string; endpoint: string; label: string }[] }>(
    kith,
    'GET',
    '/me/push-subscriptions',
    undefined,
    ana.key,
  );
  expect(res.status).toBe(200);
  return res.body.subscriptions;
}

/** How many current focused presence reports of Ana's the server holds (its SQLite database, read only). */
function focusedPresences(): number {
  const db = new SQLite(path.join(kith.dataDir, 'kith.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare('SELECT count(*) AS n FROM push_presence WHERE user_id = ? AND expires_at > ?')
      .get(ana.id, Date.now()) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

/** Opens the notifications tab in `lang` and waits for the push section. */
async function openPushSettings(page: Page, lang: string): Promise<void> {
  await page.goto(`${kith.url}/users/${ana.id}/settings?tab=notifications`);
  await visible(page.getByRole('tab', { name: webText(lang, 'settings.tab_notifications'), selected: true }));
  await visible(page.getByRole('heading', { name: webText(lang, 'push.title'), level: 2 }));
}

/** The push settings section, for a look at it. */
async function shootSection(page: Page, name: string): Promise<void> {
  await screenshot(page, `push/${name}`);
}

describe('Web Push, from the settings to the notification', () => {
  const step = storySteps();

  step(
    'phone: in English, then in Korean, Ana turns push on for this device and sees it listed as this device',
    async () => {
      phone = await pushPage('phone');
      const { page } = phone;
      await signIn(kith, page, ana.login);
      await openPushSettings(page, 'en_US');
      await visible(page.getByText(webText('en_US', 'push.state_off')));
      expect(await accessibilityViolations(page)).toEqual([]);
      await shootSection(page, 'phone-en_US');

      // Her language, chosen beforehand, is the push's language.
      await setAna({ lang: 'ko_KR' });
      await openPushSettings(page, 'ko_KR');
      const turnOn = page.getByRole('button', { name: webText('ko_KR', 'push.turn_on') });
      await expect.poll(() => turnOn.isEnabled()).toBe(true);
      await turnOn.click();
      await visible(page.getByText(webText('ko_KR', 'push.turned_on')));
      await visible(page.getByText(webText('ko_KR', 'push.state_on')));
      const mine = page.locator('li').filter({ hasText: webText('ko_KR', 'push.this_device_mark') });
      await expect.poll(() => mine.count()).toBe(1);
      // The real button posted the browser's subscription: the stand-in's endpoint.
      expect((await devices()).map((d) => d.endpoint)).toEqual([device.endpoint]);
      expect(await accessibilityViolations(page)).toEqual([]);
      await shootSection(page, 'phone-ko_KR');
      expect(phone.errors).toEqual([]);
    },
    120_000,
  );

  step(
    'Ana closes Kith: her browser says it is no longer in front',
    async () => {
      // While open and in front, it said so (else the server would push to an open app).
      expect(presenceReports).toContainEqual(expect.objectContaining({ focused: true }));
      await phone.page.close({ runBeforeUnload: true });
      // As it went, it said "not focused": the server forgets its focus at once (else after 90 s,
      // later than the push job, a minute after Ben's first comment, looks).
      // The page's last request may leave after Playwright stops watching it, so the server's
      // record is what is checked: no current focused report of Ana's (the push job's own test).
      await expect.poll(() => focusedPresences(), { timeout: 30_000 }).toBe(0);
    },
    60_000,
  );

  step(
    'Ben comments three times: the push service receives one push, in Korean, counting 3 and opening the newest',
    async () => {
      for (const text of ['Bread and cheese', 'And a ball', 'I bring lemonade']) {
        const res = await api<{ id: string }>(
          kith,
          'POST',
          '/messages',
          { group: ana.group, parent: messageId, data: { text } },
          ben.key,
        );
        expect(res.status).toBe(201);
        burst.push(res.body.id);
      }
      await expect
        .poll(() => pushService.pushesTo(device).length, { timeout: PUSH_WAIT_MS, interval: 1_000 })
        .toBeGreaterThan(0);
      const [push] = pushService.pushesTo(device);
      if (push === undefined) throw new Error('no push');
      expect(push.headers['content-encoding']).toBe('aes128gcm');
      payload = device.read(push);
      const several = webTextOfServer('ko_KR');
      expect(payload).toEqual({
        title: ana.groupName,
        body: several.replace('{{count}}', '3').replace('{{group}}', ana.groupName),
        url: `/messages/${messageId}/${burst[2]}`,
        tag: `kith-${messageId}`,
        lang: 'ko-KR',
        count: 3,
      });
      // One push for the burst (the three notifications joined one waiting job); the last step
      // checks again that no other came.
      expect(pushService.received).toHaveLength(1);
    },
    PUSH_WAIT_MS + 30_000,
  );

  step(
    'the push shows as a notification in Korean, and a tap opens the newest comment',
    async () => {
      // The same browser (its service worker stays registered), with Kith opened again.
      const page = await phone.context.newPage();
      await page.goto(`${kith.url}/bookmarks`);
      await page.waitForFunction(controlled);
      const worker =
        phone.context.serviceWorkers().find((w) => w.url() === `${kith.url}/sw.js`) ??
        (await phone.context.waitForEvent('serviceworker'));
      // The worker stood idle while Kith was closed: the push goes to it once it runs again, as
      // the browser would wake it first.
      const { deliver } = await pushDelivery(phone.context, page, kith.url);
      await deliverUntilShown(deliver, page, JSON.stringify(payload), payload.tag);
      const shown = async () =>
        (await shownNotifications(page, payload.tag)).map(({ title, body, lang, data }) => ({
          title,
          body,
          lang,
          data,
        }));
      await expect
        .poll(() => shown())
        .toEqual([
          {
            title: payload.title,
            body: payload.body,
            lang: 'ko-KR',
            data: { url: `${kith.url}${payload.url}` },
          },
        ]);
      await tapNotification(worker, payload.tag);
      await page.waitForURL(`${kith.url}/messages/${messageId}/${burst[2]}`);
      await visible(page.getByRole('heading', { name: 'Picnic on Sunday', level: 2 }));
      await expect.poll(() => shown()).toEqual([]);
    },
    120_000,
  );

  step(
    'desktop: in Korean, then in English, the device is listed, and its Remove button removes it',
    async () => {
      const desktop = await pushPage('desktop');
      const { page } = desktop;
      await signIn(kith, page, ana.login);
      await openPushSettings(page, 'ko_KR');
      await expect.poll(() => page.locator('li').filter({ hasText: /\S/ }).count()).toBeGreaterThan(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await shootSection(page, 'desktop-ko_KR');

      await setAna({ lang: 'en_US' });
      await openPushSettings(page, 'en_US');
      const [listed] = await devices();
      const remove = page.getByRole('button', {
        name: webText('en_US', 'push.remove_label', { device: listed?.label ?? '' }),
        exact: true,
      });
      await expect.poll(() => remove.count()).toBe(1);
      expect(await accessibilityViolations(page)).toEqual([]);
      await shootSection(page, 'desktop-en_US');
      await remove.click();
      await visible(page.getByText(webText('en_US', 'push.removed')));
      await visible(page.getByText(webText('en_US', 'push.no_devices')));
      expect(await devices()).toEqual([]);
      expect(desktop.errors).toEqual([]);
      // Still the one push of the burst, a minute and more after it came.
      expect(pushService.received).toHaveLength(1);
    },
    120_000,
  );
});

/** The server's text (locales/<lang>.json `server.push`) for several notifications in one group. */
function webTextOfServer(lang: string): string {
  const file = JSON.parse(readFileSync(new URL(`../locales/${lang}.json`, import.meta.url), 'utf8')) as {
    server: { push: Record<string, string> };
  };
  return file.server.push['several_in_group_other'] ?? '';
}
