// One feed across my groups (docs/api §11.8): a user in two groups opens "All my groups" from the
// groups menu, sees the cards of both under their groups' names (and none of a group they are not
// in), follows a group's name to its feed, sees a new post of either group arrive live, then makes
// the feed their default page and lands on it at the next visit. At phone and desktop size, with
// axe, and in Russian for the other script.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import {
  api,
  type IsolatedPage,
  type Kith,
  launchBrowser,
  newPage,
  screenshot,
  startKith,
  type Viewport,
} from './harness.js';
import { webText } from './locales.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { gone, textOf, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
const opened: IsolatedPage[] = [];
const ana = { login: 'ana.allfeed@example.org', key: '', id: '', home: '', garden: '' };
const zed = { login: 'zed.allfeed@example.org', key: '', secret: '' };

beforeAll(async () => {
  kith = await startKith();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => undefined);
  await browser?.close();
  await kith?.stop();
}, 60_000);

async function open(viewport: Viewport, locale?: string): Promise<IsolatedPage> {
  const isolated = await newPage(browser, viewport, locale === undefined ? {} : { locale });
  opened.push(isolated);
  return isolated;
}

async function post(key: string, group: string, title: string): Promise<string> {
  const answer = await api<{ id: string }>(kith, 'POST', '/messages', { group, data: { title, text: title } }, key);
  expect(answer.status).toBe(201);
  return answer.body.id;
}

/** The group names shown above the cards of the feed, in order. */
async function cardGroups(page: Page): Promise<string[]> {
  return page
    .locator('main article')
    .evaluateAll((cards) =>
      cards.map((card) => (card.parentElement?.querySelector('a[href*="/groups/"]')?.textContent ?? '').trim()),
    );
}

describe('One feed across my groups', () => {
  const step = storySteps();

  step('seed: Ana in Home and Garden, Zed alone in Secret', async () => {
    const signedUp = await signUpApi(kith, ana.login);
    ana.key = signedUp.api_key;
    ana.home = signedUp.group;
    const garden = await api<{ id: string }>(kith, 'POST', '/groups', { name: 'Garden' }, ana.key);
    expect(garden.status).toBe(201);
    ana.garden = garden.body.id;
    zed.key = (await signUpApi(kith, zed.login)).api_key;
    const secret = await api<{ id: string }>(kith, 'POST', '/groups', { name: 'Secret' }, zed.key);
    expect(secret.status).toBe(201);
    zed.secret = secret.body.id;
    await post(ana.key, ana.home, 'Sunday lunch');
    await post(ana.key, ana.garden, 'Tomatoes are up');
    await post(zed.key, zed.secret, 'Not for Ana');
    await post(ana.key, ana.home, 'Photos from the lake');
    const me = await api<{ id: string }>(kith, 'GET', '/me', undefined, ana.key);
    ana.id = me.body.id;
  });

  for (const viewport of ['phone', 'desktop'] as const) {
    step(
      `${viewport}: "All my groups" in the groups menu shows both groups' cards under their names`,
      async () => {
        const { page, errors } = await open(viewport);
        await signIn(kith, page, ana.login);
        await page.waitForURL(`${kith.url}/groups/${ana.home}`);
        await page.getByRole('button', { name: 'Home' }).click();
        const menu = page.getByRole('navigation', { name: 'Groups' });
        const first = menu.getByRole('link').first();
        await textOf(first).toBe('All my groups');
        await first.click();
        await page.waitForURL(`${kith.url}/feed`);
        await textOf(page.getByRole('heading', { level: 1 })).toBe('All my groups');
        await visible(page.getByText('Photos from the lake').first());
        await expect.poll(() => page.locator('main article').count()).toBe(3);
        expect(await cardGroups(page)).toEqual(['Home', 'Garden', 'Home']);
        expect(await page.getByText('Not for Ana').count()).toBe(0);
        await textOf(page.getByRole('button', { name: 'All my groups' })).toContain('All my groups');
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, `${viewport}-all-groups-feed`);
        await page.screenshot({ path: `/tmp/allfeed-${viewport}.png`, fullPage: true });

        // A group's name leads to that group's feed.
        await page.getByRole('link', { name: 'Open the group Garden' }).click();
        await page.waitForURL(`${kith.url}/groups/${ana.garden}`);
        await textOf(page.getByRole('heading', { level: 1 })).toBe('Garden');
        expect(errors).toEqual([]);
      },
      90_000,
    );
  }

  step('a new post in either group appears at the top, live', async () => {
    const { page, errors } = await open('desktop');
    await signIn(kith, page, ana.login);
    await page.goto(`${kith.url}/feed`);
    await visible(page.getByText('Photos from the lake').first());
    await post(ana.key, ana.garden, 'Beans too');
    await expect.poll(async () => (await cardGroups(page))[0], { timeout: 30_000 }).toBe('Garden');
    await textOf(page.locator('main article').first()).toContain('Beans too');
    expect(errors).toEqual([]);
  });

  step('in Russian, at phone size', async () => {
    const set = await api(kith, 'PUT', `/users/${ana.id}`, { data: { lang: 'ru_RU' } }, ana.key);
    expect(set.status).toBe(200);
    const { page, errors } = await open('phone');
    await signIn(kith, page, ana.login);
    await page.goto(`${kith.url}/feed`);
    await textOf(page.getByRole('heading', { level: 1 })).toBe(webText('ru_RU', 'all_feed.title'));
    await expect.poll(() => page.locator('main article').count()).toBe(4);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: '/tmp/allfeed-phone-ru.png', fullPage: true });
    const back = await api(kith, 'PUT', `/users/${ana.id}`, { data: { lang: 'en_US' } }, ana.key);
    expect(back.status).toBe(200);
    expect(errors).toEqual([]);
  });

  step(
    'settings: "All my groups" as the default page, and `/` opens it at the next visit',
    async () => {
      const { page, errors } = await open('phone');
      await signIn(kith, page, ana.login);
      await page.waitForURL(`${kith.url}/groups/${ana.home}`);
      await page.goto(`${kith.url}/users/${ana.id}/settings?tab=default-group`);
      const select = page.getByLabel('Group opened when you arrive');
      await visible(select);
      await select.selectOption({ label: 'All my groups' });
      await page.getByRole('button', { name: 'Save' }).click();
      const alert = page.getByText('Your settings were updated');
      await visible(alert);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: '/tmp/allfeed-settings-phone.png', fullPage: true });
      const me = await api<{ data: Record<string, string> }>(kith, 'GET', '/me', undefined, ana.key);
      // The 0.5.6 client still finds a group id in default_group.
      expect(me.body.data).toMatchObject({ default_page: 'feed' });
      expect(me.body.data.default_group ?? ana.home).toMatch(/^[0-9a-f-]{36}$/);

      // The next visit, on another device: signing in leads through `/` to the feed.
      const other = await open('desktop');
      await signIn(kith, other.page, ana.login);
      await other.page.waitForURL(`${kith.url}/feed`);
      await visible(other.page.getByText('Beans too').first());
      await other.page.goto(`${kith.url}/`);
      await other.page.waitForURL(`${kith.url}/feed`);
      // The alert goes by itself (LIMITS.alertMs): the other device's sign-in may outlast it, so it
      // is not clicked here.
      await gone(alert);
      expect(errors).toEqual([]);
      expect(other.errors).toEqual([]);
    },
    90_000,
  );
});
