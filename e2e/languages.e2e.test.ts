// The main journey in other languages (issue 18): sign in, the feed, a notification, a message and
// a comment, the settings, on a 375 px phone, in Russian, Korean, Tamil, Tamazight, German and
// Hungarian. On every screen: the headings and buttons carry the language's own texts (read from
// locales/<lang>.json, so a missing translation fails here too), no English text of the interface
// is left, every letter has a glyph (no empty boxes), and no button, menu or card is wider than the
// screen. Then the e-mails in the scripts that systems lack most often, looked at the same way.
//
// Also: the picker of the sign-in page, a browser language proposing the default (the server runs
// with LANG_FROM_BROWSER=true), a user's own language winning over the device's, and a change in
// the settings switching the interface without a reload.
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
} from './harness.js';
import { mailTexts, webText, webTexts } from './locales.js';
import { parseMail } from './mail.js';
import { PASSWORD, signUpApi } from './people.js';
import { textOf, visible } from './wait.js';

// The few browser objects the checks below use, typed here: the e2e files compile without the DOM
// library (as the routes scenario does), and these functions run in the page.
interface PageElement {
  tagName: string;
  textContent: string | null;
  parentElement: PageElement | null;
  clientWidth: number;
  scrollWidth: number;
  getBoundingClientRect(): { left: number; right: number; width: number; height: number };
  getAttribute(name: string): string | null;
}
interface PageStyle {
  overflowX: string;
  visibility: string;
  clip: string;
  textOverflow: string;
  fontFamily: string;
}
interface Canvas2d {
  font: string;
  fillStyle: string;
  textBaseline: string;
  clearRect(x: number, y: number, width: number, height: number): void;
  fillText(text: string, x: number, y: number): void;
  getImageData(x: number, y: number, width: number, height: number): { data: { join(separator: string): string } };
}
interface PageWindow {
  document: {
    fonts: { ready: Promise<unknown> } & Iterable<{ load(): Promise<unknown> }>;
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d', options: object): Canvas2d | null;
    };
    body: PageElement & { innerText: string };
    documentElement: PageElement;
    querySelectorAll(selector: string): Iterable<PageElement>;
  };
  getComputedStyle(element: PageElement): PageStyle;
}

const ENGLISH = webTexts('en_US');
const ENGLISH_MAIL = mailTexts('en_US');
/**
 * The English texts of the interface that must not show in `lang`: those without placeholders
 * whose translation differs (a word that is the same in both, such as "PDF", is no gap).
 */
function englishLeftIn(
  lang: string,
  shown: string[],
  english: Record<string, string>,
  own: Record<string, string>,
): string[] {
  const ownTexts = Object.values(own);
  const haystack = shown.join('\n');
  return Object.entries(english)
    .filter(([key, value]) => !value.includes('{{') && value.length >= 4 && own[key] !== value)
    .filter(([, value]) => !ownTexts.some((ownText) => ownText.includes(value)))
    .filter(([, value]) => haystack.includes(value))
    .map(([key, value]) => `${lang}: "${value}" (${key})`);
}

/** What a person sees or hears on the page: its text, and the labels, titles and placeholders. */
function shownTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageWindow;
    return [
      document.body.innerText,
      ...[...document.querySelectorAll('[aria-label], [title], [placeholder], img[alt]')].flatMap((element) =>
        ['aria-label', 'title', 'placeholder', 'alt'].map((name) => element.getAttribute(name) ?? ''),
      ),
    ];
  });
}

/**
 * The letters of the page drawn without a glyph: each character is drawn with the page's font on
 * a canvas (which falls back through the fonts as text does) and compared with an unassigned code
 * point, which every font draws as its empty box.
 */
function lettersWithoutGlyph(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const view = globalThis as unknown as PageWindow;
    const { document } = view;
    await document.fonts.ready;
    const canvas = document.createElement('canvas');
    canvas.width = 48;
    canvas.height = 48;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (context === null) return ['no canvas'];
    const font = `32px ${view.getComputedStyle(document.body).fontFamily}`;
    // Text that uses a web font not loaded yet draws with a fallback: load every face first.
    await Promise.all([...document.fonts].map((face) => face.load().catch(() => undefined)));
    const draw = (character: string): string => {
      context.clearRect(0, 0, 48, 48);
      context.font = font;
      context.fillStyle = '#000';
      context.textBaseline = 'top';
      context.fillText(character, 4, 4);
      return context.getImageData(0, 0, 48, 48).data.join('');
    };
    const box = draw('\u0378');
    if (draw('\u0379') !== box) return ['the empty box is not the same for two unassigned code points'];
    const letters = new Set(
      [...document.body.innerText].filter((c) => /[^\p{Z}\p{Cc}\p{Cf}\p{M}]/u.test(c) && c > '\u007f'),
    );
    return [...letters].filter((letter) => draw(letter) === box);
  });
}

/** Buttons, links, menus, tabs, headings and cards wider than their box or than the screen. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const view = globalThis as unknown as PageWindow;
    const { document } = view;
    const problems: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1)
      problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width} px)`);
    const name = (element: PageElement) =>
      `${element.tagName.toLowerCase()} "${(element.textContent ?? '').trim().slice(0, 40)}"`;
    const scrolls = (element: PageElement): boolean => {
      for (let node = element.parentElement; node !== null; node = node.parentElement) {
        const { overflowX } = view.getComputedStyle(node);
        if (overflowX === 'auto' || overflowX === 'scroll') return true;
      }
      return false;
    };
    for (const element of document.querySelectorAll(
      'button, a, select, label, [role="menuitem"], [role="tab"], [role="menu"], h1, h2, h3, article, li',
    )) {
      const box = element.getBoundingClientRect();
      const style = view.getComputedStyle(element);
      // Hidden, or visually hidden for screen readers (1 px and clipped): nothing to see.
      if (box.width <= 1 || box.height <= 1 || style.visibility === 'hidden' || style.clip !== 'auto') continue;
      if (!scrolls(element) && (box.right > width + 1 || box.left < -1))
        problems.push(`${name(element)} leaves the screen`);
      const html = element;
      if (
        html.clientWidth > 0 &&
        html.scrollWidth > html.clientWidth + 1 &&
        style.textOverflow !== 'ellipsis' &&
        !['auto', 'scroll'].includes(style.overflowX)
      )
        problems.push(`${name(element)} is wider than its box (${html.scrollWidth} > ${html.clientWidth} px)`);
    }
    return problems;
  });
}

/** Every check of one screen in `lang`, with its screenshot. Answers the problems found. */
async function checkScreen(page: Page, lang: string, screen: string): Promise<string[]> {
  // From the top, so the full-page picture does not show the sticky bar halfway down.
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await screenshot(page, `lang-${lang}-${screen}`);
  const own = webTexts(lang);
  return [
    ...englishLeftIn(lang, await shownTexts(page), ENGLISH, own).map((p) => `${screen}: English ${p}`),
    ...(await lettersWithoutGlyph(page)).map(
      (letter) => `${screen}: no glyph for "${letter}" (U+${letter.codePointAt(0)?.toString(16)})`,
    ),
    ...(await overflowing(page)).map((p) => `${screen}: ${p}`),
  ];
}

let kith: Kith;
let browser: Browser;
const opened: IsolatedPage[] = [];
let benKey = '';
let messageId = '';
const TITLE = 'Summer 2026';

const LANGUAGES = ['ru_RU', 'ko_KR', 'ta_IN', 'zgh', 'de_DE', 'hu_HU'] as const;
const loginOf = (lang: string) => `${lang.toLowerCase().replace('_', '-')}@example.org`;
const bcp47 = (lang: string) => lang.replace('_', '-');

beforeAll(async () => {
  kith = await startKith({ env: { LANG_FROM_BROWSER: 'true' } });
  browser = await launchBrowser();
  const ana = await signUpApi(kith, 'ana@example.org');
  for (const lang of LANGUAGES) await signUpApi(kith, loginOf(lang));
  const ben = await signUpApi(kith, 'ben@example.org');
  benKey = ben.api_key;
  // A message everyone is notified of, with a comment, so the feed, the panel and the thread have content.
  const posted = await api<{ id: string }>(
    kith,
    'POST',
    '/messages',
    { group: ben.group, data: { title: TITLE, text: 'The lake, at last.' }, files: [] },
    benKey,
  );
  expect(posted.status).toBe(201);
  messageId = posted.body.id;
  const reply = await api(
    kith,
    'POST',
    '/messages',
    { group: ben.group, parent: messageId, data: { text: '🌊' }, files: [] },
    ana.api_key,
  );
  expect(reply.status).toBe(201);
}, 120_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => undefined);
  await browser?.close();
  await kith?.stop();
});

/** Signs in on the login page as it is (its language already chosen), with the texts of `lang`. */
async function signInAs(page: Page, lang: string): Promise<void> {
  await page.getByLabel(webText(lang, 'login.email')).fill(loginOf(lang));
  await page.getByLabel(webText(lang, 'login.password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: webText(lang, 'login.submit'), exact: true }).click();
  await page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
}

describe('the checks of a screen', () => {
  it('find English left in, a letter without a glyph and a button too narrow for its text', async () => {
    const person = await newPage(browser, 'phone');
    opened.push(person);
    await person.page.setContent(
      '<main><h1>Вход</h1><p>Mark all as read</p><p>\u0378 \u{10FFFD}</p>' +
        '<button style="width:60px;white-space:nowrap;overflow:visible">Benachrichtigungseinstellungen</button></main>',
    );
    const problems = await checkScreen(person.page, 'ru_RU', 'control');
    expect(problems.filter((p) => p.includes('English') && p.includes('Mark all as read'))).toHaveLength(1);
    expect(problems.filter((p) => p.includes('no glyph'))).toHaveLength(2);
    expect(
      problems.filter((p) => p.includes('button "Benachrichtigungseinstellungen" is wider than its box')),
    ).toHaveLength(1);
    expect(problems.some((p) => p.includes('Вход'))).toBe(false);
    await person.context.close();
  });
});

describe.each(LANGUAGES)('the main journey in %s at 375 px', (lang) => {
  it('signs in, reads the feed, a notification and a message, comments and opens the settings', async () => {
    const person = await newPage(browser, 'phone', { locale: lang === 'ko_KR' ? 'ko-KR' : 'en-US' });
    opened.push(person);
    const { page } = person;
    const problems: string[] = [];

    await page.goto(`${kith.url}/login`);
    if (lang === 'ko_KR') {
      // The browser's language proposes the page's (LANG_FROM_BROWSER=true): nothing to pick.
      await textOf(page.getByRole('heading', { level: 1 })).toBe(webText(lang, 'login.title'));
    } else {
      await textOf(page.getByRole('heading', { level: 1 })).toBe(webText('en_US', 'login.title'));
      // German: Hungarian picked on this device, but the account's own language wins after sign-in.
      const picked = lang === 'de_DE' ? 'hu_HU' : lang;
      if (lang === 'de_DE') {
        const me = await api<{ id: string }>(kith, 'POST', '/login', { login: loginOf(lang), password: PASSWORD });
        const key = (me.body as unknown as { api_key: string }).api_key;
        const id = (await api<{ id: string }>(kith, 'GET', '/me', undefined, key)).body.id;
        expect((await api(kith, 'PUT', `/users/${id}`, { data: { lang: 'de_DE' } }, key)).status).toBe(200);
      }
      await page.getByRole('combobox', { name: webText('en_US', 'common.language') }).selectOption(picked);
      await textOf(page.getByRole('heading', { level: 1 })).toBe(webText(picked, 'login.title'));
      if (lang === 'de_DE') {
        await page.getByLabel(webText('hu_HU', 'login.email')).fill(loginOf(lang));
        await page.getByLabel(webText('hu_HU', 'login.password'), { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: webText('hu_HU', 'login.submit'), exact: true }).click();
        await page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
      }
    }
    if (lang !== 'de_DE') {
      expect(await page.locator('html').getAttribute('lang')).toBe(bcp47(lang));
      problems.push(...(await checkScreen(page, lang, 'login')));
      await signInAs(page, lang);
    }

    // The feed: the write button and the card's comment count in the language.
    await visible(page.getByRole('link', { name: webText(lang, 'feed.write') }));
    await visible(page.getByRole('link', { name: new RegExp(TITLE) }));
    expect(await page.locator('html').getAttribute('lang')).toBe(bcp47(lang));
    problems.push(...(await checkScreen(page, lang, 'feed')));

    // The notification of Ben's message, in a sentence of the language.
    await page.getByRole('button', { name: new RegExp(`^${webText(lang, 'notifications.bell')}`) }).click();
    await visible(
      page.getByText(webText(lang, 'notifications.new_message', { name: 'ben', title: TITLE, group: 'Home' }), {
        exact: true,
      }),
    );
    problems.push(...(await checkScreen(page, lang, 'notifications')));
    await page.keyboard.press('Escape');

    // The message, its comments and a new comment, "just now" in the language.
    await page.goto(`${kith.url}/messages/${messageId}`);
    const comments = page.getByRole('region', { name: webText(lang, 'comments.title') });
    // The thread shows its last comments only: the journeys before this one added theirs.
    await visible(page.getByText('The lake, at last.'));
    await visible(comments);
    await page.getByLabel(webText(lang, 'composer.reply')).fill(`${lang} ✓`);
    await page.getByRole('button', { name: webText(lang, 'composer.send_reply'), exact: true }).click();
    await visible(comments.getByText(`${lang} ✓`));
    await visible(comments.getByText(webText(lang, 'time.just_now')).first());
    problems.push(...(await checkScreen(page, lang, 'message')));

    // The account menu and the settings, every tab named in the language.
    await page.getByRole('button', { name: webText(lang, 'nav.account_menu') }).click();
    problems.push(...(await checkScreen(page, lang, 'menu')));
    await page.getByRole('link', { name: webText(lang, 'nav.settings'), exact: true }).click();
    await textOf(page.getByRole('heading', { level: 1 })).toBe(webText(lang, 'settings.title'));
    for (const tab of ['profile', 'notifications', 'language', 'appearance', 'default_group', 'account'])
      await visible(page.getByRole('tab', { name: webText(lang, `settings.tab_${tab}`) }));
    problems.push(...(await checkScreen(page, lang, 'settings')));
    if (lang === 'zgh') {
      // Tifinagh comes with the app (systems such as macOS lack it): the heading is drawn with it.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: 'h1' });
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
      expect(fonts.filter((font) => font.isCustomFont && /Tifinagh/.test(font.familyName))).not.toEqual([]);
    }
    await page.getByRole('tab', { name: webText(lang, 'settings.tab_language') }).click();
    problems.push(...(await checkScreen(page, lang, 'settings-language')));

    if (lang === 'ru_RU') {
      // A new language from the settings switches the interface at once, without a reload.
      await page.evaluate(() => ((globalThis as unknown as { kithMarker: boolean }).kithMarker = true));
      await page.getByRole('combobox', { name: webText(lang, 'settings.language') }).selectOption('zh_Hans');
      await page.getByRole('button', { name: webText(lang, 'settings.save'), exact: true }).click();
      await textOf(page.getByRole('heading', { level: 1 })).toBe(webText('zh_Hans', 'settings.title'));
      expect(await page.locator('html').getAttribute('lang')).toBe('zh-Hans');
      expect(await page.evaluate(() => (globalThis as unknown as { kithMarker?: boolean }).kithMarker)).toBe(true);
      problems.push(...(await checkScreen(page, 'zh_Hans', 'settings-after-switch')));
    }

    expect(problems).toEqual([]);
    expect(person.errors).toEqual([]);
    await person.context.close();
  }, 240_000);
});

describe('e-mails in other scripts', () => {
  // Chinese first: the Russian user chose it in the settings above, and the Russian mail resets that.
  it.each(['zh_Hans', 'ta_IN', 'zgh', 'ko_KR', 'ru_RU'])(
    'writes the password reset e-mail in %s with a glyph for every letter',
    async (lang) => {
      // ru_RU's user chose Chinese in the settings above; the others' languages are set as the settings do.
      const login = lang === 'zh_Hans' ? loginOf('ru_RU') : loginOf(lang);
      if (lang !== 'zh_Hans') {
        const answer = await api<{ api_key: string }>(kith, 'POST', '/login', { login, password: PASSWORD });
        const id = (await api<{ id: string }>(kith, 'GET', '/me', undefined, answer.body.api_key)).body.id;
        expect((await api(kith, 'PUT', `/users/${id}`, { data: { lang } }, answer.body.api_key)).status).toBe(200);
      }
      const before = (await outboxMails(kith)).length;
      expect((await api(kith, 'POST', '/password-reset-mail', { mail: login })).status).toBeLessThan(300);
      const own = mailTexts(lang);
      let mail = parseMail('');
      await expect
        .poll(async () => {
          const found = (await outboxMails(kith))
            .slice(before)
            .map(parseMail)
            .find((m) => m.to.includes(login));
          if (found !== undefined) mail = found;
          return found?.subject ?? '';
        })
        .toBe(own.password_reset_subject);
      expect(mail.html).toContain(own.password_reset_button);
      expect(mail.text).toContain(own.password_reset_intro);
      const page = (await newPage(browser, 'phone')).page;
      opened.push({ context: page.context(), page, errors: [] });
      await page.setContent(mail.html);
      await screenshot(page, `lang-${lang}-mail-password-reset`);
      expect(await lettersWithoutGlyph(page)).toEqual([]);
      expect(englishLeftIn(lang, [mail.html, mail.text, mail.subject], ENGLISH_MAIL, own)).toEqual([]);
      await page.context().close();
    },
    120_000,
  );
});
