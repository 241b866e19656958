// Bookmarks and sharing (product spec §2, §4, §5, §8): the bookmark button and the avatar menu's
// entry, the /bookmarks grid, sharing a message to another group, public links, the /share form as
// a share sheet opens it, and the installable app (manifest, icons, service worker, share target).
// Accounts, groups and messages the screens do not test are seeded through the API.
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { jpeg, uploadJpeg } from './pictures.js';
import { storySteps } from './steps.js';
import { gone, visible } from './wait.js';

const MESSAGE_URL = /\/messages\/([0-9a-f-]{36})$/;

interface Message {
  id: string;
  group: { id: string; name: string };
  data: { title?: string; text?: string; no_embed?: boolean };
  files: { id: string; type: string }[];
  isPublic: boolean;
}

let kith: Kith;
let browser: Browser;
let ana: IsolatedPage; // desktop, 1280×800
let anaPhone: IsolatedPage; // phone, 375×812
let anaKey = '';
let anaId = '';
let homeId = '';
let clubId = '';
let gardenId = '';
let beachId = '';
let beachFiles: string[] = [];

async function createGroup(name: string): Promise<string> {
  const answer = await api<{ id: string }>(kith, 'POST', '/groups', { name }, anaKey);
  expect(answer.status).toBe(201);
  return answer.body.id;
}

async function message(id: string): Promise<Message> {
  const answer = await api<Message>(kith, 'GET', `/messages/${id}`, undefined, anaKey);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function bookmarkCount(): Promise<number> {
  const answer = await api<unknown[]>(kith, 'GET', '/me/bookmarks', undefined, anaKey);
  expect(answer.status).toBe(200);
  return answer.body.length;
}

/** The entries of the avatar menu, in order, after opening it; closes it again. */
async function accountMenu(page: Page): Promise<string[]> {
  const button = page.getByRole('button', { name: 'Account' });
  await button.click();
  const menu = page.locator(`[id="${await button.getAttribute('aria-controls')}"]`);
  await visible(menu);
  const entries = await menu.getByRole('link').allTextContents();
  await page.keyboard.press('Escape');
  return entries;
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

describe('bookmarks and sharing', () => {
  const step = storySteps();

  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    const signedUp = await signUpApi(kith, 'ana@example.org');
    anaKey = signedUp.api_key;
    homeId = signedUp.group;
    anaId = (await api<{ id: string }>(kith, 'GET', '/me', undefined, anaKey)).body.id;
    // "Home" has a space in it, so the origin line is checked with a name as people write them.
    await api(kith, 'PUT', `/groups/${homeId}`, { name: 'Our Home' }, anaKey);
    clubId = await createGroup('Book club');
    gardenId = await createGroup('Garden');
    const photo = await uploadJpeg(kith, anaKey, await jpeg(40), 'beach.jpg');
    const posted = await api<Message>(
      kith,
      'POST',
      '/messages',
      { group: homeId, data: { title: 'Beach day', text: 'Sand and sea' }, files: [photo.id] },
      anaKey,
    );
    expect(posted.status).toBe(201);
    beachId = posted.body.id;
    beachFiles = posted.body.files.map((file) => file.id);
    ana = await newPage(browser, 'desktop');
    anaPhone = await newPage(browser, 'phone');
    await signIn(kith, ana.page, 'ana@example.org');
    await signIn(kith, anaPhone.page, 'ana@example.org');
  }, 120_000);

  afterAll(async () => {
    for (const open of [ana, anaPhone]) await open?.context.close();
    await browser?.close();
    await kith?.stop();
  }, 60_000);

  step(
    'reads the bookmarks after the first screen; the avatar menu has Settings and Sign out but no Bookmarks',
    async () => {
      const { page } = ana;
      const requests: string[] = [];
      const onRequest = (request: { url(): string }) => requests.push(new URL(request.url()).pathname);
      page.on('request', onRequest);
      const bookmarksRead = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/me/bookmarks/1001');
      await page.goto(`${kith.url}/groups/${homeId}`);
      await visible(page.getByRole('link', { name: /Beach day/ }));
      const read = await bookmarksRead;
      expect(new URL(read.url()).searchParams.get('expand')).toBe('message');
      page.off('request', onRequest);
      // Not one of the group page's first reads: it starts after the feed was asked for.
      const feed = requests.findIndex((path) => path === `/api/groups/${homeId}/feed`);
      expect(feed).toBeGreaterThanOrEqual(0);
      expect(requests.indexOf('/api/me/bookmarks/1001')).toBeGreaterThan(feed);
      expect(await accountMenu(page)).toEqual(['Settings', 'Sign out']);
      const settings = await page
        .getByRole('button', { name: 'Account' })
        .click()
        .then(() => page.getByRole('link', { name: 'Settings', exact: true }).getAttribute('href'));
      expect(settings).toBe(`/users/${anaId}/settings`);
      await page.keyboard.press('Escape');
    },
    90_000,
  );

  step(
    'bookmarks a message from its page: the button is pressed, the alert says so, the menu gains Bookmarks',
    async () => {
      const { page, errors } = ana;
      await page.goto(`${kith.url}/messages/${beachId}`);
      const toggle = page.getByRole('button', { name: 'Bookmark', exact: true });
      await expect.poll(() => toggle.isEnabled()).toBe(true);
      expect(await toggle.getAttribute('aria-pressed')).toBe('false');
      await toggle.click();
      await visible(page.getByText('Message bookmarked.'));
      await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true');
      expect(await bookmarkCount()).toBe(1);
      expect(await accountMenu(page)).toEqual(['Bookmarks', 'Settings', 'Sign out']);
      expect(errors).toEqual([]);
    },
    90_000,
  );

  step(
    'shows /bookmarks as a grid of cards at both sizes, accessible',
    async () => {
      const { page } = ana;
      await page.getByRole('button', { name: 'Account' }).click();
      await page.getByRole('link', { name: 'Bookmarks' }).click();
      await page.waitForURL(/\/bookmarks$/);
      await visible(page.getByRole('heading', { level: 1, name: 'Bookmarks' }));
      await visible(page.getByRole('link', { name: /Beach day/ }));
      await visible(page.getByText('Our Home'));
      await expectAccessible(page);
      await screenshot(page, 'share/bookmarks-desktop');

      const phone = anaPhone.page;
      await phone.goto(`${kith.url}/bookmarks`);
      await visible(phone.getByRole('link', { name: /Beach day/ }));
      await expectAccessible(phone);
      await screenshot(phone, 'share/bookmarks-phone');
      // The card opens the message.
      await phone.getByRole('link', { name: /Beach day/ }).click();
      await phone.waitForURL(MESSAGE_URL);
      expect(anaPhone.errors).toEqual([]);
    },
    90_000,
  );

  step(
    'removes a bookmark from the grid at once; the empty state shows and the menu loses Bookmarks',
    async () => {
      const { page, errors } = ana;
      await page.getByRole('button', { name: 'Remove the bookmark of “Beach day”' }).click();
      await gone(page.getByRole('link', { name: /Beach day/ }));
      await visible(page.getByText('Message bookmark removed.'));
      await visible(page.getByText('You have no bookmarks yet.', { exact: false }));
      await expect.poll(bookmarkCount).toBe(0);
      expect(await accountMenu(page)).toEqual(['Settings', 'Sign out']);
      await expectAccessible(page);
      await screenshot(page, 'share/bookmarks-empty-desktop');
      expect(errors).toEqual([]);
    },
    90_000,
  );

  let copyId = '';

  step(
    'shares a message to another group: same title, text and files, and a line saying where it came from',
    async () => {
      const { page, errors } = ana;
      await page.goto(`${kith.url}/messages/${beachId}`);
      await page.getByRole('button', { name: 'Message actions' }).click();
      await page.getByRole('button', { name: 'Share to another group' }).click();
      await page.waitForURL(/\/share\?message=/);
      await visible(page.getByRole('heading', { level: 1, name: 'Share to another group' }));
      const group = page.getByLabel('Group');
      // The message's own group is not offered.
      expect(await group.locator('option').allTextContents()).toEqual(['Choose a group…', 'Book club', 'Garden']);
      const originUrl = `${kith.url}/messages/${beachId}`;
      expect(await page.getByLabel('Title').inputValue()).toBe('Beach day');
      expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe(
        `Sand and sea\n\nShared from Our Home: ${originUrl}`,
      );
      await expect.poll(() => page.locator('[data-testid="composer-files"] li').count()).toBe(1);
      // A group must be chosen (spec §5).
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await visible(page.getByText('Choose the group to share in.'));
      expect(page.url()).toContain('/share?');
      await group.selectOption({ label: 'Book club' });
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await page.waitForURL(MESSAGE_URL);
      copyId = MESSAGE_URL.exec(page.url())?.[1] ?? '';
      expect(copyId).not.toBe(beachId);
      await visible(page.getByText('Sand and sea'));
      // The origin line links to the original (its text shortened, product spec §9).
      await visible(page.locator(`a[href="${originUrl}"]`));

      const copy = await message(copyId);
      expect(copy.group.id).toBe(clubId);
      expect(copy.data.title).toBe('Beach day');
      expect(copy.data.text).toBe(`Sand and sea\n\nShared from Our Home: ${originUrl}`);
      expect(copy.files.map((file) => file.id)).toEqual(beachFiles);
      // No link card for the origin line: it would preview a Kith page.
      expect(copy.data.no_embed).toBe(true);
      expect(errors).toEqual([]);
    },
    90_000,
  );

  step(
    'makes, copies and revokes a public link; the public page answers 404 afterwards',
    async () => {
      const { page, context, errors } = ana;
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: kith.url });
      await page.goto(`${kith.url}/messages/${beachId}`);
      await visible(page.getByText('Sand and sea'));
      expect(await page.getByText('Public', { exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'Message actions' }).click();
      await page.getByRole('button', { name: 'Public link' }).click();
      const field = page.getByRole('textbox', { name: 'Public link' });
      await visible(field);
      await expect.poll(() => field.inputValue()).toMatch(new RegExp(`^${kith.url}/public/[\\w-]+$`));
      const url = await field.inputValue();
      const token = url.split('/').at(-1) ?? '';
      await visible(page.getByText('Public', { exact: true }));
      expect((await message(beachId)).isPublic).toBe(true);
      await expectAccessible(page);
      await screenshot(page, 'share/public-link-desktop');

      await page.getByRole('button', { name: 'Copy' }).click();
      await visible(page.getByText('Link copied.'));
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(url);
      expect((await api(kith, 'GET', `/public/${token}`)).status).toBe(200);

      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Revoke' }).click();
      await visible(page.getByText('The public link no longer works.'));
      await gone(field);
      await gone(page.getByText('Public', { exact: true }));
      expect((await api(kith, 'GET', `/public/${token}`)).status).toBe(404);
      expect((await message(beachId)).isPublic).toBe(false);
      expect(errors).toEqual([]);
    },
    90_000,
  );

  step(
    'opens /share as a share sheet does: prefilled, a group required, posted and opened',
    async () => {
      const shared = new URLSearchParams({ title: 'Trip', text: 'Look at this', url: 'https://example.org/trip' });
      for (const [open, size] of [
        [anaPhone, 'phone'],
        [ana, 'desktop'],
      ] as const) {
        await open.page.goto(`${kith.url}/share?${shared.toString()}`);
        await visible(open.page.getByRole('heading', { level: 1, name: 'Share' }));
        expect(await open.page.getByLabel('Title').inputValue()).toBe('Trip');
        expect(await open.page.getByLabel('Message', { exact: true }).inputValue()).toBe(
          'Look at this\nhttps://example.org/trip',
        );
        await expectAccessible(open.page);
        await screenshot(open.page, `share/share-${size}`);
      }
      const { page, errors } = anaPhone;
      expect(await page.getByLabel('Group').locator('option').allTextContents()).toEqual([
        'Choose a group…',
        'Our Home',
        'Book club',
        'Garden',
      ]);
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await visible(page.getByText('Choose the group to share in.'));
      await page.getByLabel('Group').selectOption({ label: 'Garden' });
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await page.waitForURL(MESSAGE_URL);
      const posted = await message(MESSAGE_URL.exec(page.url())?.[1] ?? '');
      expect(posted.group.id).toBe(gardenId);
      expect(posted.data).toMatchObject({ title: 'Trip', text: 'Look at this\nhttps://example.org/trip' });
      expect(errors).toEqual([]);
    },
    120_000,
  );

  step(
    'makes a comment of a share that names a parent: in the parent’s group, without a title or a group choice',
    async () => {
      const { page, errors } = ana;
      await page.goto(`${kith.url}/share?${new URLSearchParams({ parent: beachId, text: 'Lovely' }).toString()}`);
      await visible(page.getByRole('heading', { level: 1, name: 'Share as a comment' }));
      await visible(page.getByText('A comment on “Beach day”'));
      await visible(page.getByText('Will be shared in Our Home'));
      expect(await page.getByLabel('Group').count()).toBe(0);
      expect(await page.getByLabel('Title').count()).toBe(0);
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await page.waitForURL(MESSAGE_URL);
      const reply = await api<{ parent: { id: string } | null; group: { id: string }; data: { text?: string } }>(
        kith,
        'GET',
        `/messages/${MESSAGE_URL.exec(page.url())?.[1] ?? ''}`,
        undefined,
        anaKey,
      );
      expect(reply.body.parent?.id).toBe(beachId);
      expect(reply.body.group.id).toBe(homeId);
      expect(reply.body.data.text).toBe('Lovely');
      expect(errors).toEqual([]);
    },
    60_000,
  );

  step(
    'serves a valid manifest whose icons load',
    async () => {
      const { page } = ana;
      await page.goto(`${kith.url}/groups/${homeId}`);
      const href = await page.evaluate<string>('document.querySelector(\'link[rel="manifest"]\').href');
      expect(href).toBe(`${kith.url}/manifest.webmanifest`);
      const res = await fetch(href);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
      const manifest = (await res.json()) as {
        name: string;
        start_url: string;
        scope: string;
        display: string;
        theme_color: string;
        background_color: string;
        icons: { src: string; sizes: string; type: string; purpose?: string }[];
        share_target: { action: string; method: string; enctype: string; params: Record<string, unknown> };
      };
      expect(manifest).toMatchObject({ name: 'Kith', display: 'standalone', start_url: './', scope: './' });
      expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
      expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
      expect(manifest.share_target).toMatchObject({ method: 'POST', enctype: 'multipart/form-data' });
      expect(manifest.share_target.params).toMatchObject({ title: 'title', text: 'text', url: 'url' });
      const kinds = manifest.icons.map((icon) => `${icon.type} ${icon.sizes} ${icon.purpose ?? 'any'}`);
      expect(kinds).toEqual(
        expect.arrayContaining([
          'image/svg+xml any any',
          'image/png 192x192 any',
          'image/png 512x512 any',
          'image/png 512x512 maskable',
        ]),
      );
      for (const icon of manifest.icons) {
        const image = await fetch(new URL(icon.src, href));
        expect(image.status).toBe(200);
        expect(image.headers.get('content-type')).toContain(icon.type);
        if (icon.type === 'image/png') {
          const { width, height } = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
          expect(`${width}x${height}`).toBe(icon.sizes);
        }
      }
    },
    60_000,
  );

  step(
    'registers the service worker for the whole app',
    async () => {
      const { page } = ana;
      const scope = await page.evaluate('navigator.serviceWorker.ready.then((registration) => registration.scope)');
      expect(scope).toBe(`${kith.url}/`);
      // clients.claim(): the open page is controlled without a reload.
      await expect.poll(() => page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true);
    },
    60_000,
  );

  step(
    'takes a photo shared to the installed app: the share target ends on /share with the photo attached',
    async () => {
      const { page, errors } = ana;
      // A form posting to the manifest's share_target action, as the system share sheet does.
      // (Browser code as text: the e2e project's TypeScript has no DOM library.)
      await page.evaluate(`{
        const form = document.createElement('form');
        form.method = 'post';
        form.enctype = 'multipart/form-data';
        form.action = 'share-target';
        for (const [name, value] of [['title', 'Sunset'], ['text', 'From the pier'], ['url', '']]) {
          const input = document.createElement('input');
          input.name = name;
          input.value = value;
          form.append(input);
        }
        const files = document.createElement('input');
        files.type = 'file';
        files.name = 'files';
        files.id = 'shared-files';
        form.append(files);
        document.body.append(form);
      }`);
      await page.locator('#shared-files').setInputFiles({
        name: 'sunset.jpg',
        mimeType: 'image/jpeg',
        buffer: await jpeg(200),
      });
      await page.evaluate("document.getElementById('shared-files').form.submit()");
      await page.waitForURL(/\/share\?.*files=/);
      const query = new URL(page.url()).searchParams;
      expect(query.get('title')).toBe('Sunset');
      expect(query.get('text')).toBe('From the pier');
      expect(await page.getByLabel('Title').inputValue()).toBe('Sunset');
      const preview = page.locator('[data-testid="composer-files"] li');
      await expect.poll(() => preview.count()).toBe(1);
      await expect.poll(() => preview.first().getAttribute('data-status')).toBe('ready');
      await page.getByLabel('Group').selectOption({ label: 'Our Home' });
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await page.waitForURL(MESSAGE_URL);
      const posted = await message(MESSAGE_URL.exec(page.url())?.[1] ?? '');
      expect(posted.group.id).toBe(homeId);
      expect(posted.data).toMatchObject({ title: 'Sunset', text: 'From the pier' });
      expect(posted.files.map((file) => file.type)).toEqual(['image/jpeg']);
      // The photo was taken out of the worker's cache once used.
      const left = await page.evaluate(
        "caches.open('kith-share-target').then((cache) => cache.keys()).then((keys) => keys.length)",
      );
      expect(left).toBe(0);
      expect(errors).toEqual([]);
    },
    90_000,
  );

  step(
    'reads well in another script (Russian) at both sizes',
    async () => {
      expect((await api(kith, 'PUT', `/users/${anaId}`, { data: { lang: 'ru_RU' } }, anaKey)).status).toBe(200);
      expect((await api(kith, 'POST', '/bookmarks', { message_id: beachId }, anaKey)).status).toBe(201);
      for (const [open, size] of [
        [anaPhone, 'phone'],
        [ana, 'desktop'],
      ] as const) {
        await open.page.goto(`${kith.url}/bookmarks`);
        await visible(open.page.getByRole('link', { name: /Beach day/ }));
        // The interface follows the user's language once they are known (untranslated texts fall back to English).
        await expect.poll(() => open.page.evaluate('document.documentElement.lang')).toBe('ru-RU');
        await screenshot(open.page, `share/bookmarks-ru-${size}`);
        await open.page.goto(
          `${kith.url}/share?${new URLSearchParams({ title: 'Поездка на море', text: 'Смотрите, какой закат!' }).toString()}`,
        );
        await visible(open.page.getByRole('heading', { level: 1 }));
        await screenshot(open.page, `share/share-ru-${size}`);
      }
    },
    90_000,
  );
});
