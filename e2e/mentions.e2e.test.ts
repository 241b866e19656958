// @mentions (issue 21): Ben types "@an" in the composer and picks Ana from the suggestions with the
// keyboard (1280 px) and with a tap (375 px); Ana sees the mention highlighted and a notification
// that opens the message; after she renames herself the mention shows her new name. axe on the
// open list, and one run in Korean.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { gone, visible } from './wait.js';

const MESSAGE_URL = /\/messages\/([0-9a-f-]{36})$/;

let kith: Kith;
let browser: Browser;
let ben: IsolatedPage; // desktop, 1280×800
let benPhone: IsolatedPage; // phone, 375×812
let ana: IsolatedPage; // phone, 375×812
let anaKey = '';
let anaId = '';
let benKey = '';
let benId = '';
let homeId = '';
let postId = '';

const textBox = (page: Page, name = 'Message') => page.getByRole('combobox', { name, exact: true });

describe('mentions', () => {
  const step = storySteps();

  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    const anaUp = await signUpApi(kith, 'ana@example.org');
    anaKey = anaUp.api_key;
    homeId = anaUp.group;
    anaId = (await api<{ id: string }>(kith, 'GET', '/me', undefined, anaKey)).body.id;
    benKey = (await signUpApi(kith, 'ben@example.org')).api_key;
    benId = (await api<{ id: string }>(kith, 'GET', '/me', undefined, benKey)).body.id;
    // Another member whose name holds "an", not at the start of a word: not suggested for "@an".
    await signUpApi(kith, 'dan@example.org');
    ben = await newPage(browser, 'desktop');
    benPhone = await newPage(browser, 'phone');
    ana = await newPage(browser, 'phone');
  });

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  });

  step('Ben types "@an": the suggestions list the members matching it, not himself (1280 px, axe)', async () => {
    const { page } = ben;
    await signIn(kith, page, 'ben@example.org');
    await page.goto(`${kith.url}/groups/${homeId}/write`);
    await visible(page.getByRole('heading', { name: 'New message in Home' }));
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Picnic');
    const field = textBox(page);
    await field.click();
    await field.pressSequentially('Who brings bread? @an');
    const list = page.getByRole('listbox', { name: 'People to mention' });
    await visible(list);
    expect(await field.getAttribute('aria-expanded')).toBe('true');
    // "dan" has "an" inside a word, not at its start: only ana is offered.
    expect(await list.getByRole('option').count()).toBe(1);
    await visible(list.getByRole('option', { name: 'ana', exact: true }));
    expect(await field.getAttribute('aria-activedescendant')).toBe(
      await list.getByRole('option', { name: 'ana' }).getAttribute('id'),
    );
    await page.screenshot({ path: '/tmp/mentions-list-1280.png' });
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  step('Escape closes the list only; ArrowDown and Enter insert the name and it is sent by id', async () => {
    const { page } = ben;
    const field = textBox(page);
    const list = page.getByRole('listbox', { name: 'People to mention' });
    await field.press('Escape');
    await gone(list);
    await visible(field);
    // Typing on reopens it for a new @.
    await field.press('Backspace');
    await field.press('Backspace');
    await field.press('Backspace');
    await field.pressSequentially('@an');
    await visible(list);
    await field.press('ArrowDown');
    await field.press('ArrowUp');
    await field.press('Enter');
    await gone(list);
    expect(await field.inputValue()).toBe('Who brings bread? @ana ');
    await field.pressSequentially('thanks!');
    const sent = page.waitForResponse((r) => r.url().endsWith('/api/messages') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const body = (await (await sent).request().postDataJSON()) as { mentions: string[] };
    expect(body.mentions).toEqual([anaId]);
    await page.waitForURL(MESSAGE_URL);
    postId = MESSAGE_URL.exec(page.url())?.[1] ?? '';
    const mention = page.locator(`[data-mention="${anaId}"]`);
    await visible(mention);
    expect(await mention.textContent()).toBe('@ana');
    expect(ben.errors).toEqual([]);
  });

  step('with a tap at 375 px, in a reply', async () => {
    const { page } = benPhone;
    await signIn(kith, page, 'ben@example.org');
    await page.goto(`${kith.url}/messages/${postId}`);
    const field = textBox(page, 'Reply');
    await field.click();
    await field.pressSequentially('Also @an');
    const list = page.getByRole('listbox', { name: 'People to mention' });
    await visible(list);
    await page.screenshot({ path: '/tmp/mentions-list-375.png' });
    expect(await accessibilityViolations(page)).toEqual([]);
    await list.getByRole('option', { name: 'ana' }).tap();
    await gone(list);
    expect(await field.inputValue()).toBe('Also @ana ');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await visible(page.locator(`[data-mention="${anaId}"]`).nth(1));
    expect(benPhone.errors).toEqual([]);
  });

  step('Ana sees herself highlighted, and a notification that opens the message', async () => {
    const { page } = ana;
    await signIn(kith, page, 'ana@example.org');
    await page.getByRole('button', { name: /^Notifications/ }).click();
    const entry = page.getByRole('button', { name: 'ben mentioned you in “Picnic” in Home' }).first();
    await visible(entry);
    await page.screenshot({ path: '/tmp/mentions-notification-375.png' });
    await entry.click();
    await page.waitForURL(new RegExp(`/messages/${postId}`));
    const mention = page.locator(`[data-mention="${anaId}"]`).first();
    await visible(mention);
    // Her own mention stands out more than another's: a class of its own.
    expect(await mention.getAttribute('class')).toMatch(/mentionMe/);
    await page.screenshot({ path: '/tmp/mentions-rendered-375.png' });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(ana.errors).toEqual([]);
  });

  step('after Ana renames herself, the mention shows her new name; the text is unchanged', async () => {
    const renamed = await api(kith, 'PUT', `/users/${anaId}`, { name: 'Ana Silva' }, anaKey);
    expect(renamed.status).toBe(200);
    const { page } = ben;
    await page.goto(`${kith.url}/messages/${postId}`);
    const mention = page.locator(`[data-mention="${anaId}"]`).first();
    await visible(mention);
    expect(await mention.textContent()).toBe('@Ana Silva');
    expect(await mention.getAttribute('class')).not.toMatch(/mentionMe/);
    await page.screenshot({ path: '/tmp/mentions-rendered-1280.png' });
    const stored = await api<{ data: { text: string } }>(kith, 'GET', `/messages/${postId}`, undefined, benKey);
    expect(stored.body.data.text).toBe('Who brings bread? @ana thanks!');
  });

  step('in Korean the list is named in Korean and passes axe', async () => {
    const res = await api(kith, 'PUT', `/users/${benId}`, { data: { lang: 'ko_KR' } }, benKey);
    expect(res.status).toBe(200);
    const ko = await newPage(browser, 'phone');
    await signIn(kith, ko.page, 'ben@example.org');
    await ko.page.goto(`${kith.url}/messages/${postId}`);
    const field = ko.page.getByRole('combobox').last();
    await field.click();
    await field.pressSequentially('@sil');
    const list = ko.page.getByRole('listbox', { name: '언급할 사람' });
    await visible(list);
    expect(await list.getByRole('option').count()).toBe(1);
    await visible(list.getByRole('option', { name: 'Ana Silva', exact: true }));
    await ko.page.screenshot({ path: '/tmp/mentions-ko-375.png' });
    expect(await accessibilityViolations(ko.page)).toEqual([]);
    expect(ko.errors).toEqual([]);
    await ko.context.close();
  });
});
