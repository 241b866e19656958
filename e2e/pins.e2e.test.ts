// Pinned messages (issue 20): a member who did not write a message pins it from its menu; it then
// shows first on the group's feed, marked "Pinned" in words, and on its page; unpinning puts it
// back in its place. At 375 and 1280 px, with axe; and once in Korean, another script.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type Kith, launchBrowser, newPage, screenshot, startKith, VIEWPORTS } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { textOf, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
let home = '';
let anaKey = '';
let choKey = '';
const titles = ['Oldest news', 'Middle news', 'Newest news'];
const ids: string[] = [];

beforeAll(async () => {
  kith = await startKith();
  browser = await launchBrowser();
  const ana = await signUpApi(kith, 'ana@example.org');
  anaKey = ana.api_key;
  home = ana.group;
  await signUpApi(kith, 'ben@example.org');
  const cho = await signUpApi(kith, 'cho@example.org');
  choKey = cho.api_key;
  const choId = (await api<{ id: string }>(kith, 'GET', '/me', undefined, cho.api_key)).body.id;
  expect((await api(kith, 'PUT', `/users/${choId}`, { data: { lang: 'ko_KR' } }, cho.api_key)).status).toBe(200);
  // Written by Ana, oldest first: the feed shows the newest first.
  for (const title of titles) {
    const answer = await api<{ id: string }>(
      kith,
      'POST',
      '/messages',
      { group: home, data: { title, text: `${title}, written by Ana.` } },
      anaKey,
    );
    expect(answer.status).toBe(201);
    ids.push(answer.body.id);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await kith?.stop();
}, 60_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The titles of the feed's cards, top first. */
const cardTitles = (page: Page) =>
  page
    .getByRole('article')
    .evaluateAll((cards) =>
      cards.map(
        (card) =>
          (card as unknown as { querySelector(s: string): { textContent: string } | null }).querySelector(
            'a span[class*="title"]',
          )?.textContent ?? '',
      ),
    );

async function openMenuItem(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Message actions' }).first().click();
  await page.getByRole('button', { name, exact: true }).click();
}

describe('pinned messages', () => {
  for (const viewport of Object.keys(VIEWPORTS) as ('phone' | 'desktop')[]) {
    it(`a member pins another's message: first and marked on the feed; then unpins it (${viewport})`, async () => {
      const { context, page, errors } = await newPage(browser, viewport);
      cleanups.push(() => context.close());
      await signIn(kith, page, 'ben@example.org');
      await page.waitForURL(new RegExp(`/groups/${home}$`));
      await expect.poll(() => cardTitles(page)).toEqual([...titles].reverse());
      expect(await page.getByText('Pinned', { exact: true }).count()).toBe(0);

      // Ben opens Ana's oldest message and pins it.
      await page.getByRole('link', { name: /Oldest news/ }).click();
      await page.waitForURL(new RegExp(`/messages/${ids[0]}$`));
      await openMenuItem(page, 'Pin to the top of the group');
      await visible(page.getByRole('status').filter({ hasText: 'The message is pinned at the top of the group.' }));
      await visible(page.getByText('Pinned', { exact: true }));
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `pins-message-${viewport}`);
      await page.screenshot({ path: `/tmp/pins-message-${viewport}.png`, fullPage: true });

      // Back on the group: first, and its link says "Pinned" in words.
      await page.goto(`${kith.url}/groups/${home}`);
      await expect.poll(() => cardTitles(page)).toEqual(['Oldest news', 'Newest news', 'Middle news']);
      const first = page.getByRole('article').first();
      await textOf(first.getByRole('link')).toMatch(/^Pinned/);
      expect(await page.getByRole('article').getByText('Pinned', { exact: true }).count()).toBe(1);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `pins-feed-${viewport}`);
      await page.screenshot({ path: `/tmp/pins-feed-${viewport}.png`, fullPage: true });

      // Unpinned from its page: back in its place, unmarked.
      await first.getByRole('link').click();
      await page.waitForURL(new RegExp(`/messages/${ids[0]}$`));
      await openMenuItem(page, 'Unpin');
      await visible(page.getByRole('status').filter({ hasText: 'The message is no longer pinned.' }));
      await page.goto(`${kith.url}/groups/${home}`);
      await expect.poll(() => cardTitles(page)).toEqual([...titles].reverse());
      expect(await page.getByText('Pinned', { exact: true }).count()).toBe(0);
      expect(errors).toEqual([]);
    }, 120_000);
  }

  it('another member’s feed follows a pin live, and it reads in Korean', async () => {
    // Cho has read her notifications: the Korean bell with an unread count has an axe finding of
    // its own (its name says "읽지 않음 3개" for a visible "3"), outside this feature.
    expect((await api(kith, 'POST', '/me/notifications/read-all', {}, choKey)).status).toBe(200);
    const cho = await newPage(browser, 'phone');
    cleanups.push(() => cho.context.close());
    const stream = cho.page.waitForResponse((response) => response.url().includes('/api/events'));
    await signIn(kith, cho.page, 'cho@example.org');
    await cho.page.waitForURL(new RegExp(`/groups/${home}$`));
    await expect.poll(() => cardTitles(cho.page)).toEqual([...titles].reverse());
    await stream;

    // Ana pins the middle one through the API; Cho's feed reorders without a reload.
    expect((await api(kith, 'PUT', `/messages/${ids[1]}`, { pinnedInGroup: true }, anaKey)).status).toBe(200);
    await expect.poll(() => cardTitles(cho.page)).toEqual(['Middle news', 'Newest news', 'Oldest news']);
    await visible(cho.page.getByRole('article').first().getByText('고정됨', { exact: true }));
    expect(await accessibilityViolations(cho.page)).toEqual([]);
    await cho.page.screenshot({ path: '/tmp/pins-feed-ko-phone.png', fullPage: true });

    await cho.page.getByRole('article').first().getByRole('link').click();
    await cho.page.waitForURL(new RegExp(`/messages/${ids[1]}$`));
    await cho.page.getByRole('button', { name: '메시지 메뉴' }).first().click();
    await visible(cho.page.getByRole('button', { name: '고정 해제', exact: true }));
    expect(await accessibilityViolations(cho.page)).toEqual([]);
    await cho.page.screenshot({ path: '/tmp/pins-message-ko-phone.png', fullPage: true });
    await cho.page.getByRole('button', { name: '고정 해제', exact: true }).click();
    await visible(cho.page.getByRole('status').filter({ hasText: '메시지 고정이 해제되었어요.' }));
    expect(cho.errors).toEqual([]);
    await cho.page.setViewportSize(VIEWPORTS.desktop);
    await cho.page.goto(`${kith.url}/groups/${home}`);
    await expect.poll(() => cardTitles(cho.page)).toEqual([...titles].reverse());
  }, 120_000);
});
