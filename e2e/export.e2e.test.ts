// Exports (issue 22): in the settings' "Your data" tab a member starts an export, sees it being
// prepared, then ready with its link (the job runs in the server), and downloads the zip. At 375
// and 1280 px with axe, by two members (one export per hour each), and once in Russian.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yauzl from 'yauzl';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { jpeg, uploadJpeg } from './pictures.js';
import { loaded, visible } from './wait.js';

let kith: Kith;
let browser: Browser;

beforeAll(async () => {
  kith = await startKith();
  browser = await launchBrowser();
  for (const login of ['ana@example.org', 'ben@example.org', 'dasha@example.org']) {
    const person = await signUpApi(kith, login);
    const photo = await uploadJpeg(kith, person.api_key, await jpeg(40, 320, 240), 'garden.jpg');
    const posted = await api(
      kith,
      'POST',
      '/messages',
      {
        group: person.group,
        data: { title: `<b>${login}</b> says hello`, text: 'Written for the export.' },
        files: [photo.id],
      },
      person.api_key,
    );
    expect(posted.status).toBe(201);
    if (login.startsWith('dasha')) {
      const id = (await api<{ id: string }>(kith, 'GET', '/me', undefined, person.api_key)).body.id;
      expect((await api(kith, 'PUT', `/users/${id}`, { data: { lang: 'ru_RU' } }, person.api_key)).status).toBe(200);
    }
  }
}, 60_000);

/** Unzips `zip` into `folder` (entries are the server's own names: no path leaves the folder). */
function unzip(zip: Buffer, folder: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error !== null) return reject(error);
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (openError, stream) => {
          if (openError !== null) return reject(openError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            const target = path.join(folder, entry.fileName);
            void mkdir(path.dirname(target), { recursive: true })
              .then(() => writeFile(target, Buffer.concat(chunks)))
              .then(() => file.readEntry(), reject);
          });
        });
      });
      file.on('end', () => resolve());
      file.on('error', reject);
      file.readEntry();
    });
  });
}

afterAll(async () => {
  await browser?.close();
  await kith?.stop();
}, 60_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('exporting my data', () => {
  const cases = [
    { login: 'ana@example.org', viewport: 'phone' },
    { login: 'ben@example.org', viewport: 'desktop' },
  ] as const;
  for (const { login, viewport } of cases) {
    it(`starts an export, waits for it and downloads the zip (${viewport})`, async () => {
      const { context, page, errors } = await newPage(browser, viewport);
      cleanups.push(() => context.close());
      await signIn(kith, page, login);
      await page.goto(`${kith.url}/users/me/settings?tab=data`);
      await visible(page.getByRole('tab', { name: 'Your data', selected: true }));
      await visible(page.getByRole('heading', { name: 'Export my data' }));
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `export-start-${viewport}`);

      await page.getByRole('button', { name: 'Export my data' }).click();
      await visible(page.getByText(/^Your export is ready \(/));
      const link = page.getByRole('link', { name: 'Download the export' });
      await visible(link);
      await visible(page.getByText(/^Available until /));
      // The next export may start only in an hour.
      expect(await page.getByRole('button', { name: 'Export my data' }).isDisabled()).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `export-ready-${viewport}`);

      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toMatch(/^kith-export-\d{4}-\d{2}-\d{2}\.zip$/);
      const bytes = await readFile((await download.path()) ?? '');
      // A zip starts with its local file header's signature.
      expect(bytes.subarray(0, 4).toString('hex')).toBe('504b0304');
      expect(errors).toEqual([]);

      // Unzipped, the index opens from the disk: the title shown as typed, the photo from the zip.
      const folder = await mkdtemp(path.join(tmpdir(), 'kith-export-e2e-'));
      cleanups.push(() => rm(folder, { recursive: true, force: true }));
      await unzip(bytes, folder);
      await page.goto(pathToFileURL(path.join(folder, 'kith-export', 'index.html')).href);
      await visible(page.getByRole('heading', { name: `<b>${login}</b> says hello` }));
      await loaded(page.getByRole('img', { name: 'garden.jpg' }));
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `export-index-${viewport}`);
    }, 120_000);
  }

  it('reads in Russian', async () => {
    const { context, page, errors } = await newPage(browser, 'phone');
    cleanups.push(() => context.close());
    await signIn(kith, page, 'dasha@example.org');
    await page.goto(`${kith.url}/users/me/settings?tab=data`);
    await visible(page.getByRole('tab', { name: 'Ваши данные', selected: true }));
    await page.getByRole('button', { name: 'Выгрузить мои данные' }).click();
    await visible(page.getByRole('link', { name: 'Скачать выгрузку' }));
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'export-ready-ru-phone');
    expect(errors).toEqual([]);
  }, 120_000);
});
