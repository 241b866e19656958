// Screen details of issue 17 (part 4): visitors return where they were after signing in, card
// pictures for every kind of file, collapsed notifications, keyboard use (file-picker focus, Escape,
// the skip link), one h1 per page, and no link-preview call on a server that turned them off.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { PASSWORD, signIn, signUpApi } from './people.js';
import { countOf, gone, loaded, textOf, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
let anaKey = '';
let benKey = '';
let cidKey = '';
let home = '';

const ANA = 'ana@example.org';

async function post(key: string, body: object): Promise<string> {
  const answer = await api<{ id: string }>(kith, 'POST', '/messages', { group: home, ...body }, key);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id;
}

/** Uploads `bytes` as the client does and answers the file's id. */
async function upload(key: string, bytes: Buffer, name: string, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${kith.url}/api/files`, { method: 'POST', headers: { 'X-AUTH-TOKEN': key }, body: form });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** A one-second MP3 tone made with ffmpeg. */
function mp3(): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'kith-e2e-audio-'));
  try {
    const file = path.join(dir, 'tone.mp3');
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', file]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  // Link previews off: the scenario below checks that the client then never asks for one.
  kith = await startKith({ env: { LINK_PREVIEWS: 'false' } });
  browser = await launchBrowser();
  const ana = await signUpApi(kith, ANA);
  anaKey = ana.api_key;
  home = ana.group;
  benKey = (await signUpApi(kith, 'ben@example.org')).api_key;
  cidKey = (await signUpApi(kith, 'cid@example.org')).api_key;
  for (const [key, name] of [
    [anaKey, 'Ana'],
    [benKey, 'Ben'],
    [cidKey, 'Cid'],
  ] as const) {
    const me = await api<{ id: string }>(kith, 'GET', '/me', undefined, key);
    expect((await api(kith, 'PUT', `/users/${me.body.id}`, { name }, key)).status).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await kith?.stop();
}, 60_000);

/** Signs Ana in through the form and waits for her group page. */
async function signInAna(page: Page): Promise<void> {
  await signIn(kith, page, ANA);
  await page.waitForURL(/\/groups\//);
}

describe('visitors sign in and come back', () => {
  for (const viewport of ['phone', 'desktop'] as const) {
    it(`returns to the path, query and hash they opened, even after reloading /login (${viewport})`, async () => {
      const parent = await post(anaKey, { data: { title: 'Where we were', text: 'Come back here.' } });
      const child = await post(anaKey, { parent, data: { text: 'A comment' } });
      const { context, page, errors } = await newPage(browser, viewport);
      const wanted = `/messages/${parent}/${child}?focus=reply#reply`;
      await page.goto(`${kith.url}${wanted}`);
      await page.waitForURL((url) => url.pathname === '/login');
      expect(new URL(page.url()).searchParams.get('next')).toBe(wanted);
      // A reload loses router state, not the query.
      await page.reload();
      await visible(page.getByRole('heading', { name: 'Sign in' }));
      await screenshot(page, `details-login-next-${viewport}`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.getByLabel('E-mail').fill(ANA);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL((url) => url.pathname !== '/login');
      const back = new URL(page.url());
      expect(`${back.pathname}${back.search}${back.hash}`).toBe(wanted);
      await visible(page.getByText('Come back here.'));
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it('never follows a `next` that leaves the site', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const { context, page } = await newPage(browser, 'desktop');
      await page.goto(`${kith.url}/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel('E-mail').fill(ANA);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
      expect(new URL(page.url()).origin, next).toBe(kith.url);
      await context.close();
    }
  }, 60_000);
});

describe('card pictures', () => {
  let audioMessage = '';
  let pdfMessage = '';

  beforeAll(async () => {
    const audio = await upload(anaKey, mp3(), 'tone.mp3', 'audio/mpeg');
    audioMessage = await post(anaKey, { data: { title: 'A tone' }, files: [audio] });
    const pdfBytes = readFileSync(
      path.join(import.meta.dirname, '..', 'server', 'test', 'fixtures', 'first-page-dark-top.pdf'),
    );
    const pdf = await upload(anaKey, pdfBytes, 'report.pdf', 'application/pdf');
    pdfMessage = await post(anaKey, { data: { title: 'A report' }, files: [pdf] });
  }, 60_000);

  for (const viewport of ['phone', 'desktop'] as const) {
    it(`shows an icon for audio and the first page of a PDF, with no broken image (${viewport})`, async () => {
      const { context, page, errors } = await newPage(browser, viewport);
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
      });
      await signInAna(page);
      const audioCard = page.locator('article', { has: page.locator(`a[href$="/messages/${audioMessage}"]`) });
      const pdfCard = page.locator('article', { has: page.locator(`a[href$="/messages/${pdfMessage}"]`) });
      await visible(audioCard.getByRole('img', { name: 'Audio' }));
      expect(await audioCard.locator('img').count()).toBe(0);
      const pdfPicture = pdfCard.locator('img');
      await loaded(pdfPicture);
      expect(await pdfPicture.getAttribute('src')).toContain('/api/images/thumbnail/420/994/');
      // Every picture of the feed decoded: none is broken.
      for (const image of await page.locator('main article img').all()) await loaded(image);
      await screenshot(page, `details-file-cards-${viewport}`);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(missing).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }
});

describe('notifications', () => {
  it('collapses two people’s comments on one message into one entry, read as a whole', async () => {
    const message = await post(anaKey, { data: { title: 'Picnic plans' } });
    await post(benKey, { parent: message, data: { text: 'I bring bread' } });
    await post(cidKey, { parent: message, data: { text: 'I bring cheese' } });
    const { context, page, errors } = await newPage(browser, 'desktop');
    await signInAna(page);
    await page.getByRole('button', { name: /^Notifications/ }).click();
    const entries = page.locator('li', { hasText: 'commented' });
    await countOf(entries).toBe(1);
    await textOf(entries.locator('button').first()).toContain('Cid and Ben commented on “Picnic plans” in Home');
    await screenshot(page, 'details-notifications-desktop');
    await entries.locator('button').first().click();
    await page.waitForURL(new RegExp(`/messages/${message}/`));
    await expect
      .poll(async () => {
        const list = await api<{ type: string; read: boolean }[]>(kith, 'GET', '/me/notifications', undefined, anaKey);
        return list.body.filter((n) => n.type === 'new_comment' && !n.read).length;
      })
      .toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe('keyboard', () => {
  it('Tab reaches the composer’s Photos button with a visible focus ring', async () => {
    const { context, page, errors } = await newPage(browser, 'desktop');
    await signInAna(page);
    await page.goto(`${kith.url}/groups/${home}/write`);
    const photos = page.getByRole('button', { name: 'Photos' });
    await visible(photos);
    let reached = false;
    for (let presses = 0; presses < 40 && !reached; presses++) {
      await page.keyboard.press('Tab');
      reached = await photos.evaluate((button) => button === button.ownerDocument.activeElement);
    }
    expect(reached).toBe(true);
    const outline = await photos.evaluate((button) => {
      const style = button.ownerDocument.defaultView?.getComputedStyle(button);
      return { style: style?.outlineStyle, width: style?.outlineWidth };
    });
    expect(outline.style).not.toBe('none');
    expect(outline.width).not.toBe('0px');
    await screenshot(page, 'details-photos-focus-desktop');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  for (const viewport of ['phone', 'desktop'] as const) {
    it(`the skip link comes first and moves focus to the content; Escape closes a menu back to its button (${viewport})`, async () => {
      const { context, page, errors } = await newPage(browser, viewport);
      await signInAna(page);
      // A fresh page, so Tab starts from the top (not from where the sign-in button was).
      await page.reload();
      await visible(page.getByRole('heading', { level: 1, name: 'Home' }));
      await page.keyboard.press('Tab');
      const skip = page.getByRole('link', { name: 'Skip to content' });
      expect(await skip.evaluate((link) => link === link.ownerDocument.activeElement)).toBe(true);
      await screenshot(page, `details-skip-link-${viewport}`);
      await page.keyboard.press('Enter');
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement
              ?.id,
        ),
      ).toBe('main');

      const bell = page.getByRole('button', { name: /^Notifications/ });
      await bell.focus();
      await page.keyboard.press('Enter');
      const panel = page.getByRole('region', { name: 'Notifications' });
      await visible(panel);
      await page.keyboard.press('Escape');
      await gone(panel);
      expect(await bell.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it('every page has exactly one h1', async () => {
    const message = await post(anaKey, { data: { title: 'One heading', text: 'Just one.' } });
    const visitor = await newPage(browser, 'phone');
    for (const route of ['/login', '/signup', '/password-reset?mail=a%40b.c&key=k', '/stop-notification-emails']) {
      await visitor.page.goto(`${kith.url}${route}`);
      await visible(visitor.page.locator('h1').first());
      await countOf(visitor.page.locator('h1')).toBe(1);
    }
    await visitor.context.close();
    const { context, page } = await newPage(browser, 'desktop');
    await signInAna(page);
    for (const [route, ready] of [
      [`/groups/${home}`, 'main article'],
      [`/groups/${home}/write`, 'textarea'],
      [`/messages/${message}`, 'text=Just one.'],
      ['/create-group', 'input'],
    ] as const) {
      await page.goto(`${kith.url}${route}`);
      await visible(page.locator(ready).first());
      expect(await page.locator('h1').count(), route).toBe(1);
    }
    await context.close();
  }, 90_000);
});

describe('link previews turned off', () => {
  it('shows a plain link and never asks /api/links/by_url', async () => {
    const message = await post(anaKey, { data: { text: 'Look at https://example.com/page for the plan' } });
    const { context, page, errors } = await newPage(browser, 'desktop');
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/links/')) asked.push(request.url());
    });
    await signInAna(page);
    // The card waits for /api/info; once it has answered, the next frames show what the card did.
    const info = page.waitForResponse((response) => response.url() === `${kith.url}/api/info`);
    await page.goto(`${kith.url}/messages/${message}`);
    await info;
    await visible(page.getByRole('link', { name: 'https://example.com/page' }));
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const frame = (globalThis as unknown as { requestAnimationFrame: (next: () => void) => void })
            .requestAnimationFrame;
          frame(() => frame(() => resolve(null)));
        }),
    );
    expect(asked).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe('another script', () => {
  it('lays the file cards and the login screen out in Russian', async () => {
    const me = await api<{ id: string }>(kith, 'GET', '/me', undefined, anaKey);
    expect((await api(kith, 'PUT', `/users/${me.body.id}`, { data: { lang: 'ru_RU' } }, anaKey)).status).toBe(200);
    for (const viewport of ['phone', 'desktop'] as const) {
      const { context, page } = await newPage(browser, viewport);
      await signInAna(page);
      await visible(page.locator('main article').first());
      await expect
        .poll(() =>
          page.evaluate(
            () =>
              (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement
                .lang,
          ),
        )
        .toMatch(/^ru/);
      await screenshot(page, `details-feed-ru-${viewport}`);
      await context.close();
    }
    expect((await api(kith, 'PUT', `/users/${me.body.id}`, { data: { lang: 'en_US' } }, anaKey)).status).toBe(200);
  }, 60_000);
});
