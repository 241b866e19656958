// Immediate notification e-mails (issue 20): "Immediately" is chosen in the notifications tab of the
// settings at phone size in English and at desktop size in Korean, each with axe and a screenshot;
// then comments by another member give Ana one mail, in her language, listing them all, and a later
// comment a second mail with only itself. The server's wait is 5 seconds here (2 minutes by default).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { accessibilityViolations } from './axe.js';
import {
  api,
  type IsolatedPage,
  type Kith,
  launchBrowser,
  newPage,
  outboxMails,
  screenshot,
  startKith,
  type Viewport,
} from './harness.js';
import { mailTexts, webText } from './locales.js';
import { parseMail, type Mail } from './mail.js';
import { signIn, signUpApi } from './people.js';
import { storySteps } from './steps.js';
import { gone, visible } from './wait.js';

let kith: Kith;
let browser: Browser;
const opened: IsolatedPage[] = [];
const ana = { login: 'ana.immediate@example.org', key: '', id: '', group: '' };
const ben = { login: 'ben.immediate@example.org', key: '' };

beforeAll(async () => {
  kith = await startKith({ env: { IMMEDIATE_MAIL_DELAY_SECONDS: '5' } });
  browser = await launchBrowser();
  const signedUp = await signUpApi(kith, ana.login);
  ana.key = signedUp.api_key;
  ana.group = signedUp.group;
  ben.key = (await signUpApi(kith, ben.login)).api_key;
  const me = await api<{ id: string }>(kith, 'GET', '/me', undefined, ana.key);
  ana.id = me.body.id;
}, 120_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => undefined);
  await browser?.close();
  await kith?.stop();
}, 60_000);

async function frequency(): Promise<string | undefined> {
  const me = await api<{ data: { notification_emails?: string } }>(kith, 'GET', '/me', undefined, ana.key);
  return me.body.data.notification_emails;
}

async function setAna(data: Record<string, string>): Promise<void> {
  expect((await api(kith, 'PUT', `/users/${ana.id}`, { data }, ana.key)).status).toBe(200);
}

/** Picks "Immediately" in the notifications tab, in `lang`, saves, and checks the page with axe. */
async function chooseImmediately(viewport: Viewport, lang: string, shot: string): Promise<void> {
  const isolated = await newPage(browser, viewport);
  opened.push(isolated);
  const { page, errors } = isolated;
  await signIn(kith, page, ana.login);
  await page.goto(`${kith.url}/users/${ana.id}/settings?tab=notifications`);
  await visible(page.getByRole('tab', { name: webText(lang, 'settings.tab_notifications'), selected: true }));
  const immediately = page.getByRole('radio', { name: webText(lang, 'settings.frequency_immediately'), exact: true });
  // Offered right after "never", before the digests.
  const labels = await page.locator('fieldset label').allTextContents();
  expect(labels.slice(0, 3)).toEqual(
    ['frequency_none', 'frequency_immediately', 'frequency_hourly'].map((key) => webText(lang, `settings.${key}`)),
  );
  await immediately.check();
  // The tab has two forms, each with its own Save: what is e-mailed, and push.
  await page
    .locator('form', { has: immediately })
    .getByRole('button', { name: webText(lang, 'settings.save') })
    .click();
  const alert = page.getByText(webText(lang, 'settings.updated'));
  await visible(alert);
  expect(await frequency()).toBe('immediately');
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, `immediate-mail/${shot}`);
  await page.screenshot({ path: `/tmp/immediate-${shot}.png`, fullPage: true });
  // Shown again as saved.
  await page
    .getByRole('button', { name: webText(lang, 'alert.close') })
    .first()
    .click();
  await gone(alert);
  await page.reload();
  await visible(page.getByRole('tab', { name: webText(lang, 'settings.tab_notifications'), selected: true }));
  expect(await immediately.isChecked()).toBe(true);
  expect(errors).toEqual([]);
}

/** Ana's immediate mails in the outbox so far, oldest first. */
async function mailsToAna(): Promise<Mail[]> {
  return (await outboxMails(kith)).map(parseMail).filter((mail) => mail.to.includes(ana.login));
}

async function comment(parent: string, text: string): Promise<string> {
  const res = await api<{ id: string }>(
    kith,
    'POST',
    '/messages',
    { group: ana.group, parent, data: { text } },
    ben.key,
  );
  expect(res.status).toBe(201);
  return res.body.id;
}

const fill = (text: string | undefined, count: number) => (text ?? '').replace('{{count}}', String(count));

describe('immediate e-mails', () => {
  const step = storySteps();

  step(
    'phone, English: Ana picks "Immediately" in her settings',
    () => chooseImmediately('phone', 'en_US', 'phone-en_US'),
    90_000,
  );

  step(
    'desktop, Korean: the same choice in another script',
    async () => {
      await setAna({ notification_emails: 'none', lang: 'ko_KR' });
      await chooseImmediately('desktop', 'ko_KR', 'desktop-ko_KR');
    },
    90_000,
  );

  let post = '';
  const burst: string[] = [];

  step(
    'a burst of comments by Ben gives Ana one mail, in Korean, listing them all',
    async () => {
      const res = await api<{ id: string }>(
        kith,
        'POST',
        '/messages',
        { group: ana.group, data: { title: 'Picnic on Sunday', text: 'Who brings what?' } },
        ana.key,
      );
      expect(res.status).toBe(201);
      post = res.body.id;
      // Her own post mails nobody; two comments from Ben, sent together, make one mail.
      burst.push(...(await Promise.all([comment(post, 'Bread and cheese'), comment(post, 'And a ball')])));
      const ko = mailTexts('ko_KR');
      await expect
        .poll(async () => (await mailsToAna()).map((m) => m.subject), { timeout: 30_000 })
        .toEqual([fill(ko['immediate_subject_other'], 2)]);
      const [mail] = await mailsToAna();
      for (const id of burst) expect(mail?.text).toContain(`${kith.url}/messages/${post}/${id}`);
      expect(mail?.text).toContain(ko['immediate_intro']);
      expect(mail?.text).toContain(ko['digest_unsubscribe']);
      expect(mail?.html).toContain('<html lang="ko-KR">');
      // The mail as a mail program shows it, for a look at the layout in Korean.
      const reader = await newPage(browser, 'phone');
      opened.push(reader);
      await reader.page.setContent(mail?.html ?? '');
      await reader.page.screenshot({ path: '/tmp/immediate-mail-ko_KR.png', fullPage: true });
    },
    60_000,
  );

  step(
    'a later comment gives a second mail with only itself',
    async () => {
      const later = await comment(post, 'I will bring lemonade');
      const ko = mailTexts('ko_KR');
      await expect.poll(async () => (await mailsToAna()).length, { timeout: 30_000 }).toBe(2);
      const [first, second] = await mailsToAna();
      expect(second?.subject).toBe(fill(ko['immediate_subject_other'], 1));
      expect(second?.text).toContain(`${kith.url}/messages/${post}/${later}`);
      for (const id of burst) expect(second?.text).not.toContain(id);
      // The first burst gave exactly its one mail: it is still the only one before this.
      expect(first?.subject).toBe(fill(ko['immediate_subject_other'], 2));
      // Ben, on none, got nothing.
      const toBen = (await outboxMails(kith)).map(parseMail).filter((m) => m.to.includes(ben.login));
      expect(toBen).toEqual([]);
    },
    60_000,
  );
});
