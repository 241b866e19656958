// Group settings and search (issue 17): the settings page and the search page at both sizes with
// axe, a rename seen live by another member, resetting the invitation link, leaving (the default
// group switched first, the last member warned), search with accents and hashtags, and hashtags in
// messages leading to their search.
import type { Browser, Dialog, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type Kith, launchBrowser, newPage, screenshot, startKith, VIEWPORTS } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { countOf, gone, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
let home = '';
let anaKey = '';
let benKey = '';
let anaId = '';
let coffee = '';
let christmas = '';

interface Me {
  id: string;
  groups: { id: string; name: string }[];
  data: { default_group?: string; lang?: string };
}

const me = async (key: string) => (await api<Me>(kith, 'GET', '/me', undefined, key)).body;

async function createGroup(name: string, key: string): Promise<{ id: string; secretKey: string }> {
  const answer = await api<{ id: string; secretKey: string }>(kith, 'POST', '/groups', { name }, key);
  expect(answer.status).toBe(201);
  return answer.body;
}

async function post(title: string, text: string, key = anaKey): Promise<string> {
  const answer = await api<{ id: string }>(kith, 'POST', '/messages', { group: home, data: { title, text } }, key);
  expect(answer.status).toBe(201);
  return answer.body.id;
}

/** Answers the next confirmation with `accept`, and gives its text. */
function nextDialog(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve) => {
    page.once('dialog', (dialog: Dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
}

beforeAll(async () => {
  kith = await startKith();
  browser = await launchBrowser();
  const ana = await signUpApi(kith, 'ana@example.org');
  anaKey = ana.api_key;
  home = ana.group;
  anaId = (await me(anaKey)).id;
  benKey = (await signUpApi(kith, 'ben@example.org')).api_key;
  coffee = await post('Café du matin', 'Un café serré avec #petitdej, pour bien commencer.');
  christmas = await post('Le réveillon', 'Un cafe noir après le repas de #Noël 🎄 <b>pas de HTML</b>', benKey);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await kith?.stop();
}, 60_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function anaPage(viewport: 'phone' | 'desktop') {
  const opened = await newPage(browser, viewport);
  cleanups.push(() => opened.context.close());
  await signIn(kith, opened.page, 'ana@example.org');
  return opened;
}

describe('group settings', () => {
  for (const viewport of Object.keys(VIEWPORTS) as ('phone' | 'desktop')[]) {
    it(`shows the name, the invitation link, the members and leave (${viewport})`, async () => {
      const { page, errors } = await anaPage(viewport);
      await page.waitForURL(new RegExp(`/groups/${home}$`));
      await page.getByRole('link', { name: 'Group settings' }).click();
      await page.waitForURL(new RegExp(`/groups/${home}/settings$`));
      await visible(page.getByRole('heading', { level: 1, name: 'Group settings' }));
      expect(await page.getByRole('textbox', { name: 'Name of the group' }).inputValue()).toBe('Home');
      const link = page.getByTestId('invite-link');
      expect(await link.inputValue()).toMatch(new RegExp(`^${kith.url}/invitation/[0-9a-f-]{36}$`));
      const members = page.getByRole('listitem');
      await countOf(members).toBe(2);
      // Each with an avatar (an initial here, hidden from screen readers) and the name.
      await visible(members.nth(0).getByText('ana (you)', { exact: true }));
      await visible(members.nth(1).getByText('ben', { exact: true }));
      await countOf(page.getByRole('list').locator('[aria-hidden="true"]')).toBe(2);
      await visible(page.getByRole('button', { name: 'Leave the group' }));
      expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `group-settings-${viewport}`);
      expect(errors).toEqual([]);
    }, 90_000);
  }

  it('copies the invitation link and says so', async () => {
    const { context, page, errors } = await anaPage('desktop');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: kith.url });
    await page.goto(`${kith.url}/groups/${home}/settings`);
    const link = await page.getByTestId('invite-link').inputValue();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await visible(page.getByRole('status').filter({ hasText: 'The invitation link was copied.' }));
    const copied = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied).toBe(link);
    expect(errors).toEqual([]);
  }, 60_000);

  it('refuses an empty name with a message, and renames; the other member sees it live', async () => {
    const ben = await newPage(browser, 'phone');
    cleanups.push(() => ben.context.close());
    const benStream = ben.page.waitForResponse((response) => response.url().includes('/api/events'));
    await signIn(kith, ben.page, 'ben@example.org');
    await ben.page.waitForURL(new RegExp(`/groups/${home}$`));
    await visible(ben.page.getByRole('heading', { level: 1, name: 'Home' }));
    await benStream;
    // A mark on the window: a reload would lose it.
    await ben.page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));

    const { page, errors } = await anaPage('desktop');
    await page.goto(`${kith.url}/groups/${home}/settings`);
    const name = page.getByRole('textbox', { name: 'Name of the group' });
    await name.fill('   ');
    await page.getByRole('button', { name: 'Rename' }).click();
    await visible(page.getByRole('alert').filter({ hasText: 'The name must be 1 to 128 characters long' }));
    expect((await me(anaKey)).groups.find((g) => g.id === home)?.name).toBe('Home');

    await name.fill('  Maison d’été  ');
    await page.getByRole('button', { name: 'Rename' }).click();
    await visible(page.getByRole('status').filter({ hasText: 'The group was updated.' }));
    // The navigation's group menu shows the new name at once.
    await visible(page.getByRole('banner').getByRole('button', { name: /Maison d’été/ }));
    expect((await me(anaKey)).groups.find((g) => g.id === home)?.name).toBe('Maison d’été');

    // Ben's feed and navigation follow without a reload.
    await visible(ben.page.getByRole('heading', { level: 1, name: 'Maison d’été' }));
    await visible(ben.page.getByRole('banner').getByRole('button', { name: /Maison d’été/ }));
    expect(await ben.page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(errors).toEqual([]);
    expect(ben.errors).toEqual([]);
  }, 120_000);

  it('resets the invitation link after a confirmation; the old link no longer joins', async () => {
    const club = await createGroup('Club', anaKey);
    const { page, errors } = await anaPage('desktop');
    await page.goto(`${kith.url}/groups/${club.id}/settings`);
    const link = page.getByTestId('invite-link');
    const oldLink = await link.inputValue();
    expect(oldLink).toBe(`${kith.url}/invitation/${club.secretKey}`);

    // Cancelled: nothing changes.
    const cancelled = nextDialog(page, false);
    await page.getByRole('button', { name: 'Reset the link' }).click();
    expect(await cancelled).toContain('The current link stops working at once');
    expect(await link.inputValue()).toBe(oldLink);

    const confirmed = nextDialog(page, true);
    await page.getByRole('button', { name: 'Reset the link' }).click();
    await confirmed;
    await visible(page.getByRole('status').filter({ hasText: 'The invitation link was reset.' }));
    await expect.poll(() => link.inputValue()).not.toBe(oldLink);
    const newLink = await link.inputValue();
    expect(newLink).toMatch(new RegExp(`^${kith.url}/invitation/[0-9a-f-]{36}$`));

    // Ben, signed in, opens the old link: refused, and he is not in the club.
    const ben = await newPage(browser, 'desktop');
    cleanups.push(() => ben.context.close());
    await signIn(kith, ben.page, 'ben@example.org');
    await ben.page.goto(oldLink);
    await visible(ben.page.getByRole('alert').filter({ hasText: 'This invitation is not valid any more' }));
    expect((await me(benKey)).groups.map((g) => g.id)).not.toContain(club.id);
    // The new one works.
    await ben.page.goto(newLink);
    await expect.poll(async () => (await me(benKey)).groups.map((g) => g.id)).toContain(club.id);
    expect(errors).toEqual([]);
  }, 120_000);

  it('leaving the default group switches the default to the first other group first', async () => {
    const before = await me(benKey);
    expect(before.data.default_group).toBe(home);
    const club = before.groups.find((g) => g.name === 'Club');
    expect(club).toBeDefined();

    const ben = await newPage(browser, 'phone');
    cleanups.push(() => ben.context.close());
    await signIn(kith, ben.page, 'ben@example.org');
    const writes: string[] = [];
    ben.page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      // Presence reports (Web Push, §11.9) come and go with focus; they change no setting.
      if (request.method() !== 'GET' && !path.endsWith('/api/events') && !path.endsWith('/api/me/presence')) {
        writes.push(`${request.method()} ${path}`);
      }
    });
    await ben.page.goto(`${kith.url}/groups/${home}/settings`);
    const question = nextDialog(ben.page, true);
    await ben.page.getByRole('button', { name: 'Leave the group' }).click();
    expect(await question).toBe('Leave Maison d’été? Your messages stay in it.');
    await visible(ben.page.getByRole('status').filter({ hasText: 'You left the group.' }));
    // "/" then leads to the new default group.
    await ben.page.waitForURL(new RegExp(`/groups/${club?.id}$`));
    expect(writes).toEqual([`PUT /api/users/${before.id}`, `POST /api/groups/${home}/leave`]);
    const after = await me(benKey);
    expect(after.data.default_group).toBe(club?.id);
    expect(after.groups.map((g) => g.id)).toEqual([club?.id]);
    expect(ben.errors).toEqual([]);
  }, 120_000);

  it('warns the last member that the group and its messages will be deleted for good', async () => {
    const solo = await createGroup('Solo', anaKey);
    const { page, errors } = await anaPage('desktop');
    await page.goto(`${kith.url}/groups/${solo.id}/settings`);
    const cancelled = nextDialog(page, false);
    await page.getByRole('button', { name: 'Leave the group' }).click();
    expect(await cancelled).toBe(
      'You are the last member: unless someone joins within 30 days, Solo and all its messages will be deleted for good. Leave it?',
    );
    expect((await me(anaKey)).groups.map((g) => g.id)).toContain(solo.id);

    const confirmed = nextDialog(page, true);
    await page.getByRole('button', { name: 'Leave the group' }).click();
    await confirmed;
    await visible(page.getByRole('status').filter({ hasText: 'You left the group.' }));
    await page.waitForURL(new RegExp(`/groups/${home}$`));
    expect((await me(anaKey)).groups.map((g) => g.id)).not.toContain(solo.id);
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('search', () => {
  const results = (page: Page) => page.getByRole('main').getByRole('listitem');

  for (const viewport of Object.keys(VIEWPORTS) as ('phone' | 'desktop')[]) {
    it(`searches the group from the navigation, accents or not (${viewport})`, async () => {
      const { page, errors } = await anaPage(viewport);
      await page.waitForURL(new RegExp(`/groups/${home}$`));
      const field = page.getByRole('searchbox', { name: 'Search in this group' }).first();
      if (viewport === 'phone') {
        // Only the button shows; pressed with nothing typed, it opens the field.
        await page.getByRole('banner').getByRole('button', { name: 'Search' }).click();
        const focused = () =>
          field.evaluate(
            (input) =>
              input === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
          );
        await expect.poll(focused).toBe(true);
        await screenshot(page, `search-box-${viewport}`);
      }
      await field.fill('Café');
      await field.press('Enter');
      await page.waitForURL(new RegExp(`/groups/${home}/search\\?q=Cafe$`));
      await visible(page.getByRole('heading', { level: 1, name: 'Search in Maison d’été' }));
      // "Café" finds the "cafe" of the other message too, and the matches are marked.
      await countOf(results(page)).toBe(2);
      const marks = await page.locator('main mark').allTextContents();
      expect(marks.length).toBeGreaterThanOrEqual(2);
      const folded = marks.map((mark) =>
        mark
          .normalize('NFD')
          .replace(/[\u0300-\u036f]/g, '')
          .toLowerCase(),
      );
      expect(new Set(folded)).toEqual(new Set(['cafe']));
      // The server's text is shown as text, never as markup.
      await visible(page.getByText('<b>pas de HTML</b>', { exact: false }));
      expect(await page.locator('main b').count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `search-${viewport}`);

      // The query is on the page and can be changed there: "cafe" finds "café" as well.
      const pageField = page.getByRole('main').getByRole('searchbox', { name: 'Search in this group' });
      expect(await pageField.inputValue()).toBe('Cafe');
      await pageField.fill('cafe #noël');
      await pageField.press('Enter');
      await page.waitForURL(new RegExp(`/groups/${home}/search\\?q=cafe&hashtags=noel$`));
      await countOf(results(page)).toBe(1);
      await visible(results(page).getByRole('heading', { name: 'Le réveillon' }));

      await pageField.fill('zzzz');
      await pageField.press('Enter');
      await visible(page.getByText('No message matches your search.'));
      await gone(results(page));
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `search-empty-${viewport}`);

      // A result opens its message.
      await pageField.fill('serré');
      await pageField.press('Enter');
      await countOf(results(page)).toBe(1);
      await results(page).getByRole('link').click();
      await page.waitForURL(new RegExp(`/messages/${coffee}$`));
      expect(errors).toEqual([]);
    }, 120_000);
  }

  it('a hashtag in a message opens its search; the public page links none', async () => {
    const { page, errors } = await anaPage('desktop');
    await page.goto(`${kith.url}/messages/${christmas}`);
    await page.getByRole('link', { name: '#Noël' }).click();
    await page.waitForURL(new RegExp(`/groups/${home}/search\\?hashtags=Noel$`));
    await countOf(results(page)).toBe(1);
    await visible(results(page).getByRole('heading', { name: 'Le réveillon' }));
    expect(await page.getByRole('main').getByRole('searchbox').inputValue()).toBe('#Noel');

    const shared = await api<{ token: string }>(
      kith,
      'GET',
      `/messages/${christmas}/get-public-link`,
      undefined,
      anaKey,
    );
    expect(shared.status).toBe(200);
    const visitor = await newPage(browser, 'phone');
    cleanups.push(() => visitor.context.close());
    await visitor.page.goto(`${kith.url}/public/${shared.body.token}`);
    await visible(visitor.page.getByText('#Noël', { exact: false }));
    await gone(visitor.page.getByRole('link', { name: '#Noël' }));
    expect(errors).toEqual([]);
  }, 90_000);

  it('shows settings and search in Korean (untranslated texts in English)', async () => {
    expect((await api(kith, 'PUT', `/users/${anaId}`, { data: { lang: 'ko_KR' } }, anaKey)).status).toBe(200);
    cleanups.push(() => api(kith, 'PUT', `/users/${anaId}`, { data: { lang: 'en_US' } }, anaKey));
    for (const viewport of Object.keys(VIEWPORTS) as ('phone' | 'desktop')[]) {
      const { page, errors } = await anaPage(viewport);
      await page.goto(`${kith.url}/groups/${home}/settings`);
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('ko-KR');
      await visible(page.getByTestId('invite-link'));
      await screenshot(page, `group-settings-ko-${viewport}`);
      await page.goto(`${kith.url}/groups/${home}/search?q=cafe`);
      await countOf(results(page)).toBe(2);
      await screenshot(page, `search-ko-${viewport}`);
      expect(errors).toEqual([]);
    }
  }, 120_000);
});
