// Outside the logged-in area (product spec §2, §6): visitors sent to /login, the error page, a
// failed login, the forgotten-password path through the e-mail, logout, invitations for members and
// visitors, stopping notification e-mails, and the read-only public page. Accounts, groups and
// messages are seeded through the API.
//
// Viewports: phone for the visitor redirect, the failed login, logout, the signed-in
// stop-notification-emails page, the visitor's invitation and the public page; desktop for the
// error page, the password reset, the member's invitation, the visitor's bad unsubscribe link and
// the signed-in view of the shared message.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  type IsolatedPage,
  type Kith,
  launchBrowser,
  newPage,
  outboxMails,
  screenshot,
  startKith,
  type Viewport,
} from './harness.js';
import { PASSWORD, signUpApi } from './people.js';
import { countOf, gone, textOf, visible } from './wait.js';

const GROUP_URL = /\/groups\/([0-9a-f-]{36})$/;
const SOME_UUID = '0b7e5d1c-3a2f-4e6d-9c8b-7a6f5e4d3c2b';

interface Me {
  id: string;
  name: string;
  groups: { id: string; name: string }[];
  data: { default_group?: string; notification_emails?: string };
}

let kith: Kith;
let browser: Browser;
let homeId = '';
let anaKey = '';
const opened: IsolatedPage[] = [];
/** Error lines that a test provoked on purpose and proved, left out of the final check. */
const expectedErrors = new Set<string>();

async function open(viewport: Viewport): Promise<IsolatedPage> {
  const isolated = await newPage(browser, viewport);
  opened.push(isolated);
  return isolated;
}

/** Fills the login form; the caller waits for where it leads. */
async function submitLogin(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function signIn(page: Page, login: string, password = PASSWORD): Promise<void> {
  await page.goto(`${kith.url}/login`);
  await submitLogin(page, login, password);
  await page.waitForURL(GROUP_URL);
}

async function me(key: string): Promise<Me> {
  const answer = await api<Me>(kith, 'GET', '/me', undefined, key);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** How many entries the page's origin keeps in localStorage. */
function storedEntries(page: Page): Promise<number> {
  // Runs in the page.
  return page.evaluate(() => (globalThis as unknown as { localStorage: { length: number } }).localStorage.length);
}

function pathOf(page: Page): string {
  return new URL(page.url()).pathname;
}

/** The line Chromium logs for a failed fetch, as `newPage` records it. */
function failedLoad(status: string, url: string): string {
  return `console error: Failed to load resource: the server responded with a status of ${status} (${url})`;
}

/** Mails are quoted-printable: soft line breaks and `=3D` undone, and `&amp;` of the HTML part. */
function decodeMail(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=3D/gi, '=')
    .replace(/&amp;/g, '&');
}

describe('outside the logged-in area', () => {
  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    expect(kith.invitationUrl).not.toBeNull();
    const ana = await signUpApi(kith, 'ana@example.org');
    anaKey = ana.api_key;
    homeId = ana.group;
  });

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  });

  it('sends a visitor from a group page and from / to /login (phone)', async () => {
    const { page } = await open('phone');
    await page.goto(`${kith.url}/groups/${SOME_UUID}`);
    // The way back rides along, to be followed once signed in (e2e/details.e2e.test.ts).
    await page.waitForURL(`${kith.url}/login?next=${encodeURIComponent(`/groups/${SOME_UUID}`)}`);
    await visible(page.getByRole('heading', { name: 'Sign in' }));
    await visible(page.getByLabel('Password', { exact: true }));
    await screenshot(page, 'phone-login');

    await page.goto(`${kith.url}/`);
    await page.waitForURL(`${kith.url}/login`);
    await visible(page.getByRole('heading', { name: 'Sign in' }));
  });

  it('shows the error page for an unknown route (desktop)', async () => {
    const { page } = await open('desktop');
    await page.goto(`${kith.url}/no/such/route`);
    await visible(page.getByText('Unexpected Application Error!'));
    expect(pathOf(page)).toBe('/no/such/route');
    await visible(page.getByText('404 Not Found'));
    await visible(page.getByRole('link', { name: 'Back to the start' }));
    await screenshot(page, 'desktop-not-found');
  });

  it('refuses a wrong password with an alert that goes away by itself (phone)', async () => {
    const { page, errors } = await open('phone');
    await page.goto(`${kith.url}/login`);
    await submitLogin(page, 'ana@example.org', 'not the password');
    const alert = page.getByRole('alert').or(page.getByRole('status')).filter({
      hasText: 'Invalid login and/or password',
    });
    await visible(alert);
    const shownAt = Date.now();
    await screenshot(page, 'phone-login-error');
    expect(pathOf(page)).toBe('/login');
    // Alerts last 5 s (product spec §9).
    await gone(alert, 8_000);
    const lasted = Date.now() - shownAt;
    expect(lasted).toBeGreaterThan(3_000);
    expect(pathOf(page)).toBe('/login');
    await visible(page.getByRole('heading', { name: 'Sign in' }));
    // The refused login is a 401 that Chromium logs; expected, and only that one.
    const refused = failedLoad('401 (Unauthorized)', `${kith.url}/api/login`);
    expect(errors).toEqual([refused]);
    expectedErrors.add(refused);
  });

  it('resets a forgotten password through the e-mailed link (desktop)', async () => {
    const cleo = await signUpApi(kith, 'cleo@example.org');
    const { page } = await open('desktop');
    await page.goto(`${kith.url}/login`);
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await visible(page.getByRole('heading', { name: 'Reset your password' }));
    await gone(page.getByLabel('Password', { exact: true }));
    await visible(page.getByLabel('E-mail'));
    await screenshot(page, 'desktop-forgot-password');

    const before = (await outboxMails(kith)).length;
    await page.getByLabel('E-mail').fill('Cleo@Example.org');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await visible(
      page
        .getByRole('status')
        .filter({ hasText: 'If an account uses this address, an e-mail with a link is on its way.' }),
    );

    // The mail is queued: wait for it in the outbox.
    let link = '';
    const pattern = new RegExp(`${kith.url}/password-reset\\?mail=[^\\s"<>]+`);
    await expect
      .poll(
        async () => {
          const mails = (await outboxMails(kith)).slice(before).map(decodeMail);
          const mail = mails.find((text) => pattern.test(text) && /^To:.*cleo@example\.org/im.test(text));
          link = mail === undefined ? '' : (pattern.exec(mail)?.[0] ?? '');
          return link;
        },
        { timeout: 15_000 },
      )
      .not.toBe('');
    const url = new URL(link);
    expect(url.searchParams.get('mail')).toBe('cleo@example.org');
    expect(url.searchParams.get('key')).toMatch(/^[\w-]{20,}$/);

    await page.goto(link);
    await visible(page.getByRole('heading', { name: 'Choose a new password' }));
    await visible(page.getByText('cleo@example.org'));
    await screenshot(page, 'desktop-password-reset');
    await page.getByLabel('New password', { exact: true }).fill('a brand new secret');
    await page.getByLabel('Repeat the new password').fill('a different secret');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await visible(page.getByRole('alert').filter({ hasText: "Passwords don't match" }));
    expect(pathOf(page)).toBe('/password-reset');

    await page.getByLabel('Repeat the new password').fill('a brand new secret');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.waitForURL(GROUP_URL);
    expect(GROUP_URL.exec(page.url())?.[1]).toBe(cleo.group);
    await textOf(page.getByRole('heading', { level: 1 })).toBe('Home');
    await visible(page.getByRole('status').filter({ hasText: 'Your password was changed.' }));

    const old = await api(kith, 'POST', '/login', { login: 'cleo@example.org', password: PASSWORD });
    expect(old.status).toBe(401);
    const fresh = await api<{ api_key: string }>(kith, 'POST', '/login', {
      login: 'cleo@example.org',
      password: 'a brand new secret',
    });
    expect(fresh.status).toBe(200);
    // The reset rotated the key (docs/api §3.5).
    expect(fresh.body.api_key).not.toBe(cleo.api_key);
  });

  it('signs out from the avatar menu, clearing local storage (phone)', async () => {
    const { page } = await open('phone');
    await signIn(page, 'ana@example.org');
    expect(await storedEntries(page)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Account' }).click();
    const signOut = page.getByRole('link', { name: 'Sign out' });
    await visible(signOut);
    await screenshot(page, 'phone-account-menu');
    await signOut.click();
    await page.waitForURL(`${kith.url}/login`);
    await visible(page.getByRole('heading', { name: 'Sign in' }));
    expect(await storedEntries(page)).toBe(0);

    await page.goto(`${kith.url}/`);
    await page.waitForURL(`${kith.url}/login`);
    await visible(page.getByRole('heading', { name: 'Sign in' }));
    expect(await storedEntries(page)).toBe(0);
  });

  it('joins a member through /invitation/{key} and sends a visitor to the signup', async () => {
    const dan = await signUpApi(kith, 'dan@example.org');
    const group = await api<{ id: string; secretKey: string }>(
      kith,
      'POST',
      '/groups',
      { name: 'Book club' },
      dan.api_key,
    );
    expect(group.status).toBe(201);
    const { id: bookClubId, secretKey } = group.body;
    expect((await me(anaKey)).groups.map((g) => g.id)).toEqual([homeId]);

    // A signed-in member of another group (desktop) joins and goes to /, which opens their default group.
    const member = await open('desktop');
    await signIn(member.page, 'ana@example.org');
    await member.page.goto(`${kith.url}/invitation/${secretKey}`);
    await member.page.waitForURL(GROUP_URL);
    expect(GROUP_URL.exec(member.page.url())?.[1]).toBe(homeId);
    const groups = (await me(anaKey)).groups;
    expect(groups.map((g) => g.id)).toEqual([homeId, bookClubId]);
    // The client knows it too: the groups menu lists the new group.
    await member.page.getByRole('button', { name: 'Home' }).click();
    await visible(member.page.getByRole('navigation', { name: 'Groups' }).getByRole('link', { name: 'Book club' }));
    await screenshot(member.page, 'desktop-after-invitation');

    // A visitor (phone) is sent to the signup with the key.
    const visitor = await open('phone');
    await visitor.page.goto(`${kith.url}/invitation/${secretKey}`);
    await visitor.page.waitForURL(`${kith.url}/signup?inviteKey=${secretKey}`);
    await visible(visitor.page.getByRole('heading', { name: 'Sign up' }));
    await visible(visitor.page.getByRole('button', { name: 'Create my account and join' }));
    await screenshot(visitor.page, 'phone-signup-invitation');
  });

  it('stops notification e-mails for a signed-in user; a bad token shows an error', async () => {
    const user = await me(anaKey);
    const daily = await api<Me>(kith, 'PUT', `/users/${user.id}`, { data: { notification_emails: 'daily' } }, anaKey);
    expect(daily.status).toBe(200);
    expect(daily.body.data.notification_emails).toBe('daily');

    // Signed in (phone).
    const member = await open('phone');
    await signIn(member.page, 'ana@example.org');
    await member.page.goto(`${kith.url}/stop-notification-emails`);
    await visible(member.page.getByText('E-mail notifications stopped!'));
    await screenshot(member.page, 'phone-stop-emails');
    expect((await me(anaKey)).data.notification_emails).toBe('none');

    // A visitor with a forged token (desktop).
    const visitor = await open('desktop');
    await visitor.page.goto(`${kith.url}/stop-notification-emails/${user.id}/1.bad`);
    await visible(visitor.page.getByText('An error occurred'));
    await countOf(visitor.page.getByText('E-mail notifications stopped!')).toBe(0);
    await screenshot(visitor.page, 'desktop-stop-emails-error');
    // The refused token is a 400 that Chromium logs; expected, and only that one.
    const refused = failedLoad('400 (Bad Request)', `${kith.url}/api/stop-notification-emails/${user.id}/1.bad`);
    expect(visitor.errors).toEqual([refused]);
    expectedErrors.add(refused);
    // Someone else's e-mails did not change.
    expect((await me(anaKey)).data.notification_emails).toBe('none');
  });

  it('shows a shared message read-only on its public page, without author, avatar or actions', async () => {
    const created = await api<{ id: string }>(
      kith,
      'POST',
      '/messages',
      { group: homeId, data: { title: 'Picnic on Sunday', text: 'Bring a blanket and something to share.' } },
      anaKey,
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const link = await api<{ token: string; url: string }>(
      kith,
      'GET',
      `/messages/${id}/get-public-link`,
      undefined,
      anaKey,
    );
    expect(link.status).toBe(200);
    expect(link.body.url).toBe(`${kith.url}/public/${link.body.token}`);

    const avatars = '[class*="_avatar_"]';
    // The same message seen by its author (desktop) has all of these, so their absence below means something.
    const author = await open('desktop');
    await signIn(author.page, 'ana@example.org');
    await author.page.goto(`${kith.url}/messages/${id}`);
    const article = author.page.locator('main article');
    await visible(article.getByRole('heading', { name: 'Picnic on Sunday' }));
    await visible(article.getByText('ana', { exact: true }));
    expect(await article.locator(avatars).count()).toBe(1);
    expect(await article.getByRole('button', { name: 'Message actions' }).count()).toBe(1);
    await visible(author.page.getByRole('combobox', { name: 'Reply' }));

    // A visitor with no key (phone).
    const visitor = await open('phone');
    await visitor.page.goto(`${kith.url}/public/${link.body.token}`);
    await visible(visitor.page.getByRole('heading', { name: 'Picnic on Sunday' }));
    await visible(visitor.page.getByText('Bring a blanket and something to share.'));
    await visible(visitor.page.getByText('Shared with you from Kith.'));
    expect(await storedEntries(visitor.page)).toBe(0);
    expect(await visitor.page.getByText('ana', { exact: true }).count()).toBe(0);
    expect(await visitor.page.locator(avatars).count()).toBe(0);
    expect(await visitor.page.getByRole('button', { name: 'Message actions' }).count()).toBe(0);
    expect(await visitor.page.getByRole('textbox').count()).toBe(0);
    expect(await visitor.page.getByRole('button', { name: 'Comment' }).count()).toBe(0);
    await screenshot(visitor.page, 'phone-public-message');
  });

  it('no page or console errors besides the refusals proved above', () => {
    expect(expectedErrors.size).toBe(2);
    const errors = opened.flatMap((isolated) => isolated.errors).filter((line) => !expectedErrors.has(line));
    expect(errors).toEqual([]);
  });
});
