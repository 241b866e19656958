// The service worker's side of Web Push (issue 21): a push delivered through the DevTools protocol
// (standing in for the push service, which lies outside this machine) shows a notification with the
// payload's texts in the recipient's language, and tapping it leads an open tab of the app to the
// message. The server's push routes are not needed: the worker only reads what a push carries.
import type { Browser, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { PushPayload } from '@kith/common';
import {
  closeAllNotifications,
  controlled,
  deliverUntilShown,
  pushDelivery,
  shownNotifications,
  tapNotification,
} from './push-browser.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { visible } from './wait.js';

let kith: Kith;
let browser: Browser;
let ana: IsolatedPage;
let worker: Worker;
let messageId = '';
let commentId = '';

/** Delivers one push to the app's service worker, as the push service would. */
let deliver: (data: string) => Promise<void>;
const shown = (tag = '') => shownNotifications(ana.page, tag);
const closeAll = () => closeAllNotifications(ana.page);
const tap = (tag: string) => tapNotification(worker, tag);

describe('Web Push in the service worker', () => {
  const step = storySteps();

  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    const signedUp = await signUpApi(kith, 'ana@example.org');
    const posted = await api<{ id: string }>(
      kith,
      'POST',
      '/messages',
      { group: signedUp.group, data: { title: 'Beach day', text: 'The tide was out all afternoon.' } },
      signedUp.api_key,
    );
    expect(posted.status).toBe(201);
    messageId = posted.body.id;
    const comment = await api<{ id: string }>(
      kith,
      'POST',
      '/messages',
      { group: signedUp.group, parent: messageId, data: { text: 'Пойдём снова в субботу?' } },
      signedUp.api_key,
    );
    expect(comment.status).toBe(201);
    commentId = comment.body.id;
    ana = await newPage(browser, 'desktop');
  });

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  });

  step('the signed-in app runs its service worker, and the browser lets it notify', async () => {
    const { context, page } = ana;
    const started = context.waitForEvent('serviceworker');
    await signIn(kith, page, 'ana@example.org');
    worker = context.serviceWorkers()[0] ?? (await started);
    expect(worker.url()).toBe(`${kith.url}/sw.js`);
    // Active and in control of the page (clients.claim), so it can lead the page somewhere.
    await page.waitForFunction(controlled);
    await context.grantPermissions(['notifications'], { origin: kith.url });

    ({ deliver } = await pushDelivery(context, page, kith.url));
  });

  step('a push in English shows its title, text and tag, with the app icon and the message to open', async () => {
    const payload: PushPayload = {
      title: 'Ben commented on “Beach day”',
      body: 'Ben: Count me in for Saturday!',
      url: `/messages/${messageId}`,
      tag: `message-${messageId}`,
      lang: 'en-US',
      count: 1,
    };
    // The first push after the worker started may be lost on a busy machine: delivered again until shown.
    await deliverUntilShown(deliver, ana.page, JSON.stringify(payload), payload.tag);
    await expect.poll(() => shown(payload.tag)).toHaveLength(1);
    const [notification] = await shown(payload.tag);
    expect(notification).toEqual({
      title: payload.title,
      body: payload.body,
      tag: payload.tag,
      lang: 'en-US',
      icon: `${kith.url}/icons/icon-192.png`,
      badge: `${kith.url}/icons/badge-96.png`,
      data: { url: `${kith.url}/messages/${messageId}` },
    });
  });

  step('a push in Russian about the same message replaces it (same tag)', async () => {
    const payload: PushPayload = {
      title: 'Новые комментарии к «Beach day»',
      body: 'Бен: Пойдём снова в субботу?',
      url: `/messages/${messageId}/${commentId}`,
      tag: `message-${messageId}`,
      lang: 'ru-RU',
      count: 2,
    };
    await deliverUntilShown(deliver, ana.page, JSON.stringify(payload), payload.tag, (list) =>
      list.some((n) => n.title === payload.title),
    );
    await expect.poll(async () => (await shown(payload.tag)).map((n) => n.title)).toEqual([payload.title]);
    const [notification] = await shown(payload.tag);
    expect(notification?.body).toBe(payload.body);
    expect(notification?.lang).toBe('ru-RU');
    expect(notification?.data).toEqual({ url: `${kith.url}/messages/${messageId}/${commentId}` });
  });

  step('tapping it leads the open tab to the comment, and the notification goes away', async () => {
    const { page } = ana;
    await page.goto(`${kith.url}/bookmarks`);
    await page.waitForFunction(controlled);
    await tap(`message-${messageId}`);
    await page.waitForURL(`${kith.url}/messages/${messageId}/${commentId}`);
    await visible(page.getByRole('heading', { name: 'Beach day', level: 2 }));
    await expect.poll(() => shown(`message-${messageId}`)).toEqual([]);
  });

  step('a push the worker cannot read still shows "Kith", and never leads out of the app', async () => {
    await closeAll();
    await deliver('not json');
    await expect
      .poll(async () => (await shown()).map((n) => [n.title, n.body, n.data?.url]))
      .toEqual([['Kith', '', `${kith.url}/`]]);
    await closeAll();
    await deliver(
      JSON.stringify({ title: 'Elsewhere', body: '', url: 'https://example.org/phish', tag: 'x', lang: 'en-US' }),
    );
    await expect.poll(async () => (await shown('x')).map((n) => n.data?.url)).toEqual([`${kith.url}/`]);
    expect(ana.errors).toEqual([]);
  });
});
