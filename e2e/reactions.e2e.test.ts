// Reactions (issue 20): one member reacts to a message from the picker, another sees it arrive live
// and finds out who reacted on hover (desktop) or with a long press (phone); the card on the group
// page shows the summary. At 375 and 1280 px, with axe, and once in Russian.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { gone, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
let ben: IsolatedPage; // desktop, 1280×800
let ana: IsolatedPage; // phone, 375×812
let anaKey = '';
let anaId = '';
let homeId = '';
let messageId = '';

describe('reactions', () => {
  const step = storySteps();

  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    const signedUp = await signUpApi(kith, 'ana@example.org');
    anaKey = signedUp.api_key;
    homeId = signedUp.group;
    anaId = (await api<{ id: string }>(kith, 'GET', '/me', undefined, anaKey)).body.id;
    await signUpApi(kith, 'ben@example.org');
    const posted = await api<{ id: string }>(
      kith,
      'POST',
      '/messages',
      { group: homeId, data: { title: 'Beach day', text: 'The tide was out all afternoon.' } },
      anaKey,
    );
    expect(posted.status).toBe(201);
    messageId = posted.body.id;
    ben = await newPage(browser, 'desktop');
    ana = await newPage(browser, 'phone');
  });

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  });

  step('both open the message: an empty bar with the add button', async () => {
    await signIn(kith, ben.page, 'ben@example.org');
    await signIn(kith, ana.page, 'ana@example.org');
    for (const { page } of [ben, ana]) {
      await page.goto(`${kith.url}/messages/${messageId}`);
      await visible(page.getByRole('heading', { name: 'Beach day', level: 2 }));
      await visible(page.getByRole('button', { name: 'Add a reaction' }));
    }
  });

  step('Ben reacts from the picker; the picker passes axe at 1280 px', async () => {
    const { page } = ben;
    await page.getByRole('button', { name: 'Add a reaction' }).click();
    const picker = page.getByRole('group', { name: 'Add a reaction' });
    await visible(picker);
    await page.screenshot({ path: '/tmp/reactions-picker-1280.png' });
    expect(await accessibilityViolations(page)).toEqual([]);
    await picker.getByRole('button', { name: 'React with 👍' }).click();
    const mine = page.getByRole('button', { name: 'Reaction 👍: 1' });
    await visible(mine);
    expect(await mine.getAttribute('aria-pressed')).toBe('true');
    await gone(picker);
  });

  step('Ana sees it arrive live, not as hers, and a long press shows who (375 px, axe)', async () => {
    const { page } = ana;
    const thumbs = page.getByRole('button', { name: 'Reaction 👍: 1' });
    await visible(thumbs);
    expect(await thumbs.getAttribute('aria-pressed')).toBe('false');
    await thumbs.dispatchEvent('pointerdown', { pointerType: 'touch', isPrimary: true });
    const tip = page.getByRole('tooltip');
    await visible(tip);
    expect(await tip.textContent()).toBe('ben reacted with 👍');
    await thumbs.dispatchEvent('pointerup', { pointerType: 'touch', isPrimary: true });
    await page.screenshot({ path: '/tmp/reactions-longpress-375.png' });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(ana.errors).toEqual([]);
  });

  step('Ana adds her own 👍 and a 🎉 from "more"; Ben sees both live and who on hover', async () => {
    const { page } = ana;
    // The long press left the names up; a tap elsewhere hides them before she goes on.
    await page.getByRole('heading', { name: 'Beach day', level: 2 }).click();
    await page.getByRole('button', { name: 'Reaction 👍: 1' }).click();
    await visible(page.getByRole('button', { name: 'Reaction 👍: 2' }));
    await page.getByRole('button', { name: 'Add a reaction' }).click();
    const picker = page.getByRole('group', { name: 'Add a reaction' });
    await picker.getByRole('button', { name: 'More emoji' }).click();
    await page.screenshot({ path: '/tmp/reactions-more-375.png' });
    await picker.getByRole('button', { name: 'React with 🎉' }).click();
    await visible(page.getByRole('button', { name: 'Reaction 🎉: 1' }));

    const desk = ben.page;
    const thumbs = desk.getByRole('button', { name: 'Reaction 👍: 2' });
    await visible(thumbs);
    await visible(desk.getByRole('button', { name: 'Reaction 🎉: 1' }));
    await thumbs.hover();
    const tip = desk.getByRole('tooltip');
    await visible(tip);
    expect(await tip.textContent()).toBe('ben and ana reacted with 👍');
    await desk.screenshot({ path: '/tmp/reactions-hover-1280.png' });
    expect(await accessibilityViolations(desk)).toEqual([]);
  });

  step('Ben takes his 👍 back; Ana sees the count go down', async () => {
    await ben.page.getByRole('button', { name: 'Reaction 👍: 2' }).click();
    const back = ben.page.getByRole('button', { name: 'Reaction 👍: 1' });
    await visible(back);
    expect(await back.getAttribute('aria-pressed')).toBe('false');
    const hers = ana.page.getByRole('button', { name: 'Reaction 👍: 1' });
    await visible(hers);
    expect(await hers.getAttribute('aria-pressed')).toBe('true');
  });

  step('the card on the group page shows the summary, at 375 and 1280 px, with axe', async () => {
    for (const { page } of [ana, ben]) {
      await page.goto(`${kith.url}/groups/${homeId}`);
      await visible(page.getByRole('img', { name: 'Reactions: 👍 1 🎉 1' }));
      expect(await accessibilityViolations(page)).toEqual([]);
    }
    await ana.page.screenshot({ path: '/tmp/reactions-card-375.png' });
    await ben.page.screenshot({ path: '/tmp/reactions-card-1280.png' });
    expect(ben.errors).toEqual([]);
    expect(ana.errors).toEqual([]);
  });

  step('Ana finds one notification of Ben’s reaction, and it opens the message', async () => {
    const { page } = ana;
    await page.getByRole('button', { name: /^Notifications/ }).click();
    const entry = page.getByRole('button', { name: 'ben reacted to your message “Beach day” in Home' });
    await visible(entry);
    await page.screenshot({ path: '/tmp/reactions-notification-375.png' });
    await entry.click();
    await page.waitForURL(new RegExp(`/messages/${messageId}$`));
  });

  step('a comment has a bar of its own', async () => {
    const reply = await api<{ id: string }>(
      kith,
      'POST',
      '/messages',
      { group: homeId, parent: messageId, data: { text: 'Lovely light too.' } },
      anaKey,
    );
    expect(reply.status).toBe(201);
    const { page } = ben;
    await page.goto(`${kith.url}/messages/${messageId}`);
    const comment = page.locator(`[id="comment-${reply.body.id}"]`);
    await comment.getByRole('button', { name: 'Add a reaction' }).click();
    await comment.getByRole('group', { name: 'Add a reaction' }).getByRole('button', { name: 'React with 😂' }).click();
    await visible(comment.getByRole('button', { name: 'Reaction 😂: 1' }));
    // The post's own bar is unchanged.
    await visible(page.getByRole('button', { name: 'Reaction 👍: 1' }));
    expect(await page.getByRole('button', { name: /^Reaction 😂/ }).count()).toBe(1);
    await page.screenshot({ path: '/tmp/reactions-comment-1280.png' });
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  step('in Russian the bar, the names and the card read in Russian', async () => {
    const res = await api(kith, 'PUT', `/users/${anaId}`, { data: { lang: 'ru_RU' } }, anaKey);
    expect(res.status).toBe(200);
    const ru = await newPage(browser, 'phone');
    await signIn(kith, ru.page, 'ana@example.org');
    await ru.page.goto(`${kith.url}/messages/${messageId}`);
    const thumbs = ru.page.getByRole('button', { name: 'Реакция 👍: 1' });
    await visible(thumbs);
    await thumbs.dispatchEvent('pointerdown', { pointerType: 'touch', isPrimary: true });
    await visible(ru.page.getByRole('tooltip'));
    expect(await ru.page.getByRole('tooltip').textContent()).toBe('ana — реакция 👍');
    await thumbs.dispatchEvent('pointerup', { pointerType: 'touch', isPrimary: true });
    await ru.page.screenshot({ path: '/tmp/reactions-ru-375.png' });
    expect(await accessibilityViolations(ru.page)).toEqual([]);
    const wide = await newPage(browser, 'desktop');
    await signIn(kith, wide.page, 'ana@example.org');
    await wide.page.goto(`${kith.url}/messages/${messageId}`);
    await wide.page.getByRole('button', { name: 'Добавить реакцию' }).first().click();
    await visible(wide.page.getByRole('group', { name: 'Добавить реакцию' }));
    await wide.page.screenshot({ path: '/tmp/reactions-ru-1280.png' });
    await ru.context.close();
    await wide.context.close();
  });
});
