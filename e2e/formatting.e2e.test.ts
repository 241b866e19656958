// Light formatting (issue 20; common/src/markup.ts, docs/api "Text format"): a message written with
// the composer's toolbar and shortcuts (Ctrl+B, Ctrl+I, Ctrl+K, undo included) shows bold,
// italic, a list, a quote and a link on its page, and its feed card reads as plain text; the
// toolbar fits one row on a phone; the screens pass axe at 1280 and 375 px, in English and Russian.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, startKith } from './harness.js';
import { webTexts } from './locales.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { textOf, visible } from './wait.js';

const MESSAGE_URL = /\/messages\/([0-9a-f-]{36})$/;
const WRITTEN = [
  '**Picnic** on *Sunday*',
  '- milk',
  '- eggs',
  '> Be on time',
  '[the map](https://example.org/map_(north))',
].join('\n');

let kith: Kith;
let browser: Browser;
let desktop: IsolatedPage;
let anaKey = '';
let homeId = '';
let messageUrl = '';

const textBox = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const toolbar = (page: Page, name = 'Formatting') => page.getByRole('toolbar', { name });

/** Selects `[from, to)` of the composer's text, as a mouse or Shift+arrows would. */
async function select(page: Page, from: number, to: number): Promise<void> {
  await textBox(page).evaluate(
    (element, [start, end]) => {
      const field = element as unknown as { focus(): void; setSelectionRange(a: number, b: number): void };
      field.focus();
      field.setSelectionRange(start ?? 0, end ?? 0);
    },
    [from, to],
  );
}

/** Saves a screenshot outside the repository, for a person to look at. */
async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `/tmp/formatting-${name}.png`, fullPage: true });
}

/** Checks the rendered message on the page that shows it. */
async function expectRendered(page: Page): Promise<void> {
  // The message's text: the block that holds the quote.
  const text = page.locator('div:has(> blockquote)').first();
  await visible(text);
  await textOf(text.locator('strong').first()).toBe('Picnic');
  await textOf(text.locator('em').first()).toBe('Sunday');
  expect(await text.locator('ul > li').allTextContents()).toEqual(['milk', 'eggs']);
  await textOf(text.locator('blockquote').first()).toBe('Be on time');
  const link = page.getByRole('link', { name: 'the map' });
  expect(await link.getAttribute('href')).toBe('https://example.org/map_(north)');
  expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow ugc');
  expect(await text.innerText()).not.toContain('**');
}

const step = storySteps();

describe('light formatting', () => {
  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    const ana = await signUpApi(kith, 'ana@example.org');
    anaKey = ana.api_key;
    homeId = ana.group;
    desktop = await newPage(browser, 'desktop');
    await signIn(kith, desktop.page, 'ana@example.org');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  }, 60_000);

  step('the toolbar and the shortcuts write the markers, and Ctrl+Z undoes one (1280 px)', async () => {
    const { page } = desktop;
    await page.goto(`${kith.url}/groups/${homeId}/write`);
    await visible(toolbar(page));
    const field = textBox(page);
    await field.fill('Picnic');
    await select(page, 0, 6);
    await page.keyboard.press('Control+b');
    await expect.poll(() => field.inputValue()).toBe('**Picnic**');
    // The edit went through the browser's own editing: undo takes it back, redo brings it again.
    await page.keyboard.press('Control+z');
    await expect.poll(() => field.inputValue()).toBe('Picnic');
    await select(page, 0, 6);
    await toolbar(page).getByRole('button', { name: 'Bold' }).click();
    await expect.poll(() => field.inputValue()).toBe('**Picnic**');

    await page.keyboard.press('End');
    await page.keyboard.type(' on ');
    await page.keyboard.press('Control+i');
    await page.keyboard.type('Sunday');
    await page.keyboard.press('End');
    await page.keyboard.type('\nmilk\neggs');
    const value = await field.inputValue();
    await select(page, value.indexOf('milk'), value.length);
    await toolbar(page).getByRole('button', { name: 'Bulleted list' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await toolbar(page).getByRole('button', { name: 'Quote' }).click();
    await page.keyboard.type('Be on time\nthe map');
    const withMap = await field.inputValue();
    await select(page, withMap.length - 'the map'.length, withMap.length);
    await page.keyboard.press('Control+k');
    // The address is selected: typing replaces it.
    await page.keyboard.type('https://example.org/map_(north)');
    await expect.poll(() => field.inputValue()).toBe(WRITTEN);

    await shot(page, 'composer-1280');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(MESSAGE_URL);
    messageUrl = page.url();
    const id = MESSAGE_URL.exec(messageUrl)?.[1] ?? '';
    const stored = await api<{ data: { text: string } }>(kith, 'GET', `/messages/${id}`, undefined, anaKey);
    expect(stored.body.data.text).toBe(WRITTEN);
  });

  step('the message page shows bold, italic, the list, the quote and the link (1280 px)', async () => {
    const { page } = desktop;
    await expectRendered(page);
    await shot(page, 'message-1280');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  step('a comment has the toolbar too, below its growing field, and shows its formatting (1280 px)', async () => {
    const { page } = desktop;
    const reply = page.getByRole('combobox', { name: 'Reply', exact: true });
    await reply.fill('Thanks');
    const bar = toolbar(page);
    await visible(bar);
    await reply.evaluate((element) => {
      const field = element as unknown as { focus(): void; setSelectionRange(a: number, b: number): void };
      field.focus();
      field.setSelectionRange(0, 6);
    });
    await page.keyboard.press('Control+b');
    await expect.poll(() => reply.inputValue()).toBe('**Thanks**');
    const [fieldBox, barBox] = await Promise.all([reply.boundingBox(), bar.boundingBox()]);
    expect(barBox?.y ?? 0).toBeGreaterThan(fieldBox?.y ?? 0);
    await shot(page, 'comment-1280');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await textOf(page.locator('strong', { hasText: 'Thanks' }).first()).toBe('Thanks');
  });

  step('on a phone: the card reads as plain text, the page is formatted, the toolbar is one row (375 px)', async () => {
    const phone = await newPage(browser, 'phone');
    await signIn(kith, phone.page, 'ana@example.org');
    const { page } = phone;
    await page.goto(`${kith.url}/groups/${homeId}`);
    const card = page.getByRole('link', { name: /Picnic on Sunday/ });
    await visible(card);
    const cardText = await card.innerText();
    expect(cardText).toContain('Picnic on Sunday');
    expect(cardText).toContain('the map (https://example.org/map_(north))');
    expect(cardText).not.toContain('**');
    await shot(page, 'feed-375');
    expect(await accessibilityViolations(page)).toEqual([]);

    await card.click();
    await page.waitForURL(messageUrl);
    await expectRendered(page);
    await shot(page, 'message-375');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.goto(`${kith.url}/groups/${homeId}/write`);
    const bar = toolbar(page);
    await visible(bar);
    const buttons = await bar.getByRole('button').all();
    expect(buttons).toHaveLength(6);
    const boxes = await Promise.all(buttons.map((button) => button.boundingBox()));
    for (const box of boxes) {
      expect(box).not.toBeNull();
      // One row, every button whole on the 375 px screen, each a comfortable target.
      expect(box?.y).toBe(boxes[0]?.y);
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(375);
      expect(box?.height).toBeGreaterThanOrEqual(24);
    }
    await textBox(page).fill('Hello');
    await select(page, 0, 5);
    await buttons[1]?.tap();
    await expect.poll(() => textBox(page).inputValue()).toBe('*Hello*');
    await shot(page, 'composer-375');
    expect(await accessibilityViolations(page)).toEqual([]);
    await phone.context.close();
  });

  step('in Russian, the toolbar speaks Russian, at 375 and 1280 px', async () => {
    const ru = webTexts('ru_RU');
    // The language is the account's: set once through the API, then both sizes are looked at.
    const key = (await signUpApi(kith, 'boris@example.org')).api_key;
    const me = await api<{ id: string }>(kith, 'GET', '/me', undefined, key);
    expect((await api(kith, 'PUT', `/users/${me.body.id}`, { data: { lang: 'ru_RU' } }, key)).status).toBe(200);
    for (const size of ['phone', 'desktop'] as const) {
      const { page, context } = await newPage(browser, size);
      await signIn(kith, page, 'boris@example.org');
      await page.goto(messageUrl);
      await expectRendered(page);
      await shot(page, `message-ru-${size}`);
      await page.goto(`${kith.url}/groups/${homeId}/write`);
      const bar = toolbar(page, ru['format.toolbar']);
      await visible(bar);
      expect(await bar.getByRole('button').evaluateAll((all) => all.map((b) => b.getAttribute('aria-label')))).toEqual(
        ['bold', 'italic', 'bullets', 'numbers', 'quote', 'link'].map((key) => ru[`format.${key}`]),
      );
      await shot(page, `composer-ru-${size}`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await context.close();
    }
  });
});
