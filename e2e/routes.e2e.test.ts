// Every route of the client (product spec §2), plus the open groups menu and notification panel, at
// phone and desktop size, in the light and the dark palette: axe-core finds no serious or critical
// violation (colour contrast included) and a screenshot `route-<name>-<size>-<scheme>.png` is kept
// for a person to look at. A last pass shows the signed-in screens in Russian (another script,
// longer words). Adding a route is one line in ROUTES.
//
// Also checked here, because they are layout bugs that axe cannot see: the notification panel fits
// a phone's screen and clips nothing, the navigation lines up with the feed's column, the write
// button leaves the last card's comment count uncovered, an alert stays clear of the navigation,
// and a focused control shows a focus ring.
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './axe.js';
import { api, type IsolatedPage, type Kith, launchBrowser, newPage, screenshot, startKith } from './harness.js';
import { signIn, signUpApi } from './people.js';
import { jpeg, uploadJpeg } from './pictures.js';
import { countOf, visible } from './wait.js';

/** What the seeding made, for building paths. */
interface Seed {
  home: string;
  post: string;
  comment: string;
  publicToken: string;
  inviteKey: string;
  /** Ana's user id. */
  me: string;
}

interface RouteCase {
  /** Names the screenshot: `route-<name>-<size>-<scheme>.png`. */
  name: string;
  /** A visitor has no session; a member is Ana, signed in. */
  who: 'visitor' | 'member';
  path: (seed: Seed) => string;
  /** Waits until the screen shows what it is about (and opens a menu when the case is one). */
  ready: (page: Page, seed: Seed) => Promise<void>;
}

// Ready conditions of the signed-in screens avoid English texts, so the Russian pass can reuse them.
const main = (page: Page): Locator => page.locator('main');
const heading = (page: Page): Locator => page.locator('main h1');
const feedReady = async (page: Page): Promise<void> => {
  await visible(heading(page).filter({ hasText: 'Home' }));
  await visible(main(page).locator('article').first());
};
const messageReady = async (page: Page): Promise<void> => {
  await visible(main(page).locator('article h2').filter({ hasText: 'Picnic by the lake' }));
  await countOf(main(page).locator('section > ol > li'), 10_000).toBe(3);
};

/** One line per route of the client. */
const ROUTES: RouteCase[] = [
  {
    name: 'login',
    who: 'visitor',
    path: () => '/login',
    ready: (page) => visible(page.getByRole('heading', { name: 'Sign in' })),
  },
  {
    name: 'login-forgot',
    who: 'visitor',
    path: () => '/login',
    ready: async (page) => {
      await page.getByRole('button', { name: 'Forgot your password?' }).click();
      await visible(page.getByRole('heading', { name: 'Reset your password' }));
    },
  },
  {
    name: 'signup',
    who: 'visitor',
    path: (seed) => `/signup?inviteKey=${seed.inviteKey}`,
    ready: (page) => visible(page.getByRole('heading', { name: 'Sign up' })),
  },
  {
    name: 'password-reset',
    who: 'visitor',
    path: () => '/password-reset?mail=ana%40example.org&key=a-key-from-the-mail',
    ready: (page) => visible(page.getByRole('heading', { name: 'Choose a new password' })),
  },
  {
    name: 'invitation-visitor',
    who: 'visitor',
    path: (seed) => `/invitation/${seed.inviteKey}`,
    ready: async (page) => {
      await page.waitForURL(/\/signup\?inviteKey=/);
      await visible(page.getByRole('heading', { name: 'Sign up' }));
    },
  },
  {
    name: 'public',
    who: 'visitor',
    path: (seed) => `/public/${seed.publicToken}`,
    ready: (page) => visible(page.getByRole('heading', { name: 'Recipe for Sunday' })),
  },
  {
    name: 'not-found',
    who: 'visitor',
    path: () => '/no/such/route',
    ready: (page) => visible(page.getByRole('heading', { name: 'Unexpected Application Error!' })),
  },
  { name: 'home', who: 'member', path: () => '/', ready: feedReady },
  { name: 'group', who: 'member', path: (seed) => `/groups/${seed.home}`, ready: feedReady },
  {
    name: 'all-groups',
    who: 'member',
    path: () => '/feed',
    ready: async (page) => {
      await visible(heading(page).filter({ hasText: 'All my groups' }));
      await visible(main(page).locator('article').first());
    },
  },
  {
    name: 'groups-menu',
    who: 'member',
    path: (seed) => `/groups/${seed.home}`,
    ready: async (page) => {
      await feedReady(page);
      await page.locator('header button[aria-expanded]').first().click();
      // "All my groups" (issue 20), then the groups, then "Create a group".
      await countOf(page.locator('header nav a'), 10_000).toBe(4);
    },
  },
  {
    name: 'notifications',
    who: 'member',
    path: (seed) => `/groups/${seed.home}`,
    ready: async (page) => {
      await feedReady(page);
      await page.locator('header button[class*="_bell_"]').click();
      await visible(page.locator('header section li').first());
    },
  },
  {
    name: 'create-group',
    who: 'member',
    path: () => '/create-group',
    ready: (page) => visible(main(page).locator('input')),
  },
  {
    name: 'write',
    who: 'member',
    path: (seed) => `/groups/${seed.home}/write`,
    ready: (page) => visible(main(page).locator('textarea')),
  },
  { name: 'message', who: 'member', path: (seed) => `/messages/${seed.post}`, ready: messageReady },
  {
    name: 'message-child',
    who: 'member',
    path: (seed) => `/messages/${seed.post}/${seed.comment}`,
    ready: async (page) => {
      await messageReady(page);
      await visible(main(page).locator('li[class*="_highlighted_"]'));
    },
  },
  {
    name: 'user-settings',
    who: 'member',
    path: (seed) => `/users/${seed.me}/settings`,
    ready: (page) => visible(main(page).getByRole('tablist')),
  },
  {
    name: 'group-settings',
    who: 'member',
    path: (seed) => `/groups/${seed.home}/settings`,
    ready: (page) => visible(main(page).locator('li').filter({ hasText: 'Bo Berg' })),
  },
  {
    name: 'search',
    who: 'member',
    path: (seed) => `/groups/${seed.home}/search?q=picnic`,
    ready: (page) => visible(main(page).locator('mark').first()),
  },
  {
    name: 'bookmarks',
    who: 'member',
    path: () => '/bookmarks',
    ready: (page) => visible(main(page).locator('article').filter({ hasText: 'Picnic by the lake' })),
  },
  {
    name: 'share',
    who: 'member',
    path: () => '/share?title=Spring%20fair&text=Stalls%20and%20music&url=https%3A%2F%2Fexample.org%2Ffair',
    ready: (page) => visible(main(page).locator('textarea')),
  },
  {
    name: 'stop-emails',
    who: 'member',
    path: () => '/stop-notification-emails',
    ready: (page) => visible(main(page).locator('[role="status"] a')),
  },
];

const SIZES = ['phone', 'desktop'] as const;
const SCHEMES = ['light', 'dark'] as const;

let kith: Kith;
let browser: Browser;
let seed: Seed;
let anaKey = '';
const opened: IsolatedPage[] = [];

/** A message in Home by the key's owner; answers its id. */
async function post(key: string, data: { title?: string; text?: string }, extra: object = {}): Promise<string> {
  const created = await api<{ id: string }>(kith, 'POST', '/messages', { group: seed.home, data, ...extra }, key);
  expect(created.status).toBe(201);
  return created.body.id;
}

/** Waits for every image of the page to be decoded (or failed), so screenshots are complete. */
async function imagesSettled(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    Array.from(
      (globalThis as unknown as { document: { images: ArrayLike<{ complete: boolean }> } }).document.images,
    ).every((image) => image.complete),
  );
}

/**
 * Opens the route, waits for it, runs axe and saves the screenshot (scrolled to the top, so the
 * sticky bar is where a person sees it); answers the problems found, empty when none.
 */
async function checkRoute(page: Page, route: RouteCase, shot: string): Promise<string[]> {
  try {
    await page.goto(`${kith.url}${route.path(seed)}`);
    await route.ready(page, seed);
    await imagesSettled(page);
    const violations = await accessibilityViolations(page);
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await screenshot(page, shot);
    return violations;
  } catch (error) {
    return [(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''];
  }
}

/** Checks every route of the table with these pages; answers the problems by route name. */
async function checkRoutes(
  pages: Record<RouteCase['who'], Page | undefined>,
  routes: RouteCase[],
  suffix: string,
): Promise<Record<string, string[]>> {
  const problems: Record<string, string[]> = {};
  for (const route of routes) {
    const page = pages[route.who];
    if (page === undefined) continue;
    const found = await checkRoute(page, route, `route-${route.name}-${suffix}`);
    if (found.length > 0) problems[route.name] = found;
  }
  return problems;
}

/** The page's own window, in the page (the e2e project has no DOM types). */
function scrollToBottom(page: Page): Promise<void> {
  return page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 1e6));
}

/** Whether two boxes overlap. */
function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

type Box = { x: number; y: number; width: number; height: number };

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found!;
}

/** The layout rules axe cannot see, on a signed-in page of this size. */
async function checkLayout(page: Page): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;

  // The notification panel and the groups menu fit the screen.
  await page.goto(`${kith.url}/groups/${seed.home}`);
  await feedReady(page);
  for (const [button, menu] of [
    ['header button[class*="_bell_"]', 'header section'],
    ['header button[aria-expanded]', 'header nav'],
  ] as const) {
    await page.locator(button).first().click();
    const panel = await box(page.locator(menu).first());
    expect(panel.x, menu).toBeGreaterThanOrEqual(0);
    expect(panel.x + panel.width, menu).toBeLessThanOrEqual(width);
    // Nothing in it is cut off at the side (a panel wider than its menu was).
    const clipped = await page.locator('header [aria-expanded="true"] + div').evaluate((element) => {
      const sized = element as unknown as { scrollWidth: number; clientWidth: number };
      return sized.scrollWidth - sized.clientWidth;
    });
    expect(clipped, menu).toBe(0);
    await page.keyboard.press('Escape');
  }

  // The bar's outermost controls sit on the edges of the feed's column.
  const boxes: Box[] = [];
  for (const item of await page.locator('header > div > *').all()) {
    const found = await item.boundingBox();
    if (found !== null && found.width > 0) boxes.push(found);
  }
  const column = await box(page.locator('main > div > header').first());
  expect(boxes.length).toBeGreaterThan(1);
  expect(Math.abs(Math.min(...boxes.map((b) => b.x)) - column.x)).toBeLessThanOrEqual(1);
  expect(Math.abs(Math.max(...boxes.map((b) => b.x + b.width)) - (column.x + column.width))).toBeLessThanOrEqual(1);

  // At the end of the feed the write button leaves the last card's comment count uncovered.
  await scrollToBottom(page);
  const write = await box(page.locator(`main a[href$="/groups/${seed.home}/write"][aria-label]`));
  const count = await box(page.locator('main article a > div:last-child > span:last-child').last());
  expect(overlap(write, count)).toBe(false);

  // An alert (the empty message, product spec §5) shows under the bar, not over it.
  await page.goto(`${kith.url}/groups/${seed.home}/write`);
  await visible(main(page).locator('textarea'));
  await main(page).locator('button[type="submit"]').click();
  const alert = page.getByRole('alert').filter({ hasText: 'The message is empty and cannot be sent.' });
  await visible(alert);
  const bar = await box(page.locator('header').first());
  expect((await box(alert)).y).toBeGreaterThanOrEqual(bar.y + bar.height);

  // A control reached with the keyboard shows a ring.
  await page.locator('header button[aria-expanded]').first().focus();
  await page.keyboard.press('Tab');
  const ring = await page.evaluate(() => {
    const view = globalThis as unknown as {
      document: { activeElement: object };
      getComputedStyle(element: object): { outlineStyle: string; outlineWidth: string };
    };
    const style = view.getComputedStyle(view.document.activeElement);
    return `${style.outlineStyle} ${style.outlineWidth}`;
  });
  expect(ring).toMatch(/^solid [1-9]/);
}

beforeAll(async () => {
  kith = await startKith();
  browser = await launchBrowser();
  const ana = await signUpApi(kith, 'ana@example.org');
  const bo = await signUpApi(kith, 'bo@example.org');
  anaKey = ana.api_key;
  seed = { home: ana.group, post: '', comment: '', publicToken: '', inviteKey: '', me: '' };
  const anaMe = await api<{ id: string }>(kith, 'GET', '/me', undefined, anaKey);
  const boMe = await api<{ id: string }>(kith, 'GET', '/me', undefined, bo.api_key);
  seed.me = anaMe.body.id;
  expect((await api(kith, 'PUT', `/users/${anaMe.body.id}`, { name: 'Ana Lima' }, anaKey)).status).toBe(200);
  expect((await api(kith, 'PUT', `/users/${boMe.body.id}`, { name: 'Bo Berg' }, bo.api_key)).status).toBe(200);
  expect((await api(kith, 'POST', '/groups', { name: 'Book club' }, anaKey)).status).toBe(201);
  const home = await api<{ secretKey: string }>(kith, 'GET', `/groups/${seed.home}`, undefined, anaKey);
  seed.inviteKey = home.body.secretKey;

  // A feed with the kinds of card people see: a photo with a title, a long text, a short note
  // without a title, and a grid of pictures.
  const lake = await uploadJpeg(kith, anaKey, await jpeg(200, 1200, 800), 'lake.jpg');
  seed.post = await post(
    anaKey,
    { title: 'Picnic by the lake', text: 'We found the perfect spot under the willows. Who is in next Sunday?' },
    { files: [lake.id] },
  );
  const recipe = await post(bo.api_key, {
    title: 'Recipe for Sunday',
    text: 'Grandma’s apple cake, as promised:\n\n- 4 apples\n- 200 g flour\n- 150 g butter\n- 100 g sugar\n\nBake for 45 minutes at 180 °C and let it cool before cutting. #baking',
  });
  await post(anaKey, { text: 'The choir rehearsal moves to Thursday at 7 pm this week.' });
  const pictures = [];
  for (const hue of [230, 150, 90, 30])
    pictures.push((await uploadJpeg(kith, bo.api_key, await jpeg(hue), `p${hue}.jpg`)).id);
  await post(bo.api_key, { title: 'Photos from the hike' }, { files: pictures });

  // Comments on the picnic: two from Bo (notifications for Ana) and Ana's answer.
  seed.comment = await post(bo.api_key, { text: 'Count me in! I will bring lemonade.' }, { parent: seed.post });
  await post(anaKey, { text: 'Lovely, see you there.' }, { parent: seed.post });
  await post(bo.api_key, { text: 'Should we bring a ball for the kids?' }, { parent: seed.post });

  const link = await api<{ token: string }>(kith, 'GET', `/messages/${recipe}/get-public-link`, undefined, anaKey);
  expect(link.status).toBe(200);
  seed.publicToken = link.body.token;
  expect((await api(kith, 'POST', '/bookmarks', { message_id: seed.post }, anaKey)).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await kith?.stop();
}, 60_000);

// One test per combination, each with its own two contexts (a visitor and Ana); within one, the
// routes go one after the other in the same pages. (Running the combinations side by side saved
// nothing: the browser's work is the cost.)
const COMBINATIONS = SIZES.flatMap((size) => SCHEMES.map((scheme) => ({ size, scheme })));

describe('every route', () => {
  for (const { size, scheme } of COMBINATIONS) {
    it(`${size}, ${scheme}: no serious accessibility violation, a screenshot each, and the layout rules`, async () => {
      const visitor = await newPage(browser, size, { colorScheme: scheme });
      const member = await newPage(browser, size, { colorScheme: scheme });
      opened.push(visitor, member);
      await signIn(kith, member.page, 'ana@example.org');
      expect(await checkRoutes({ visitor: visitor.page, member: member.page }, ROUTES, `${size}-${scheme}`)).toEqual(
        {},
      );
      await checkLayout(member.page);
      await visitor.context.close();
      await member.context.close();
    }, 300_000);
  }
});

// The screens inside the logged-in layout take the person's language: a few of them in Russian,
// for a script other than Latin and longer words.
describe('in Russian', () => {
  const LOCALIZED = ROUTES.filter((route) => ['group', 'notifications', 'message-child'].includes(route.name));
  it('shows the signed-in screens in Russian without a serious accessibility violation', async () => {
    const me = await api<{ id: string }>(kith, 'GET', '/me', undefined, anaKey);
    expect((await api(kith, 'PUT', `/users/${me.body.id}`, { data: { lang: 'ru_RU' } }, anaKey)).status).toBe(200);
    for (const [size, scheme] of [
      ['phone', 'light'],
      ['desktop', 'dark'],
    ] as const) {
      const member = await newPage(browser, size, { colorScheme: scheme });
      opened.push(member);
      await signIn(kith, member.page, 'ana@example.org');
      expect(await checkRoutes({ visitor: undefined, member: member.page }, LOCALIZED, `${size}-${scheme}-ru`)).toEqual(
        {},
      );
      expect(await member.page.locator('html').getAttribute('lang')).toBe('ru-RU');
      await member.context.close();
    }
  }, 300_000);
});

it('no page or console errors on any route', () => {
  expect(opened.length).toBe(10);
  expect(opened.flatMap((isolated) => isolated.errors)).toEqual([]);
});
