import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, newPage, screenshot, startKith, VIEWPORTS, type Kith } from './harness.js';

const TIMEOUT = 60_000;

// Checks the harness itself: the built server on a fresh database, Chromium, isolated contexts and
// screenshots. Scenarios of the web client live in their own `*.e2e.test.ts` files.
describe('e2e harness smoke test', () => {
  let kith: Kith;
  let browser: Browser;

  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  }, TIMEOUT);

  it(
    'captures the first-run invitation link, pointing at the server',
    async () => {
      expect(kith.invitationUrl).toMatch(/\/invitation\/[0-9a-f-]{36}$/);
      expect(kith.invitationUrl?.startsWith(`${kith.url}/invitation/`)).toBe(true);
      const info = await api<{ default_lang: string }>(kith, 'GET', '/info');
      expect(info.status).toBe(200);
      expect(info.body.default_lang).toBe('en_US');
    },
    TIMEOUT,
  );

  it(
    'serves the HTML page with its configuration meta tags',
    async () => {
      const { context, page } = await newPage(browser, 'desktop');
      try {
        const response = await page.goto(`${kith.url}/`);
        expect(response?.status()).toBe(200);
        expect(response?.headers()['content-type']).toMatch(/^text\/html/);
        expect(await page.locator('meta[name=kith-base-path]').getAttribute('content')).toBe('');
        expect(await page.locator('meta[name=kith-default-lang]').getAttribute('content')).toBe('en_US');
      } finally {
        await context.close();
      }
    },
    TIMEOUT,
  );

  it(
    'writes a screenshot at each viewport',
    async () => {
      for (const name of Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[]) {
        const { context, page } = await newPage(browser, name);
        try {
          await page.goto(`${kith.url}/`);
          expect(page.viewportSize()).toEqual(VIEWPORTS[name]);
          const file = await screenshot(page, `smoke-${name}`);
          const png = await readFile(file);
          expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
          // A full-page capture is at least as wide as the viewport.
          expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(VIEWPORTS[name].width);
        } finally {
          await context.close();
        }
      }
    },
    TIMEOUT,
  );

  it(
    'keeps two contexts apart: localStorage is not shared',
    async () => {
      const alice = await newPage(browser, 'desktop');
      const bob = await newPage(browser, 'phone');
      try {
        await alice.page.goto(`${kith.url}/`);
        await bob.page.goto(`${kith.url}/`);
        await alice.page.evaluate(() => localStorage.setItem('kith-e2e-smoke', 'alice'));
        expect(await alice.page.evaluate(() => localStorage.getItem('kith-e2e-smoke'))).toBe('alice');
        expect(await bob.page.evaluate(() => localStorage.getItem('kith-e2e-smoke'))).toBeNull();
      } finally {
        await alice.context.close();
        await bob.context.close();
      }
    },
    TIMEOUT,
  );
});
