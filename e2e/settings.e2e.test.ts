// The account settings (product spec §2 "Account settings", §4, §5, §6) and the signup's name: every
// tab at phone and desktop size with axe and a screenshot, then each setting changed in the browser
// and its effect seen where it shows: the name in the navigation, the picture, signing in with a new
// password, the interface language, the digest frequency on the server, where `/` leads, the dark
// colours, and the API key reset and account deletion signing out (another tab included).
//
// Viewports: every tab at both; the signup, profile, language and theme at desktop; notifications,
// default group and the redirect at phone; the key reset and deletion at desktop.
import type { Dialog, Page } from 'playwright-core';
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
import { jpeg } from './pictures.js';
import { PASSWORD } from './people.js';
import { storySteps } from './steps.js';
import { gone, loaded, textOf, visible } from './wait.js';
import type { Browser } from 'playwright-core';

const GROUP_URL = /\/groups\/([0-9a-f-]{36})$/;

/** A French text of the interface, as locales/fr_FR.json has it. */
const french = (key: string): string => webText('fr_FR', key);
const TABS = [
  ['profile', 'Profile'],
  ['notifications', 'Notifications'],
  ['language', 'Language'],
  ['appearance', 'Appearance'],
  ['default-group', 'Default group'],
  ['account', 'Security'],
] as const;

interface Me {
  id: string;
  name: string;
  login: string;
  avatar: { id: string } | null;
  groups: { id: string; name: string }[];
  data: { default_group?: string; notification_emails?: string; lang?: string; theme?: string };
}

let kith: Kith;
let browser: Browser;
const opened: IsolatedPage[] = [];
/** Ana, who signs up in the first step and whose settings the story changes. */
const ana = { login: 'ana.settings@example.org', password: PASSWORD, key: '', id: '' };

beforeAll(async () => {
  kith = await startKith();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => undefined);
  await browser?.close();
  await kith?.stop();
}, 60_000);

async function open(viewport: Viewport): Promise<IsolatedPage> {
  const isolated = await newPage(browser, viewport);
  opened.push(isolated);
  return isolated;
}

async function login(login: string, password: string) {
  return api<{ api_key: string }>(kith, 'POST', '/login', { login, password });
}

async function me(key = ana.key): Promise<Me> {
  const answer = await api<Me>(kith, 'GET', '/me', undefined, key);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Signs in through the login form and waits for the group page it leads to. */
async function signIn(page: Page, password = ana.password): Promise<void> {
  await page.goto(`${kith.url}/login`);
  await page.getByLabel('E-mail').fill(ana.login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(GROUP_URL);
}

/** Opens a tab of the settings by its address and waits until it is the selected one. */
async function openTab(page: Page, tab: string, label: string): Promise<void> {
  await page.goto(`${kith.url}/users/${ana.id}/settings?tab=${tab}`);
  await visible(page.getByRole('tab', { name: label, selected: true }));
}

/** Waits for the success alert of a save, then for it to be dismissed so the next one is fresh. */
async function saved(page: Page): Promise<void> {
  const alert = page.getByText('Your settings were updated');
  await visible(alert);
  await page.getByRole('button', { name: 'Close' }).first().click();
  await gone(alert);
}

/** The names shown in the avatar menu of the navigation. */
async function navMenuText(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Account' }).click();
  const text = (await page.getByRole('banner').textContent()) ?? '';
  await page.keyboard.press('Escape');
  return text;
}

/** The mean of a CSS `rgb(r, g, b)` colour's channels, 0 (black) to 255 (white). */
function brightness(color: string): number {
  const channels = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  expect(channels).toHaveLength(3);
  return channels.reduce((sum, value) => sum + value, 0) / 3;
}

/** The `<html>` element's `lang` and `data-theme`, as the interface set them. */
function root(page: Page): Promise<{ lang: string; theme: string | null }> {
  return page.evaluate(() => {
    // Runs in the page.
    const html = (
      globalThis as unknown as { document: { documentElement: { lang: string; dataset: { theme?: string } } } }
    ).document.documentElement;
    return { lang: html.lang, theme: html.dataset.theme ?? null };
  });
}

/** Answers the next confirmation dialog, and records what it asked. */
function answerDialog(page: Page, accept: boolean, asked: string[]): void {
  page.once('dialog', (dialog: Dialog) => {
    asked.push(dialog.message());
    void (accept ? dialog.accept() : dialog.dismiss());
  });
}

const step = storySteps();

describe('account settings', () => {
  step(
    'signup asks for a name, and the name shows in the navigation',
    async () => {
      const { page, errors } = await open('desktop');
      await page.goto(kith.invitationUrl ?? '');
      await page.waitForURL(/\/signup\?inviteKey=/);
      await page.getByLabel('Your name').fill('  Ana Lima ');
      await page.getByLabel('E-mail').fill(ana.login);
      await page.getByLabel('Password').fill(ana.password);
      await screenshot(page, 'settings-signup-name-desktop');
      await page.getByRole('button', { name: 'Create my account and join' }).click();
      await page.waitForURL(GROUP_URL);
      expect(await navMenuText(page)).toContain('Ana Lima');

      const signedIn = await login(ana.login, ana.password);
      expect(signedIn.status).toBe(200);
      ana.key = signedIn.body.api_key;
      const account = await me();
      ana.id = account.id;
      expect(account.name).toBe('Ana Lima');
      expect(errors).toEqual([]);
    },
    120_000,
  );

  for (const viewport of ['phone', 'desktop'] as const) {
    step(
      `every tab at ${viewport} size passes axe, and is kept in the address`,
      async () => {
        const { page, errors } = await open(viewport);
        await signIn(page);
        for (const [tab, label] of TABS) {
          await openTab(page, tab, label);
          await visible(page.getByRole('tabpanel', { name: label }));
          expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
          expect(await accessibilityViolations(page), `${tab} at ${viewport}`).toEqual([]);
          await screenshot(page, `settings-${tab}-${viewport}`);
        }
        // Choosing a tab by click or arrow key writes it into the address.
        await page.getByRole('tab', { name: 'Profile' }).click();
        await page.waitForURL(/\?tab=profile$/);
        // On the focused tab (a busy machine may render again between the click and the key).
        await page.getByRole('tab', { name: 'Profile' }).press('ArrowRight');
        await page.waitForURL(/\?tab=notifications$/);
        await visible(page.getByRole('tab', { name: 'Notifications', selected: true }));
        expect(errors).toEqual([]);
      },
      180_000,
    );
  }

  step(
    "another user's settings address leads to one's own, and the groups menu links each group's settings",
    async () => {
      const { page, errors } = await open('phone');
      await signIn(page);
      await page.goto(`${kith.url}/users/0b7e5d1c-3a2f-4e6d-9c8b-7a6f5e4d3c2b/settings?tab=language`);
      await page.waitForURL(`${kith.url}/users/${ana.id}/settings?tab=language`);
      await visible(page.getByRole('tab', { name: 'Language', selected: true }));
      await page.getByRole('button', { name: /Settings of my groups/ }).click();
      const home = (await me()).groups[0];
      const link = page.getByRole('link', { name: home?.name ?? '' });
      expect(await link.getAttribute('href')).toBe(`/groups/${home?.id}/settings`);
      expect(errors).toEqual([]);
    },
    60_000,
  );

  step(
    'profile: a new name shows in the navigation at once; a refused save changes nothing',
    async () => {
      const { page, errors } = await open('desktop');
      await signIn(page);
      await openTab(page, 'profile', 'Profile');

      // Checked before sending: a blank name.
      await page.getByLabel('Name', { exact: true }).fill('   ');
      await page.getByRole('button', { name: 'Save' }).click();
      await visible(page.getByText('The name must be 1 to 128 characters long, without < or >.'));
      expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');

      // Refused by the server: another account's address. The server's reason shows, and the name
      // sent with it is not kept either.
      const ben = await api(kith, 'POST', '/signup', {
        login: 'ben.settings@example.org',
        password: PASSWORD,
        invite_key: (kith.invitationUrl ?? '').split('/').at(-1),
      });
      expect(ben.status).toBe(200);
      await page.getByLabel('Name', { exact: true }).fill('Not Kept');
      await page.getByLabel('E-mail (used to sign in)').fill('ben.settings@example.org');
      await page.getByRole('button', { name: 'Save' }).click();
      await visible(page.getByText('Another account already uses this e-mail address.'));
      expect((await me()).name).toBe('Ana Lima');
      expect(await navMenuText(page)).not.toContain('Not Kept');

      await page.getByLabel('E-mail (used to sign in)').fill(ana.login);
      await page.getByLabel('Name', { exact: true }).fill('  Ana Maria ');
      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      expect(await navMenuText(page)).toContain('Ana Maria');
      expect((await me()).name).toBe('Ana Maria');
      // The form shows what the server kept.
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ana Maria');
      // The 409 was provoked on purpose; it is the one console line allowed.
      expect(errors.filter((line) => !line.includes('409'))).toEqual([]);
    },
    90_000,
  );

  step(
    'profile: a picture is previewed as a centred square crop, then shows in the navigation',
    async () => {
      const { page, errors } = await open('desktop');
      await signIn(page);
      await openTab(page, 'profile', 'Profile');
      // A wide picture, so the crop is visible: the preview is square whatever the picture's shape.
      await page.locator('input[type="file"]').setInputFiles({
        name: 'wide.jpg',
        mimeType: 'image/jpeg',
        buffer: await jpeg(40, 900, 300),
      });
      const preview = page.getByRole('img', { name: 'Preview of the new picture, cropped as the others will see it' });
      await loaded(preview);
      const shape = await preview.evaluate((img) => {
        // Runs in the page: the preview <img> and its computed style.
        const element = img as unknown as { clientWidth: number; clientHeight: number };
        const style = (
          globalThis as unknown as { getComputedStyle(e: unknown): { objectFit: string; objectPosition: string } }
        ).getComputedStyle(img);
        return {
          width: element.clientWidth,
          height: element.clientHeight,
          fit: style.objectFit,
          at: style.objectPosition,
        };
      });
      // Square although the picture is three times wider than high, filled and centred.
      expect(shape.width).toBeGreaterThan(80);
      expect(shape.height).toBe(shape.width);
      expect({ fit: shape.fit, at: shape.at }).toEqual({ fit: 'cover', at: '50% 50%' });
      await screenshot(page, 'settings-avatar-preview-desktop');
      // Nothing is sent before Save.
      expect((await me()).avatar).toBeNull();

      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      const avatar = (await me()).avatar;
      expect(avatar).not.toBeNull();
      const navPicture = page.getByRole('banner').locator(`img[src*="/api/images/crop/"][src$="${avatar?.id}"]`);
      await loaded(navPicture);

      // Removing it: the navigation falls back to the initial.
      await page.getByRole('button', { name: 'Remove the picture' }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      expect((await me()).avatar).toBeNull();
      await gone(page.getByRole('banner').locator('img'));
      expect(errors).toEqual([]);
    },
    90_000,
  );

  step(
    'profile: the new password is checked, then signs in',
    async () => {
      const { page, errors } = await open('desktop');
      await signIn(page);
      await openTab(page, 'profile', 'Profile');
      const newPassword = 'a brand new secret';

      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('Repeat the new password').fill('short');
      await page.getByRole('button', { name: 'Save' }).click();
      await visible(page.getByText('The password must be 8 to 128 characters long.'));

      await page.getByLabel('New password', { exact: true }).fill(newPassword);
      await page.getByLabel('Repeat the new password').fill(`${newPassword}!`);
      await page.getByRole('button', { name: 'Save' }).click();
      await visible(page.getByText("Passwords don't match"));
      expect((await login(ana.login, ana.password)).status).toBe(200);

      await page.getByLabel('Repeat the new password').fill(newPassword);
      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      expect(await page.getByLabel('New password', { exact: true }).inputValue()).toBe('');
      ana.password = newPassword;

      // The old password is refused; a new browser signs in with the new one.
      expect((await login(ana.login, PASSWORD)).status).toBe(401);
      const other = await open('phone');
      await signIn(other.page, newPassword);
      expect(errors).toEqual([]);
      expect(other.errors).toEqual([]);
    },
    90_000,
  );

  step(
    'notifications: the digest frequency reaches the server',
    async () => {
      const { page, errors } = await open('phone');
      await signIn(page);
      await openTab(page, 'notifications', 'Notifications');
      await page.getByRole('radio', { name: 'Every week' }).check();
      // The tab has two forms, each with its own Save: what is e-mailed, and push.
      await page
        .locator('form', { has: page.getByRole('radio', { name: 'Every week' }) })
        .getByRole('button', { name: 'Save' })
        .click();
      await saved(page);
      expect((await me()).data.notification_emails).toBe('weekly');
      // Shown again as saved.
      await page.reload();
      expect(await page.getByRole('radio', { name: 'Every week' }).isChecked()).toBe(true);
      expect(errors).toEqual([]);
    },
    60_000,
  );

  step(
    'default group: `/` leads to the chosen group',
    async () => {
      const garden = await api<{ id: string }>(kith, 'POST', '/groups', { name: 'Garden' }, ana.key);
      expect(garden.status).toBe(201);
      const { page, errors } = await open('phone');
      await signIn(page);
      const home = (await me()).groups[0]?.id;
      expect(new URL(page.url()).pathname).toBe(`/groups/${home}`);

      await openTab(page, 'default-group', 'Default group');
      await page.getByLabel('Group opened when you arrive').selectOption({ label: 'Garden' });
      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      expect((await me()).data.default_group).toBe(garden.body.id);
      await page.goto(`${kith.url}/`);
      await page.waitForURL(`${kith.url}/groups/${garden.body.id}`);
      expect(errors).toEqual([]);
    },
    60_000,
  );

  step(
    'appearance: dark colours at once, kept in the account for every device',
    async () => {
      const { page, errors } = await open('desktop');
      await signIn(page);
      await openTab(page, 'appearance', 'Appearance');
      const background = () =>
        page.evaluate(() => {
          // Runs in the page.
          const g = globalThis as unknown as {
            document: { body: unknown; documentElement: { dataset: { theme?: string } } };
            getComputedStyle(e: unknown): { backgroundColor: string };
          };
          return {
            theme: g.document.documentElement.dataset.theme ?? null,
            color: g.getComputedStyle(g.document.body).backgroundColor,
          };
        });
      const light = await background();
      expect(light.theme).toBeNull();

      await page.getByRole('radio', { name: 'Dark' }).check();
      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      // The dark palette, whatever its exact tokens: a background far darker than the light one.
      const dark = await background();
      expect(dark.theme).toBe('dark');
      expect(brightness(dark.color)).toBeLessThan(60);
      expect(brightness(light.color)).toBeGreaterThan(180);
      expect((await me()).data.theme).toBe('dark');
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, 'settings-appearance-dark-desktop');

      // Another device (a new browser context) opens in dark too, from the account.
      const phone = await open('phone');
      await signIn(phone.page);
      await expect.poll(async () => (await root(phone.page)).theme).toBe('dark');
      await phone.page.goto(`${kith.url}/users/${ana.id}/settings?tab=profile`);
      await visible(phone.page.getByRole('tab', { name: 'Profile', selected: true }));
      expect(await accessibilityViolations(phone.page)).toEqual([]);
      await screenshot(phone.page, 'settings-profile-dark-phone');

      await page.getByRole('radio', { name: 'Light' }).check();
      await page.getByRole('button', { name: 'Save' }).click();
      await saved(page);
      expect((await background()).theme).toBe('light');
      expect((await background()).color).toBe(light.color);
      expect(errors).toEqual([]);
      expect(phone.errors).toEqual([]);
    },
    90_000,
  );

  step(
    'language: saving switches the interface at once, languages named in themselves',
    async () => {
      const { page, errors } = await open('desktop');
      await signIn(page);
      await openTab(page, 'language', 'Language');
      const select = page.getByLabel('Language of the interface');
      const names = await select.locator('option').allTextContents();
      expect(names).toHaveLength(15);
      expect(names).toEqual(expect.arrayContaining(['Deutsch', 'Français', '한국어', 'தமிழ்', 'ⵜⴰⵎⴰⵣⵉⵖⵜ', '简体中文']));
      expect(await select.inputValue()).toBe('en_US');

      await select.selectOption({ label: 'Français' });
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(async () => (await root(page)).lang).toBe('fr-FR');
      expect((await me()).data.lang).toBe('fr_FR');
      // The interface itself is in French at once, without a reload.
      await visible(page.getByRole('heading', { level: 1, name: french('settings.title') }));
      await visible(page.getByRole('tab', { name: french('settings.tab_language') }));
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, 'settings-language-fr-desktop');
      const phone = await open('phone');
      await signIn(phone.page);
      await phone.page.goto(`${kith.url}/users/${ana.id}/settings?tab=profile`);
      await expect.poll(async () => (await root(phone.page)).lang).toBe('fr-FR');
      await visible(phone.page.getByRole('tab', { name: french('settings.tab_profile') }));
      await screenshot(phone.page, 'settings-profile-fr-phone');

      // And back: the select shows the saved language after a reload.
      await page.reload();
      const frenchSelect = page.getByLabel(french('settings.language'));
      await textOf(frenchSelect.locator('option:checked')).toBe('Français');
      await frenchSelect.selectOption({ label: 'English' });
      await page.getByRole('button', { name: french('settings.save') }).click();
      await expect.poll(async () => (await root(page)).lang).toBe('en-US');
      await visible(page.getByRole('heading', { level: 1, name: 'Settings' }));
      expect(errors).toEqual([]);
      expect(phone.errors).toEqual([]);
    },
    90_000,
  );

  step(
    'security: resetting the API key asks first, then signs out here and in another tab',
    async () => {
      const { context, page, errors } = await open('desktop');
      await signIn(page);
      // A second tab of the same browser: it shares the stored key.
      const other = await context.newPage();
      await other.goto(`${kith.url}/`);
      await other.waitForURL(GROUP_URL);
      const oldKey = (await login(ana.login, ana.password)).body.api_key;

      await openTab(page, 'account', 'Security');
      const asked: string[] = [];
      answerDialog(page, false, asked);
      await page.getByRole('button', { name: 'Reset the API key' }).click();
      await expect.poll(() => asked.length).toBe(1);
      expect(asked[0]).toContain('signed out on every device');
      expect((await api(kith, 'GET', '/me', undefined, oldKey)).status).toBe(200);

      answerDialog(page, true, asked);
      await page.getByRole('button', { name: 'Reset the API key' }).click();
      await page.waitForURL((url) => url.pathname === '/login');
      // The other tab is sent to the sign-in page by its next request, with the page it was on as ?next=.
      await other.waitForURL((url) => url.pathname === '/login');
      expect((await api(kith, 'GET', '/me', undefined, oldKey)).status).toBe(401);
      // Signing in again gives the new key.
      const again = await login(ana.login, ana.password);
      expect(again.status).toBe(200);
      expect(again.body.api_key).not.toBe(oldKey);
      ana.key = again.body.api_key;
      // The other tab's calls with the old key were refused (401) on purpose.
      expect(errors.filter((line) => !line.includes('401'))).toEqual([]);
    },
    90_000,
  );

  step(
    'security: deleting the account asks "are you sure", then ends on /login and the credentials fail',
    async () => {
      const { page, errors } = await open('desktop');
      await signIn(page);
      await openTab(page, 'account', 'Security');
      const asked: string[] = [];
      answerDialog(page, false, asked);
      await page.getByRole('button', { name: 'Delete my account' }).click();
      await expect.poll(() => asked.length).toBe(1);
      expect(asked[0]).toMatch(/^Are you sure\?/);
      expect((await login(ana.login, ana.password)).status).toBe(200);

      answerDialog(page, true, asked);
      await page.getByRole('button', { name: 'Delete my account' }).click();
      await page.waitForURL((url) => url.pathname === '/login');
      expect((await login(ana.login, ana.password)).status).toBe(401);
      expect((await api(kith, 'GET', '/me', undefined, ana.key)).status).toBe(401);
      expect(errors).toEqual([]);
    },
    60_000,
  );
});
