// The everyday path in two browsers at once (issue 6): invitation → signup → post with a photo →
// the other comments → the notification badge updates live → read → edit → delete.
import type { Browser, Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { type IsolatedPage, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { jpeg } from './pictures.js';
import { storySteps } from './steps.js';
import { countOf, gone, loaded, textOf, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
let ana: IsolatedPage; // desktop
let ben: IsolatedPage; // phone

const badge = (page: Page) => page.getByTestId('unread-badge');

async function signUp(page: Page, inviteUrl: string, email: string): Promise<void> {
  await page.goto(inviteUrl);
  await page.waitForURL(/\/signup\?inviteKey=/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create my account and join' }).click();
  await page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
}

describe('two people in one group', () => {
  const step = storySteps();
  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    ana = await newPage(browser, 'desktop');
    ben = await newPage(browser, 'phone');
  });

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  });

  let inviteUrl = '';
  let messageUrl = '';

  step('the first person signs up from the setup link and finds the invitation link', async () => {
    expect(kith.invitationUrl).not.toBeNull();
    await signUp(ana.page, kith.invitationUrl ?? '', 'ana@example.org');
    await expect.poll(() => ana.page.getByRole('heading', { level: 1 }).textContent()).toBe('Home');
    await ana.page.getByRole('button', { name: 'Invite' }).click();
    inviteUrl = await ana.page.getByTestId('invite-link').inputValue();
    expect(inviteUrl).toMatch(new RegExp(`^${kith.url}/invitation/[0-9a-f-]{36}$`));
    await screenshot(ana.page, 'desktop-empty-feed');
    expect(await accessibilityViolations(ana.page)).toEqual([]);
  });

  step('the second person signs up through that link on a phone', async () => {
    await signUp(ben.page, inviteUrl, 'ben@example.org');
    await visible(ben.page.getByText('Nothing here yet.'));
    await screenshot(ben.page, 'phone-empty-feed');
    // The first person hears of the join live, and clears it with one call.
    await textOf(badge(ana.page)).toBe('1');
    await ana.page.getByRole('button', { name: /Notifications/ }).click();
    await visible(ana.page.getByRole('button', { name: 'ben joined Home' }));
    await ana.page.getByRole('button', { name: 'Mark all as read' }).click();
    await gone(badge(ana.page));
    await ana.page.keyboard.press('Escape');
  });

  step('posts a message with a photo', async () => {
    await ana.page.getByRole('link', { name: 'Write a message' }).click();
    await ana.page.waitForURL(/\/write$/);
    await ana.page.getByLabel('Title').fill('Beach day');
    await ana.page.getByLabel('Message').fill('Look at the sea! #summer');
    await ana.page
      .getByTestId('pick-images')
      .setInputFiles({ name: 'sea.jpg', mimeType: 'image/jpeg', buffer: await jpeg(40, 1200, 800) });
    const send = ana.page.getByRole('button', { name: 'Send' });
    await countOf(ana.page.locator('[data-status="ready"]')).toBe(1);
    await screenshot(ana.page, 'desktop-composer');
    expect(await accessibilityViolations(ana.page)).toEqual([]);
    await send.click();
    await ana.page.waitForURL(/\/messages\/[0-9a-f-]{36}$/);
    messageUrl = ana.page.url();
    await visible(ana.page.getByRole('heading', { name: 'Beach day' }));
    const image = ana.page.getByRole('button', { name: /Open the picture/ }).locator('img');
    await loaded(image);
    await screenshot(ana.page, 'desktop-message');
    // Back to the feed through the breadcrumbs, to be elsewhere when the comment comes.
    await ana.page
      .getByRole('navigation', { name: 'Where this message is' })
      .getByRole('link', { name: 'Home' })
      .click();
    await ana.page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
  });

  step('the other sees it arrive live, with a badge, and comments', async () => {
    // No reload: the card and the badge come through the live event stream.
    await visible(ben.page.getByRole('link', { name: /Beach day/ }));
    await textOf(badge(ben.page)).toBe('1');
    await screenshot(ben.page, 'phone-feed');
    expect(await accessibilityViolations(ben.page)).toEqual([]);
    await ben.page.getByRole('link', { name: /Beach day/ }).click();
    await ben.page.waitForURL(messageUrl);
    // Opening the message reads its notification.
    await gone(badge(ben.page));
    await ben.page.getByLabel('Reply').fill('Lovely!');
    await ben.page.getByRole('button', { name: 'Comment' }).click();
    await visible(ben.page.getByRole('region', { name: 'Comments' }).getByText('Lovely!'));
    await screenshot(ben.page, 'phone-message');
    expect(await accessibilityViolations(ben.page)).toEqual([]);
  });

  step('the author gets the notification live, reads it, and lands on the comment', async () => {
    await textOf(badge(ana.page)).toBe('1');
    // The card's comment icon is filled: there is something new in the thread.
    await visible(ana.page.getByLabel('1 comment, something new'));
    await screenshot(ana.page, 'desktop-feed');
    await ana.page.getByRole('button', { name: /Notifications/ }).click();
    await screenshot(ana.page, 'desktop-notifications');
    expect(await accessibilityViolations(ana.page)).toEqual([]);
    await ana.page.getByRole('button', { name: /ben commented on “Beach day”/ }).click();
    await ana.page.waitForURL(/\/messages\/[0-9a-f-]{36}\/[0-9a-f-]{36}$/);
    await gone(badge(ana.page));
    // The named comment is highlighted.
    const childId = ana.page.url().split('/').at(-1)!;
    await visible(ana.page.locator(`#comment-${childId}`).getByText('Lovely!'));
    expect(await ana.page.locator(`#comment-${childId}`).getAttribute('class')).toMatch(/highlighted/);
  });

  step('a comment written while the author reads the thread appears live and is read at once', async () => {
    await ben.page.getByLabel('Reply').fill('See you next summer');
    await ben.page.getByRole('button', { name: 'Comment' }).click();
    await visible(ana.page.getByRole('region', { name: 'Comments' }).getByText('See you next summer'));
    // The notification arrived and was marked read because its message is on screen; Ben's two
    // comments on one message are one entry of the panel.
    await ana.page.getByRole('button', { name: /Notifications/ }).click();
    await visible(ana.page.getByRole('button', { name: /ben commented on/ }));
    await countOf(ana.page.getByRole('button', { name: /ben commented on/ })).toBe(1);
    await gone(badge(ana.page));
    await ana.page.keyboard.press('Escape');
  });

  step('the author edits the message', async () => {
    await ana.page.goto(messageUrl);
    await ana.page.getByRole('button', { name: 'Message actions' }).first().click();
    await ana.page.getByRole('button', { name: 'Edit' }).click();
    const title = ana.page.getByLabel('Title').first();
    await title.fill('Beach day, again');
    await ana.page.getByRole('button', { name: 'Save' }).click();
    await visible(ana.page.getByRole('heading', { name: 'Beach day, again' }));
  });

  step('the other cannot edit or delete it', async () => {
    await ben.page.goto(messageUrl);
    await visible(ben.page.getByRole('heading', { name: 'Beach day, again' }));
    // On Ana's message Ben's menu holds only what every member may do (its public link): no edit, no delete.
    const menu = ben.page.locator('article').getByRole('button', { name: 'Message actions' });
    await countOf(menu).toBe(1);
    await menu.click();
    await visible(ben.page.getByRole('button', { name: 'Public link' }));
    expect(await ben.page.locator('article').getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await ben.page.locator('article').getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await ben.page.keyboard.press('Escape');
  });

  step('the author deletes it after confirming', async () => {
    ana.page.once('dialog', (dialog: Dialog) => void dialog.accept());
    await ana.page.getByRole('button', { name: 'Message actions' }).first().click();
    await ana.page.getByRole('button', { name: 'Delete' }).click();
    await ana.page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
    await visible(ana.page.getByText('Nothing here yet.'));
    expect([...ana.errors, ...ben.errors]).toEqual([]);
  });
});
