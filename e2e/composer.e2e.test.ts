// The message composer (product spec §2 "Message composer", §4 "File upload" and "Message writer",
// §5, §8; docs/api §6.1, §7.1, §11.4): pasting an image, Ctrl+Enter, the empty message, cancelling
// a draft, uploads one at a time with the grid and "Remove", a refused upload, a video converting
// live, editing without losing the files, and the length limits. Seeding goes through the API.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Dialog, Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { jpeg, uploadJpeg } from './pictures.js';
import { countOf, gone, textOf, visible } from './wait.js';

const MESSAGE_URL = /\/messages\/([0-9a-f-]{36})$/;
const UPLOAD_ERROR = 'An error occurred during the upload';
const EMPTY_MESSAGE = 'The message is empty and cannot be sent.';
const VIDEO_NOT_READY = 'Video is not ready yet.';

interface FileObject {
  id: string;
  type: string;
  status: 'raw' | 'ready';
  name: string | null;
  fileIndex: number;
}

interface Message {
  id: string;
  data: { title?: string; text?: string };
  files: FileObject[];
}

interface Feed {
  messages: { id: string }[];
  totalItems: number;
}

let kith: Kith;
let browser: Browser;
let ana: IsolatedPage; // desktop, 1280×800
let anaKey = '';
let homeId = '';

/** Uploads a picture as Ana. */
async function upload(buffer: Buffer, name: string): Promise<string> {
  return (await uploadJpeg(kith, anaKey, buffer, name)).id;
}

async function getMessage(id: string): Promise<Message> {
  const answer = await api<Message>(kith, 'GET', `/messages/${id}`, undefined, anaKey);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function feedIds(): Promise<string[]> {
  const answer = await api<Feed>(kith, 'GET', `/groups/${homeId}/feed?limit=50`, undefined, anaKey);
  expect(answer.status).toBe(200);
  return answer.body.messages.map((message) => message.id);
}

/** Opens the write page of "Home" with the live event stream connected. */
async function openWriter(page: Page): Promise<void> {
  const stream = page.waitForResponse((res) => res.url().includes('/api/events'));
  await page.goto(`${kith.url}/groups/${homeId}/write`);
  await visible(page.getByRole('heading', { name: 'New message in Home' }));
  expect((await stream).status()).toBe(200);
}

const textBox = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const titleBox = (page: Page) => page.getByRole('textbox', { name: 'Title', exact: true });
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send', exact: true });
const composerFiles = (page: Page) => page.getByTestId('composer-files');
const alertWith = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });

async function sentMessageId(page: Page): Promise<string> {
  await page.waitForURL(MESSAGE_URL);
  return MESSAGE_URL.exec(page.url())?.[1] ?? '';
}

/** What the composer showed after one DOM change (recorded in the page by `recordComposer`). */
interface ComposerSample {
  /** Files waiting or uploading. */
  busy: number;
  uploading: number;
  /** The `data-status` of each file, in list order. */
  statuses: string[];
  /** The list says "Video is not ready yet.". */
  notReady: boolean;
  /** The Send button is disabled (null when there is none). */
  disabled: boolean | null;
}

/**
 * Records the composer's files and Send button after every DOM change, from inside the page, so
 * that states too short for polling (an upload of a few milliseconds) are seen as well.
 */
async function recordComposer(page: Page): Promise<void> {
  await page.evaluate((notReadyText) => {
    // Runs in the page.
    interface Node {
      textContent: string | null;
      querySelectorAll(selector: string): ArrayLike<Node & { getAttribute(name: string): string | null }>;
      querySelector(selector: string): (Node & { disabled: boolean; form: Node | null }) | null;
    }
    const w = globalThis as unknown as {
      document: Node & { body: unknown };
      MutationObserver: new (callback: () => void) => {
        observe(target: unknown, options: object): void;
        disconnect(): void;
      };
      composerSamples: ComposerSample[];
      composerObserver: { disconnect(): void };
    };
    w.composerSamples = [];
    const sample = () => {
      const form = w.document.querySelector('textarea[name="text"]')?.form ?? null;
      const button = form?.querySelector('button[type="submit"]') ?? null;
      const list = w.document.querySelector('[data-testid="composer-files"]');
      const statuses = Array.from(list?.querySelectorAll('[data-status]') ?? []).map(
        (item) => item.getAttribute('data-status') ?? '',
      );
      w.composerSamples.push({
        busy: statuses.filter((status) => status === 'initial' || status === 'uploading').length,
        uploading: statuses.filter((status) => status === 'uploading').length,
        statuses,
        notReady: (list?.textContent ?? '').includes(notReadyText),
        disabled: button === null ? null : button.disabled,
      });
    };
    const observer = new w.MutationObserver(sample);
    w.composerObserver = observer;
    observer.observe(w.document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  }, VIDEO_NOT_READY);
}

/** Stops `recordComposer` and answers what it saw. */
async function composerRecord(page: Page): Promise<ComposerSample[]> {
  return page.evaluate(() => {
    // Runs in the page.
    const w = globalThis as unknown as { composerSamples: ComposerSample[]; composerObserver: { disconnect(): void } };
    w.composerObserver.disconnect();
    return w.composerSamples;
  });
}

const isUploadRequest = (request: Request) =>
  request.method() === 'POST' && new URL(request.url()).pathname === '/api/files';

describe('the message composer', () => {
  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    expect(kith.invitationUrl).not.toBeNull();
    const signedUp = await signUpApi(kith, 'ana@example.org');
    anaKey = signedUp.api_key;
    homeId = signedUp.group;
    ana = await newPage(browser, 'desktop');
    await signIn(kith, ana.page, 'ana@example.org');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  }, 60_000);

  it('a pasted clipboard image becomes one pasted-….jpg file, sent as image/jpeg', async () => {
    const { page } = ana;
    await openWriter(page);
    const handled = await textBox(page).evaluate(async (element) => {
      // Runs in the page: a PNG drawn on a canvas, pasted on the text area.
      interface Canvas {
        width: number;
        height: number;
        getContext(kind: '2d'): { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void };
        toBlob(done: (blob: unknown) => void, type: string): void;
      }
      const w = globalThis as unknown as {
        document: { createElement(tag: 'canvas'): Canvas };
        File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
        DataTransfer: new () => { items: { add(file: unknown): unknown } };
        ClipboardEvent: new (
          type: string,
          init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean },
        ) => unknown;
      };
      const canvas = w.document.createElement('canvas');
      canvas.width = 120;
      canvas.height = 80;
      const context = canvas.getContext('2d');
      context.fillStyle = '#d04040';
      context.fillRect(0, 0, 120, 80);
      context.fillStyle = '#4040d0';
      context.fillRect(30, 20, 60, 40);
      const blob = await new Promise<unknown>((resolve) => canvas.toBlob(resolve, 'image/png'));
      const clipboardData = new w.DataTransfer();
      clipboardData.items.add(new w.File([blob], 'image.png', { type: 'image/png' }));
      const event = new w.ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true });
      // dispatchEvent answers false when a listener called preventDefault: the composer took the paste.
      return !(element as unknown as { dispatchEvent(event: unknown): boolean }).dispatchEvent(event);
    });
    expect(handled).toBe(true);

    await countOf(composerFiles(page).locator('li')).toBe(1);
    await countOf(composerFiles(page).locator('[data-status="ready"]')).toBe(1);
    const name = await composerFiles(page).locator('li').first().textContent();
    expect(name).toMatch(/pasted-\d+-1\.jpg/);
    // Pasting a file does not paste its name or anything else as text.
    expect(await textBox(page).inputValue()).toBe('');
    await screenshot(page, 'desktop-composer-pasted');

    await sendButton(page).click();
    const message = await getMessage(await sentMessageId(page));
    expect(message.files).toHaveLength(1);
    expect(message.files[0]?.type).toBe('image/jpeg');
    expect(message.files[0]?.name).toMatch(/^pasted-\d+-1\.jpg$/);
  }, 60_000);

  it('Ctrl+Enter in the text area sends the message', async () => {
    const { page } = ana;
    await openWriter(page);
    await titleBox(page).fill('Sent with the keyboard');
    await textBox(page).fill('No mouse needed');
    await textBox(page).press('Control+Enter');
    const message = await getMessage(await sentMessageId(page));
    expect(message.data).toMatchObject({ title: 'Sent with the keyboard', text: 'No mouse needed' });
    expect(message.files).toEqual([]);
    await visible(page.getByRole('heading', { name: 'Sent with the keyboard' }));
  }, 60_000);

  it('an empty message shows empty_message, stays on the write page and creates nothing', async () => {
    const { page } = ana;
    const before = await feedIds();
    await openWriter(page);
    const posts: string[] = [];
    const onRequest = (request: Request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/messages') posts.push(request.url());
    };
    page.on('request', onRequest);
    // Spaces alone do not count as text (§5).
    await titleBox(page).fill('   ');
    await textBox(page).fill('  \n ');
    await sendButton(page).click();
    await visible(alertWith(page, EMPTY_MESSAGE));
    // The keyboard path gives the same answer.
    await textBox(page).press('Control+Enter');
    await page.waitForTimeout(1000);
    page.off('request', onRequest);
    await countOf(alertWith(page, EMPTY_MESSAGE)).toBe(1);
    await screenshot(page, 'desktop-composer-empty');
    expect(new URL(page.url()).pathname).toBe(`/groups/${homeId}/write`);
    expect(posts).toEqual([]);
    expect(await feedIds()).toEqual(before);
  }, 60_000);

  it('Cancel with a draft asks first: dismissing keeps the text, accepting goes back to the group', async () => {
    const { page } = ana;
    const before = await feedIds();
    await openWriter(page);
    await textBox(page).fill('A draft I may keep');
    const questions: string[] = [];
    page.once('dialog', (dialog: Dialog) => {
      questions.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect.poll(() => questions).toEqual(['confirm: Drop the message you are writing?']);
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe(`/groups/${homeId}/write`);
    expect(await textBox(page).inputValue()).toBe('A draft I may keep');

    page.once('dialog', (dialog: Dialog) => {
      questions.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.waitForURL(`${kith.url}/groups/${homeId}`);
    expect(questions).toHaveLength(2);
    expect(await feedIds()).toEqual(before);
  }, 60_000);

  it('four photos: a grid, one upload at a time, Send disabled meanwhile; a removed one is not sent', async () => {
    const { page } = ana;
    await openWriter(page);
    await titleBox(page).fill('Four photos, one left out');

    await recordComposer(page);

    const events: { what: 'start' | 'answer'; at: number }[] = [];
    const onRequest = (request: Request) => {
      if (isUploadRequest(request)) events.push({ what: 'start', at: Date.now() });
    };
    const onResponse = (response: Response) => {
      if (isUploadRequest(response.request())) events.push({ what: 'answer', at: Date.now() });
    };
    page.on('request', onRequest);
    page.on('response', onResponse);

    const names = ['first.jpg', 'second.jpg', 'third.jpg', 'fourth.jpg'];
    const photos = await Promise.all(names.map((_, index) => jpeg(40 + index * 50, 1600, 1200)));
    await page
      .getByTestId('pick-images')
      .setInputFiles(
        names.map((name, index) => ({ name, mimeType: 'image/jpeg', buffer: photos[index] ?? Buffer.alloc(0) })),
      );
    const list = composerFiles(page);
    await countOf(list.locator('li')).toBe(4);
    expect(await list.getAttribute('class')).toMatch(/grid/);
    await countOf(list.locator('[data-status="ready"]'), 60_000).toBe(4);
    await expect.poll(() => events.length).toBe(8);
    page.off('request', onRequest);
    page.off('response', onResponse);
    const samples = await composerRecord(page);

    // Each upload starts only after the previous one was answered.
    expect(events.map((event) => event.what)).toEqual([
      'start',
      'answer',
      'start',
      'answer',
      'start',
      'answer',
      'start',
      'answer',
    ]);
    for (let i = 2; i < events.length; i += 2) {
      expect(events[i]?.at ?? 0).toBeGreaterThanOrEqual(events[i - 1]?.at ?? Infinity);
    }
    // The page never showed two uploads at once, and Send was disabled whenever a file was not uploaded.
    const whileBusy = samples.filter((s) => s.busy > 0);
    expect(whileBusy.length).toBeGreaterThan(0);
    expect(samples.filter((s) => s.uploading > 1)).toEqual([]);
    expect(whileBusy.filter((s) => s.disabled !== true)).toEqual([]);
    expect(samples.at(-1)).toMatchObject({ busy: 0, disabled: false });
    expect(await sendButton(page).isEnabled()).toBe(true);

    // The composer keeps the chosen order; "Remove" marks the second one, which can be put back.
    expect((await list.locator('li').allTextContents()).map((text) => /\w+\.jpg/.exec(text)?.[0])).toEqual(names);
    const second = list.locator('li').nth(1);
    await second.getByRole('button', { name: 'Remove' }).click();
    await second.getByRole('button', { name: 'Put back' }).click();
    await visible(second.getByRole('button', { name: 'Remove' }));
    expect(await second.getAttribute('class')).not.toMatch(/removed/);
    await second.getByRole('button', { name: 'Remove' }).click();
    await visible(second.getByRole('button', { name: 'Put back' }));
    expect(await second.getAttribute('class')).toMatch(/removed/);
    await screenshot(page, 'desktop-composer-grid');

    await sendButton(page).click();
    const message = await getMessage(await sentMessageId(page));
    expect(message.files.map((file) => file.name)).toEqual(['first.jpg', 'third.jpg', 'fourth.jpg']);
    expect(message.files.map((file) => file.fileIndex)).toEqual([0, 1, 2]);
    expect(message.files.every((file) => file.type === 'image/jpeg')).toBe(true);
  }, 90_000);

  it('a file the server refuses (415) shows error_upload and leaves the list', async () => {
    const { page } = ana;
    await openWriter(page);
    const refused = page.waitForResponse((res) => isUploadRequest(res.request()));
    await page.getByTestId('pick-images').setInputFiles({
      name: 'notes.txt',
      mimeType: 'image/jpeg',
      buffer: Buffer.from('These are plain words, not a picture.\n'),
    });
    const answer = await refused;
    expect(answer.status()).toBe(415);
    expect(((await answer.json()) as { code?: string }).code).toBe('unsupported_file_type');
    await visible(alertWith(page, UPLOAD_ERROR));
    await gone(composerFiles(page));
    await screenshot(page, 'desktop-composer-refused');
    // Nothing is left to send.
    expect(await sendButton(page).isEnabled()).toBe(true);
    await sendButton(page).click();
    await visible(alertWith(page, EMPTY_MESSAGE));
    expect(new URL(page.url()).pathname).toBe(`/groups/${homeId}/write`);
  }, 60_000);

  it('a video is "not ready yet" while it converts, becomes ready through the live event, and plays', async () => {
    const { page } = ana;
    const info = await api<{ upload: { video: boolean } }>(kith, 'GET', '/info');
    expect(info.status).toBe(200);
    await openWriter(page);
    if (!info.body.upload.video) {
      await visible(page.getByTestId('pick-images'));
      await countOf(page.getByTestId('pick-video')).toBe(0);
      return;
    }

    const dir = await mkdtemp(path.join(tmpdir(), 'kith-composer-'));
    let video: Buffer;
    try {
      const out = path.join(dir, 'clip.webm');
      await promisify(execFile)('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc=duration=2:size=320x240:rate=15',
        '-c:v',
        'libvpx',
        out,
      ]);
      video = await readFile(out);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    // A mark in the page: it must survive until the end, so nothing reloaded.
    await page.evaluate(() => {
      (globalThis as unknown as { composerMark: string }).composerMark = 'kept';
    });
    // The page must not ask for the file again: the change has to come through the live stream.
    const fileReads: string[] = [];
    const onRequest = (request: Request) => {
      if (/^\/api\/files\/./.test(new URL(request.url()).pathname)) fileReads.push(request.url());
    };
    page.on('request', onRequest);
    await recordComposer(page);
    await titleBox(page).fill('A short film');
    const uploaded = page.waitForResponse((res) => isUploadRequest(res.request()));
    await page.getByTestId('pick-video').setInputFiles({ name: 'clip.webm', mimeType: 'video/webm', buffer: video });
    const answer = await uploaded;
    expect(answer.status()).toBe(201);
    const file = (await answer.json()) as FileObject;
    expect(file.status).toBe('raw');

    const item = composerFiles(page).locator('li');
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
    await countOf(item.getByText(VIDEO_NOT_READY)).toBe(0);
    page.off('request', onRequest);
    const samples = await composerRecord(page);
    // The conversion can be quicker than a screenshot, so the recorder is the witness: the file was
    // raw with the not-ready text, and Send was usable then (a raw file can be sent).
    const raw = samples.filter((sample) => sample.statuses.join() === 'raw');
    expect(raw.length, JSON.stringify(samples)).toBeGreaterThan(0);
    expect(raw.every((sample) => sample.notReady && sample.disabled === false)).toBe(true);
    expect(samples.at(-1)).toMatchObject({ statuses: ['ready'], notReady: false });
    expect(fileReads).toEqual([]);
    await textOf(item).toMatch(/clip\.webm/);
    expect(await page.evaluate(() => (globalThis as unknown as { composerMark?: string }).composerMark)).toBe('kept');
    // The server agrees: it converted the file.
    const converted = await api<FileObject>(kith, 'GET', `/files/${file.id}`, undefined, anaKey);
    expect(converted.body).toMatchObject({ id: file.id, status: 'ready', type: 'video/mp4' });

    await sendButton(page).click();
    const message = await getMessage(await sentMessageId(page));
    expect(message.files.map((f) => f.id)).toEqual([file.id]);
    await visible(page.locator('main video'));
    await countOf(page.getByText(VIDEO_NOT_READY)).toBe(0);
    await screenshot(page, 'desktop-message-video');
  }, 120_000);

  it('editing only the text of a message with 2 photos keeps both photos', async () => {
    const { page } = ana;
    const first = await upload(await jpeg(30, 800, 600), 'left.jpg');
    const second = await upload(await jpeg(200, 800, 600), 'right.jpg');
    const posted = await api<Message>(
      kith,
      'POST',
      '/messages',
      { group: homeId, data: { title: 'Two photos', text: 'Before the edit' }, files: [first, second] },
      anaKey,
    );
    expect(posted.status).toBe(201);
    const id = posted.body.id;

    await page.goto(`${kith.url}/messages/${id}`);
    await visible(page.getByRole('heading', { name: 'Two photos' }));
    await page.getByRole('button', { name: 'Message actions' }).first().click();
    await page.getByRole('button', { name: 'Edit' }).click();
    // The writer starts with the message's files, both ready.
    await countOf(composerFiles(page).locator('[data-status="ready"]')).toBe(2);
    expect(await textBox(page).inputValue()).toBe('Before the edit');
    await textBox(page).fill('After the edit');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await visible(page.getByText('After the edit'));
    await gone(composerFiles(page));

    const message = await getMessage(id);
    expect(message.data).toMatchObject({ title: 'Two photos', text: 'After the edit' });
    expect(message.files.map((file) => file.id)).toEqual([first, second]);
  }, 60_000);

  it('the text area allows 50000 characters and the title 500', async () => {
    const { page } = ana;
    await openWriter(page);
    expect(await textBox(page).getAttribute('maxlength')).toBe('50000');
    expect(await titleBox(page).getAttribute('maxlength')).toBe('500');
    // The browser enforces them on typing.
    await titleBox(page).fill('t'.repeat(499));
    await titleBox(page).press('x');
    await titleBox(page).press('y');
    expect(await titleBox(page).inputValue()).toBe(`${'t'.repeat(499)}x`);
  }, 60_000);

  it('the page reported no errors but the refused upload', () => {
    const refused = `console error: Failed to load resource: the server responded with a status of 415 (Unsupported Media Type) (${kith.url}/api/files)`;
    expect(ana.errors.filter((error) => error !== refused)).toEqual([]);
    expect(ana.errors.filter((error) => error === refused)).toHaveLength(1);
  });
});
