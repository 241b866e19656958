// Groups and the feed (product spec §2, §4): creating a group, where `/` lands, the feed's
// scrolling rule, random messages, publishing a reply, the comment window, breadcrumbs and the
// picture grid with its lightbox. Everything the screens do not test is seeded through the API.
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { jpeg, uploadJpeg } from './pictures.js';
import { countOf, gone, loaded, textOf, visible } from './wait.js';

const GROUP_URL = /\/groups\/([0-9a-f-]{36})$/;
const MESSAGE_URL = /\/messages\/([0-9a-f-]{36})$/;

interface Me {
  id: string;
  groups: { id: string; name: string }[];
  data: { default_group?: string };
}

let kith: Kith;
let browser: Browser;
let ana: IsolatedPage; // desktop, 1280×800
let anaKey = '';
let homeId = '';
const contexts: IsolatedPage[] = [];

async function createGroup(name: string, key = anaKey): Promise<string> {
  const answer = await api<{ id: string }>(kith, 'POST', '/groups', { name }, key);
  expect(answer.status).toBe(201);
  return answer.body.id;
}

async function post(group: string, data: { title?: string; text?: string }, extra: object = {}): Promise<string> {
  const answer = await api<{ id: string }>(kith, 'POST', '/messages', { group, data, ...extra }, anaKey);
  expect(answer.status).toBe(201);
  return answer.body.id;
}

async function me(key = anaKey): Promise<Me> {
  const answer = await api<Me>(kith, 'GET', '/me', undefined, key);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Breadcrumb labels are cut to 30 characters with an ellipsis (product spec §9). */
function cut(text: string): string {
  return text.length <= 30 ? text : `${text.slice(0, 30).trimEnd()}…`;
}

/** Uploads a picture as Ana; pictures are ready at once. */
async function upload(buffer: Buffer, name: string): Promise<string> {
  const file = await uploadJpeg(kith, anaKey, buffer, name);
  expect(file.status).toBe('ready');
  return file.id;
}

describe('groups and the feed', () => {
  beforeAll(async () => {
    kith = await startKith();
    browser = await launchBrowser();
    expect(kith.invitationUrl).not.toBeNull();
    const ana0 = await signUpApi(kith, 'ana@example.org');
    anaKey = ana0.api_key;
    homeId = ana0.group;
    ana = await newPage(browser, 'desktop');
    contexts.push(ana);
    await signIn(kith, ana.page, 'ana@example.org');
    await ana.page.waitForURL(GROUP_URL);
  });

  afterAll(async () => {
    await browser?.close();
    await kith?.stop();
  });

  let bookClubId = '';

  it('creates a group: an empty name does nothing, a name opens the new group', async () => {
    const { page } = ana;
    await page.goto(`${kith.url}/create-group`);
    const name = page.getByLabel('Name of the group');
    const submit = page.getByRole('button', { name: 'Create the group' });
    await visible(name);
    await screenshot(page, 'desktop-create-group');
    // Nothing typed (the browser's required check), then only spaces (the client's own check).
    await submit.click();
    await name.fill('   ');
    await submit.click();
    await page.waitForTimeout(1000);
    expect(new URL(page.url()).pathname).toBe('/create-group');
    expect((await me()).groups.map((group) => group.name)).toEqual(['Home']);

    await name.fill('Book club');
    await submit.click();
    await page.waitForURL(GROUP_URL);
    bookClubId = GROUP_URL.exec(page.url())?.[1] ?? '';
    const mine = await me();
    expect(mine.groups.map((group) => group.name)).toEqual(['Home', 'Book club']);
    expect(mine.groups[1]?.id).toBe(bookClubId);
    await textOf(page.getByRole('heading', { level: 1 })).toBe('Book club');

    // The groups dropdown shows the current group's name and lists both groups plus the create link.
    const dropdown = page.getByRole('button', { name: 'Book club' });
    await visible(dropdown);
    await dropdown.click();
    const list = page.getByRole('navigation', { name: 'Groups' });
    await visible(list);
    expect(await list.getByRole('link').allTextContents()).toEqual([
      'All my groups',
      'Home',
      'Book club',
      '+ create a group',
    ]);
    expect(await list.getByRole('link', { name: 'Book club' }).getAttribute('aria-current')).toBe('page');
    await screenshot(page, 'desktop-groups-dropdown');
    await page.keyboard.press('Escape');
    await gone(list);
  });

  it('`/` opens the default group, else the first group, else /create-group', async () => {
    const { page } = ana;
    const user = await me();
    expect(user.data.default_group).toBe(homeId);
    await page.goto(`${kith.url}/`);
    await page.waitForURL(GROUP_URL);
    expect(GROUP_URL.exec(page.url())?.[1]).toBe(homeId);

    // The default group wins over the first one.
    let change = await api(kith, 'PUT', `/users/${user.id}`, { data: { default_group: bookClubId } }, anaKey);
    expect(change.status).toBe(200);
    await page.goto(`${kith.url}/`);
    await page.waitForURL(GROUP_URL);
    expect(GROUP_URL.exec(page.url())?.[1]).toBe(bookClubId);

    // Without a default group, the first group (oldest joined).
    change = await api(kith, 'PUT', `/users/${user.id}`, { data: { default_group: null } }, anaKey);
    expect(change.status).toBe(200);
    expect((await me()).data.default_group ?? null).toBeNull();
    await page.goto(`${kith.url}/`);
    await page.waitForURL(GROUP_URL);
    expect(GROUP_URL.exec(page.url())?.[1]).toBe(homeId);

    // Someone who left their only group is asked to create one.
    const eve = await signUpApi(kith, 'eve@example.org');
    const left = await api(kith, 'POST', `/groups/${eve.group}/leave`, undefined, eve.api_key);
    expect(left.status).toBe(200);
    expect((await me(eve.api_key)).groups).toEqual([]);
    const phone = await newPage(browser, 'phone');
    contexts.push(phone);
    await signIn(kith, phone.page, 'eve@example.org');
    await phone.page.waitForURL(/\/create-group$/);
    await visible(phone.page.getByRole('heading', { name: 'Create a group' }));
    await screenshot(phone.page, 'phone-create-group');
    await phone.page.goto(`${kith.url}/`);
    await phone.page.waitForURL(/\/create-group$/);
    await phone.context.close();
  });

  let feedIds: string[] = [];
  let feedId = '';

  /** The group "Feed" with 45 messages, made once. */
  async function seedFeed(): Promise<void> {
    if (feedId !== '') return;
    feedId = await createGroup('Feed');
    feedIds = [];
    // Long texts make tall cards (6 lines shown), so that 15 cards already overflow the screen and
    // only scrolling can ask for more.
    const filler = 'We walked along the river, stopped for lunch in the village and came back by the old bridge. ';
    for (let n = 1; n <= 45; n++) {
      const number = String(n).padStart(2, '0');
      const text = `Message number ${n} of the feed. ${filler.repeat(4)}`;
      feedIds.push(await post(feedId, { title: `Feed message ${number}`, text }));
    }
  }

  /** Opens a screen that makes no `/api/groups/` call, so nothing is in flight when counting starts. */
  async function settle(page: Page): Promise<void> {
    await page.goto(`${kith.url}/create-group`);
    await visible(page.getByRole('heading', { name: 'Create a group' }));
  }

  const isNextPage = (request: Request) =>
    request.url().includes(`/api/groups/${feedId}/feed?`) && request.url().includes('cursor=');

  async function scrollToBottom(page: Page): Promise<void> {
    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 20_000);
  }

  it('loads the feed with at most 3 group requests before the first card, then pages through all 45', async () => {
    await seedFeed();
    const { page } = ana;
    await settle(page);

    const groupCalls: string[] = [];
    const onRequest = (request: Request) => {
      if (request.url().includes('/api/groups/')) groupCalls.push(request.url());
    };
    page.on('request', onRequest);
    const nextPage = page.waitForRequest(isNextPage, { timeout: 60_000 }).then(
      () => true,
      () => false,
    );
    await page.goto(`${kith.url}/groups/${feedId}`);
    const cards = page.locator('main article');
    await page.waitForSelector('main article');
    page.off('request', onRequest);
    // The group and its first feed page (the second page may already be asked for): no call per card.
    expect(groupCalls, groupCalls.join('\n')).toContain(`${kith.url}/api/groups/${feedId}/feed?limit=30`);
    expect(groupCalls.length, groupCalls.join('\n')).toBeLessThanOrEqual(3);

    for (let tries = 0; tries < 20 && (await cards.count()) < 45; tries++) {
      await scrollToBottom(page);
      await page.waitForTimeout(300);
    }
    await countOf(cards).toBe(45);
    expect(await nextPage).toBe(true);
    // Every message once, none twice.
    const titles = (await cards.allInnerTexts()).map((text) => /Feed message \d\d/.exec(text)?.[0]);
    expect(new Set(titles).size).toBe(45);
    expect(titles).not.toContain(undefined);
    await screenshot(page, 'desktop-feed-all');
  });

  // Guards against the "near the bottom" check running without a scroll (at mount, while the
  // spinner is near the bottom, or when a page arrives), which once showed 25 cards at first.
  it('first shows exactly 1 + floor(1280×800 / 68800) = 15 cards, and 10 more per scroll to the bottom', async () => {
    await seedFeed();
    const { page } = ana;
    await settle(page);
    let nextPageAsked = false;
    const nextPage = page.waitForRequest(isNextPage, { timeout: 60_000 }).then(
      () => (nextPageAsked = true),
      () => false,
    );
    await page.goto(`${kith.url}/groups/${feedId}`);
    const cards = page.locator('main article');
    await page.waitForSelector('main article');
    const first = 1 + Math.floor((1280 * 800) / 68800);
    expect(first).toBe(15);
    expect(await cards.count()).toBe(first);
    // It stays at 15, with one page of 30 loaded, until the reader scrolls; the page can scroll.
    await page.waitForTimeout(1500);
    expect(await cards.count()).toBe(first);
    expect(nextPageAsked).toBe(false);
    const overflow = await page.evaluate(() => {
      // Runs in the page.
      const w = globalThis as unknown as {
        innerHeight: number;
        document: { documentElement: { scrollHeight: number } };
      };
      return w.document.documentElement.scrollHeight - w.innerHeight;
    });
    expect(overflow).toBeGreaterThan(100);
    // (No screenshot here: a full-page screenshot resizes the window, which the feed takes as a scroll.)

    await scrollToBottom(page);
    await countOf(cards).toBe(first + 10);
    await page.waitForTimeout(500);
    expect(await cards.count()).toBe(first + 10);
    // 25 of 30 loaded: fewer than 10 in reserve, so the second page (the last 15) is fetched.
    expect(await nextPage).toBe(true);
    for (let tries = 0; tries < 20 && (await cards.count()) < 45; tries++) {
      await scrollToBottom(page);
      await page.waitForTimeout(300);
    }
    await countOf(cards).toBe(45);
  });

  it('/groups/{id}/random opens one of the group’s messages; an empty group says so', async () => {
    await seedFeed();
    const { page } = ana;
    await page.goto(`${kith.url}/groups/${feedId}/random`);
    await page.waitForURL(MESSAGE_URL);
    expect(feedIds).toContain(MESSAGE_URL.exec(page.url())?.[1]);
    await visible(page.getByRole('heading', { name: /^Feed message \d\d$/ }));

    const emptyId = await createGroup('Empty');
    await page.goto(`${kith.url}/groups/${emptyId}/random`);
    await visible(page.getByText('Nothing here yet.'));
    expect(new URL(page.url()).pathname).toBe(`/groups/${emptyId}/random`);
    await screenshot(page, 'desktop-random-empty');
  });

  let threadsId = '';
  /** The group "Threads", made on first use. */
  async function threads(): Promise<void> {
    if (threadsId === '') threadsId = await createGroup('Threads');
  }

  it('publishes a reply in the group from its actions menu', async () => {
    await threads();
    const parent = await post(threadsId, { title: 'Question of the day', text: 'Tea or coffee?' });
    const reply = await post(threadsId, { title: 'Tea, every time', text: 'With a slice of lemon.' }, { parent });
    const { page } = ana;
    const card = page.locator('main article').filter({ hasText: 'Tea, every time' });

    await page.goto(`${kith.url}/groups/${threadsId}`);
    await visible(page.locator('main article').filter({ hasText: 'Question of the day' }));
    expect(await card.count()).toBe(0);

    await page.goto(`${kith.url}/messages/${reply}`);
    await visible(page.getByRole('heading', { name: 'Tea, every time' }));
    await page.getByRole('button', { name: 'Message actions' }).click();
    const publish = page.getByRole('button', { name: 'Publish in the group' });
    await visible(publish);
    await screenshot(page, 'desktop-publish-menu');
    await publish.click();
    await visible(page.getByRole('status').filter({ hasText: 'The message is now shown in the group.' }));
    const message = await api<{ isInFront: boolean }>(kith, 'GET', `/messages/${reply}`, undefined, anaKey);
    expect(message.body.isInFront).toBe(true);
    // Once published, the menu no longer offers it.
    await page.getByRole('button', { name: 'Message actions' }).click();
    await visible(page.getByRole('button', { name: 'Edit' }));
    expect(await publish.count()).toBe(0);
    await page.keyboard.press('Escape');

    await page
      .getByRole('navigation', { name: 'Where this message is' })
      .getByRole('link', { name: 'Threads' })
      .click();
    await page.waitForURL(`${kith.url}/groups/${threadsId}`);
    await visible(card);
    await countOf(page.locator('main article')).toBe(2);
  });

  it('shows a window of comments: the last 5, then 10 more, then the rest; or the ones around a named reply', async () => {
    await threads();
    const root = await post(threadsId, { title: 'A long conversation', text: 'Seventeen replies below.' });
    const replies: string[] = [];
    for (let n = 1; n <= 17; n++) replies.push(await post(threadsId, { text: `Reply number ${n}` }, { parent: root }));
    const { page } = ana;
    const comments = page.getByRole('region', { name: 'Comments' });
    const items = comments.locator('ol > li');
    const shown = async () =>
      (await items.allInnerTexts()).map((text) => Number(/Reply number (\d+)/.exec(text)?.[1] ?? NaN));

    await page.goto(`${kith.url}/messages/${root}`);
    await visible(page.getByRole('heading', { name: 'A long conversation' }));
    await countOf(items).toBe(5);
    await visible(comments.getByText('Reply number 17', { exact: true }));
    await expect.poll(shown).toEqual([13, 14, 15, 16, 17]);
    await screenshot(page, 'desktop-comments-window');

    await comments.getByRole('button', { name: 'Show 10 previous comments' }).click();
    await countOf(items).toBe(15);
    await expect.poll(shown).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    // comments.previous_other: "Show {{count}} previous comments".
    await comments.getByRole('button', { name: 'Show 2 previous comments' }).click();
    await countOf(items).toBe(17);
    await expect.poll(shown).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    await gone(comments.getByRole('button', { name: /previous comment/ }));

    // The third reply named in the URL: the 5 around it (slid to the start), highlighted.
    const third = replies[2] ?? '';
    await page.goto(`${kith.url}/messages/${root}/${third}`);
    await visible(comments.getByText('Reply number 3', { exact: true }));
    await countOf(items).toBe(5);
    await expect.poll(shown).toEqual([1, 2, 3, 4, 5]);
    expect(await page.locator(`#comment-${third}`).getAttribute('class')).toMatch(/highlighted/);
    expect(await comments.locator('li[class*="highlighted"]').count()).toBe(1);
    await visible(comments.getByRole('button', { name: 'Show the next 10 comments' }));
    expect(await comments.getByRole('button', { name: /previous comment/ }).count()).toBe(0);
    await screenshot(page, 'desktop-comments-highlighted');
    await comments.getByRole('button', { name: 'Show the next 10 comments' }).click();
    await countOf(items).toBe(15);
    await visible(comments.getByRole('button', { name: 'Show the next 2 comments' }));
  });

  it('shows breadcrumbs of the group, the root and the last 3 ancestors, cut to 30 characters', async () => {
    await threads();
    const titles = [
      'The root of a very deep conversation',
      'First answer, with a long enough title',
      'Second answer, also long enough to be cut',
      'Third answer in this chain of replies',
      'Fourth answer, nearly at the bottom',
      'Fifth answer: the one we open',
    ];
    const ids: string[] = [];
    for (const title of titles) {
      const parent = ids.at(-1);
      ids.push(await post(threadsId, { title }, parent === undefined ? {} : { parent }));
    }
    const { page } = ana;
    await page.goto(`${kith.url}/messages/${ids[5]}`);
    await visible(page.getByRole('heading', { name: titles[5] }));
    const crumbs = page.getByRole('navigation', { name: 'Where this message is' }).getByRole('link');
    const expected = ['Threads', cut(titles[0]!), cut(titles[2]!), cut(titles[3]!), cut(titles[4]!)];
    expect(expected[1]).toBe('The root of a very deep conver…');
    await countOf(crumbs).toBe(5);
    await expect.poll(() => crumbs.allTextContents()).toEqual(expected);
    for (const label of await crumbs.allTextContents()) expect(label.length).toBeLessThanOrEqual(31);
    expect(await crumbs.nth(1).getAttribute('href')).toBe(`/messages/${ids[0]}`);
    expect(await crumbs.nth(4).getAttribute('href')).toBe(`/messages/${ids[4]}`);
    // The first answer (4 levels up) is left out.
    expect(await crumbs.filter({ hasText: 'First answer' }).count()).toBe(0);
    await screenshot(page, 'desktop-breadcrumbs');
  });

  // An empty text counts as missing and shows its key (web/src/lib/translate.ts): no such key may reach the page.
  it('shows no raw text key under a message without comments', async () => {
    await threads();
    const id = await post(threadsId, { title: 'Nobody answered yet' });
    const { page } = ana;
    await page.goto(`${kith.url}/messages/${id}`);
    await visible(page.getByRole('heading', { name: 'Nobody answered yet' }));
    await visible(page.getByRole('combobox', { name: 'Reply' }));
    expect(await page.getByText('comments.none').count()).toBe(0);
  });

  it('shows more than 3 pictures as a grid that opens the lightbox', async () => {
    await threads();
    const files: string[] = [];
    for (let n = 0; n < 4; n++) files.push(await upload(await jpeg(40 + n * 60), `picture-${n + 1}.jpg`));
    const id = await post(threadsId, { title: 'Four pictures' }, { files });
    const { page } = ana;
    await page.goto(`${kith.url}/messages/${id}`);
    const grid = page.getByTestId('file-grid');
    await visible(grid);
    await countOf(grid.getByRole('button', { name: /^Open the picture picture-\d\.jpg$/ })).toBe(4);
    await screenshot(page, 'desktop-file-grid');

    await grid.getByRole('button', { name: 'Open the picture picture-1.jpg' }).click();
    const dialog = page.getByRole('dialog', { name: 'Picture viewer' });
    await visible(dialog);
    await textOf(dialog.getByText(/^\d+ \/ \d+$/)).toBe('1 / 4');
    const image = dialog.locator('img');
    await loaded(image);
    await screenshot(page, 'desktop-lightbox');
    await page.keyboard.press('ArrowRight');
    await textOf(dialog.getByText(/^\d+ \/ \d+$/)).toBe('2 / 4');
    expect(await image.getAttribute('alt')).toBe('picture-2.jpg');
    await page.keyboard.press('Escape');
    await gone(dialog);
    await visible(grid);
  });

  it('no page or console errors', () => {
    expect(contexts.flatMap((context) => context.errors)).toEqual([]);
  });
});
