import { existsSync, readFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LANGUAGES, type Language } from '@kith/common';
import { loginChangedMail, passwordResetMail } from '../features/auth/mails.js';
import { escapeHtml, renderMailBody, type Block, type MailBody } from './layout.js';
import { mailLanguage, translator } from './texts.js';
import type * as Texts from './texts.js';

/** The locale files of the product, found from this file's place in the repository. */
const LOCALES = path.resolve(import.meta.dirname, '..', '..', '..', 'locales');

function localeFile(lang: string): string {
  return path.join(LOCALES, `${lang}.json`);
}

/** The mail texts of a language, a sub-object's (`mail.reply`) under dotted keys (`reply.hint`). */
function mailTextsOf(lang: string): Record<string, unknown> {
  const file = JSON.parse(readFileSync(localeFile(lang), 'utf8')) as { mail?: Record<string, unknown> };
  const flat: Record<string, unknown> = {};
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        walk(value as Record<string, unknown>, `${prefix}${key}.`);
      } else flat[`${prefix}${key}`] = value;
    }
  };
  walk(file.mail ?? {}, '');
  return flat;
}

/** The `{{placeholders}}` of a text, sorted and without repeats. */
function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1] ?? ''))].sort();
}

const fill = (text: unknown, count: number): string => String(text).replace(/\{\{\s*count\s*\}\}/g, String(count));

describe('locales/<lang>.json mail texts', () => {
  const english = mailTextsOf('en_US');
  const englishKeys = Object.keys(english);
  const pluralBases = [
    ...new Set(englishKeys.filter((k) => /_(one|other)$/.test(k)).map((k) => k.replace(/_(one|other)$/, ''))),
  ];
  const pluralCategories = ['zero', 'one', 'two', 'few', 'many', 'other'];
  const isPluralKey = (key: string): boolean =>
    pluralBases.some((base) => pluralCategories.some((c) => key === `${base}_${c}`));
  const plainKeys = englishKeys.filter((k) => !isPluralKey(k));

  it('has English plurals and plain texts to check against', () => {
    expect(pluralBases).toEqual(expect.arrayContaining(['digest_subject', 'digest_more']));
    expect(plainKeys).toEqual(expect.arrayContaining(['greeting', 'password_reset_subject', 'frequency_daily']));
    for (const base of pluralBases) expect(english[`${base}_other`], base).toBeTypeOf('string');
  });

  it.each(LANGUAGES)('%s has every text, with the plural forms of its language', (lang) => {
    expect(existsSync(localeFile(lang)), `${localeFile(lang)} is missing`).toBe(true);
    const texts = mailTextsOf(lang);
    const { pluralCategories: categories } = new Intl.PluralRules(lang.replace('_', '-')).resolvedOptions();
    const expected = [...plainKeys, ...pluralBases.flatMap((base) => categories.map((c) => `${base}_${c}`))];
    expect(Object.keys(texts).sort()).toEqual(expected.sort());

    for (const [key, value] of Object.entries(texts)) {
      expect(value, `${lang} ${key}`).toBeTypeOf('string');
      expect(String(value).trim(), `${lang} ${key} is empty`).not.toBe('');
      const source = isPluralKey(key) ? english[key.replace(/_[a-z]+$/, '_other')] : english[key];
      expect(placeholders(String(value)), `${lang} ${key}`).toEqual(placeholders(String(source)));
    }
  });

  it('uses English plural categories for zgh', () => {
    expect(new Intl.PluralRules('zgh').resolvedOptions().pluralCategories.sort()).toEqual(['one', 'other']);
  });
});

describe('translator', () => {
  const t = translator('en_US');

  it('fills the placeholders', () => {
    expect(t('greeting', { name: 'Ana' })).toBe('Hello Ana,');
    expect(t('footer_sent_by', { site: 'https://kith.example' })).toBe('Sent by Kith at https://kith.example.');
    // Unknown parameters are ignored; a placeholder without a value stays as it is.
    expect(t('greeting', { name: 'Ana', other: 'x' })).toBe('Hello Ana,');
    expect(t('greeting')).toBe('Hello {{name}},');
  });

  it('chooses the plural form with Intl.PluralRules', () => {
    expect(t('digest_subject', { count: 1 })).toBe('1 new message in your groups');
    expect(t('digest_subject', { count: 0 })).toBe('0 new messages in your groups');
    expect(t('digest_subject', { count: 5 })).toBe('5 new messages in your groups');

    const czech = mailTextsOf('cs_CZ');
    const cs = translator('cs_CZ');
    expect(cs('digest_subject', { count: 1 })).toBe(fill(czech.digest_subject_one, 1));
    expect(cs('digest_subject', { count: 3 })).toBe(fill(czech.digest_subject_few, 3));
    expect(cs('digest_subject', { count: 5 })).toBe(fill(czech.digest_subject_other, 5));
    // The count is written the Czech way, with a decimal comma.
    expect(cs('digest_subject', { count: 1.5 })).toBe(String(czech.digest_subject_many).replace('{{count}}', '1,5'));
    expect(new Set([czech.digest_subject_one, czech.digest_subject_few, czech.digest_subject_other]).size).toBe(3);
  });

  it('throws for a text that exists in no language', () => {
    expect(() => t('no_such_text')).toThrow(/no_such_text/);
    expect(() => translator('fr_FR')('no_such_text', { count: 2 })).toThrow(/no_such_text/);
  });

  describe('with a half-translated language', () => {
    // de_DE served from this object instead of its file: one plain text and one plural form only.
    const partial = {
      mail: { greeting: 'Hallo {{name}}!', digest_more_other: 'und {{count}} weitere' },
    };
    let texts: typeof Texts;

    beforeAll(async () => {
      vi.resetModules();
      vi.doMock('node:fs', async (importOriginal) => {
        const fs = await importOriginal<typeof Fs>();
        const readFileSync = (...args: Parameters<typeof fs.readFileSync>) =>
          path.basename(String(args[0])) === 'de_DE.json' ? JSON.stringify(partial) : fs.readFileSync(...args);
        return { ...fs, default: { ...fs, readFileSync }, readFileSync };
      });
      texts = await import('./texts.js');
    });

    afterAll(() => {
      vi.doUnmock('node:fs');
      vi.resetModules();
    });

    it('reads the partial file', () => {
      expect(texts.mailTexts('de_DE')).toEqual(partial.mail);
      expect(texts.translator('de_DE')('greeting', { name: 'Ana' })).toBe('Hallo Ana!');
    });

    it('falls back to en_US for a missing text', () => {
      const de = texts.translator('de_DE');
      expect(de('digest_open')).toBe('Open Kith');
      expect(de('login_changed_body', { login: 'new@example.org' })).toContain('to new@example.org.');
    });

    it("uses the language's own _other form before falling back to English", () => {
      const de = texts.translator('de_DE');
      expect(de('digest_more', { count: 1 })).toBe('und 1 weitere');
      // No German digest_subject at all: the English plural forms.
      expect(de('digest_subject', { count: 1 })).toBe('1 new message in your groups');
      expect(de('digest_subject', { count: 4 })).toBe('4 new messages in your groups');
    });
  });
});

describe('mailLanguage', () => {
  it("is the user's language when Kith offers it", () => {
    expect(mailLanguage('fr_FR', 'en_US')).toBe('fr_FR');
    expect(mailLanguage('zgh', 'de_DE')).toBe('zgh');
    expect(mailLanguage('zh_Hans', 'de_DE')).toBe('zh_Hans');
  });

  it("is the instance default when the user's language is missing or not offered", () => {
    expect(mailLanguage(null, 'de_DE')).toBe('de_DE');
    expect(mailLanguage(undefined, 'de_DE')).toBe('de_DE');
    expect(mailLanguage('', 'de_DE')).toBe('de_DE');
    expect(mailLanguage('fr', 'de_DE')).toBe('de_DE');
    expect(mailLanguage('it_IT', 'de_DE')).toBe('de_DE');
    expect(mailLanguage('fr_fr', 'de_DE')).toBe('de_DE');
  });

  it('is en_US when the instance default is not offered either', () => {
    expect(mailLanguage(null, 'it_IT')).toBe('en_US');
    expect(mailLanguage('xx_XX', '')).toBe('en_US');
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML special characters', () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;',
    );
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
    expect(escapeHtml('plain text, é ✓')).toBe('plain text, é ✓');
  });
});

describe('renderMailBody', () => {
  const nasty = `<b onclick="x()">Tom & 'Jerry'</b>`;
  const escaped = escapeHtml(nasty);
  const image = 'https://kith.example/family/api/images/crop/160/160/f1?exp=1&sig=abc';
  const blocks: Block[] = [
    { kind: 'paragraph', text: `Paragraph ${nasty}` },
    { kind: 'paragraph', text: `Muted ${nasty}`, muted: true },
    { kind: 'button', label: `Button ${nasty}`, url: 'https://kith.example/family/a?x=1&y=2' },
    { kind: 'url', url: 'https://kith.example/family/b?x=1&y=2' },
    { kind: 'heading', text: `Heading ${nasty}` },
    {
      kind: 'item',
      title: `Item ${nasty}`,
      detail: `Detail ${nasty}`,
      url: 'https://kith.example/family/c',
      imageUrl: image,
    },
    { kind: 'item', title: 'Plain item', detail: 'No picture', url: 'https://kith.example/family/d', imageUrl: null },
  ];
  const body = (over: Partial<MailBody> = {}): MailBody => ({
    lang: 'en_US',
    preview: `Preview ${nasty}`,
    blocks,
    footer: [
      { text: `Footer ${nasty}`, link: { label: `Stop ${nasty}`, url: 'https://kith.example/family/stop?a=1&b=2' } },
      { text: 'Sent by Kith.' },
    ],
    ...over,
  });

  it('tags the document with the BCP 47 language', () => {
    const tags: [Language, string][] = [
      ['en_US', 'en-US'],
      ['pt_BR', 'pt-BR'],
      ['zh_Hans', 'zh-Hans'],
      ['zgh', 'zgh'],
    ];
    for (const [lang, tag] of tags) expect(renderMailBody(body({ lang })).html).toContain(`<html lang="${tag}">`);
  });

  it('declares light and dark colour schemes', () => {
    const { html } = renderMailBody(body());
    expect(html).toMatch(/<meta name="color-scheme" content="light dark">/);
    expect(html).toContain('prefers-color-scheme: dark');
  });

  it('loads nothing of its own: no script, link, import or remote source but the pictures given', () => {
    const { html } = renderMailBody(body());
    expect(html.toLowerCase()).not.toContain('<script');
    expect(html.toLowerCase()).not.toContain('<link');
    expect(html).not.toContain('@import');
    expect(html).not.toMatch(/url\(/i);
    const sources = [...html.matchAll(/\bsrc="([^"]*)"/g)].map((m) => m[1]);
    expect(sources).toEqual([escapeHtml(image)]);
  });

  it('escapes every text in the HTML part', () => {
    const { html } = renderMailBody(body());
    expect(html).not.toContain(nasty);
    expect(html).not.toContain('<b onclick');
    expect(html).not.toContain("'Jerry'");
    for (const label of ['Preview', 'Paragraph', 'Muted', 'Button', 'Heading', 'Item', 'Detail', 'Footer', 'Stop'])
      expect(html, label).toContain(`${label} ${escaped}`);
    expect(html).toContain(`<title>Preview ${escaped}</title>`);
    // URLs are escaped in attributes and in text.
    expect(html).toContain('href="https://kith.example/family/a?x=1&amp;y=2"');
    expect(html).toContain('>https://kith.example/family/b?x=1&amp;y=2</a>');
    expect(html).not.toContain('x=1&y=2');
  });

  it('shows a picture only for items that have one', () => {
    const { html } = renderMailBody(body());
    expect(html.match(/<img /g)).toHaveLength(1);
    expect(html).toContain('href="https://kith.example/family/d"');
  });

  it('writes the same content, unescaped, in the text part', () => {
    const { text } = renderMailBody(body());
    expect(text).not.toContain('&amp;');
    expect(text).not.toContain('&lt;');
    expect(text).toContain(`Paragraph ${nasty}`);
    expect(text).toContain(`Muted ${nasty}`);
    expect(text).toContain(`Button ${nasty}:\nhttps://kith.example/family/a?x=1&y=2`);
    expect(text).toContain('\nhttps://kith.example/family/b?x=1&y=2\n');
    expect(text).toContain(`== Heading ${nasty} ==`);
    expect(text).toContain(`* Item ${nasty}\n  Detail ${nasty}\n  https://kith.example/family/c`);
    expect(text).toContain('* Plain item\n  No picture\n  https://kith.example/family/d');
    // Blocks keep their order.
    expect(text.indexOf('Paragraph')).toBeLessThan(text.indexOf('Button'));
    expect(text.indexOf('Heading')).toBeLessThan(text.indexOf('Plain item'));
  });

  it('puts the footer and its links in both parts, after the body', () => {
    const { html, text } = renderMailBody(body());
    expect(text).toContain(
      `\n-- \nFooter ${nasty} Stop ${nasty}: https://kith.example/family/stop?a=1&b=2\nSent by Kith.\n`,
    );
    expect(text.indexOf('-- \n')).toBeGreaterThan(text.indexOf('Plain item'));
    expect(html).toContain(`href="https://kith.example/family/stop?a=1&amp;b=2"`);
    expect(html).toMatch(/<a href="https:\/\/kith\.example\/family\/stop\?a=1&amp;b=2"[^>]*>Stop /);
    expect(html).toContain('>Sent by Kith.</p>');
    expect(html.indexOf('Sent by Kith.')).toBeGreaterThan(html.indexOf('Plain item'));
  });
});

describe('account mails', () => {
  const config = { publicUrl: 'https://kith.example/family', defaultLang: 'en_US' };
  const user = { login: 'zoe@example.org', name: `Zoë <O'Brien> & "co"`, lang: 'en_US' };
  const link = 'https://kith.example/family/password-reset?mail=zoe%40example.org&key=abc123';

  describe('passwordResetMail', () => {
    const mail = passwordResetMail(config, user, link);

    it('goes to the login of the user', () => {
      expect(mail.kind).toBe('password_reset');
      expect(mail.to).toBe('zoe@example.org');
      expect(mail.subject).toBe('Choose a new Kith password');
    });

    it('carries the link verbatim in the text part and escaped in the HTML part', () => {
      expect(mail.text).toContain(link);
      expect(mail.html).not.toContain(link);
      expect(mail.html).toContain(`href="${link.replace('&', '&amp;')}"`);
      expect(mail.html).toContain('mail=zoe%40example.org&amp;key=abc123');
    });

    it("escapes the user's name in the HTML part", () => {
      expect(mail.html).toContain('Hello Zoë &lt;O&#39;Brien&gt; &amp; &quot;co&quot;,');
      expect(mail.html).not.toContain('<O');
      expect(mail.text).toContain(`Hello ${user.name},`);
    });

    it('has the common footer', () => {
      expect(mail.text).toContain('Sent by Kith at https://kith.example/family.');
      expect(mail.html).toContain('Sent by Kith at https://kith.example/family.');
    });
  });

  describe('loginChangedMail', () => {
    it('goes to the previous address and names the new one', () => {
      const mail = loginChangedMail(config, 'old@example.org', { ...user, login: 'new@example.org' });
      expect(mail.kind).toBe('login_changed');
      expect(mail.to).toBe('old@example.org');
      expect(mail.subject).toBe('Your Kith login was changed');
      expect(mail.text).toContain('to new@example.org.');
      expect(mail.html).toContain('to new@example.org.');
      expect(mail.text).not.toContain('old@example.org');
    });
  });

  describe('language', () => {
    it("is the user's language", () => {
      const french = mailTextsOf('fr_FR');
      const mail = passwordResetMail(config, { ...user, lang: 'fr_FR' }, link);
      expect(mail.subject).toBe(french.password_reset_subject);
      expect(mail.subject).not.toBe('Choose a new Kith password');
      expect(mail.html).toContain('<html lang="fr-FR">');
      expect(mail.text).toContain(String(french.greeting).replace('{{name}}', user.name));
    });

    it('is the instance default for a user without one', () => {
      const french = mailTextsOf('fr_FR');
      const mail = loginChangedMail({ ...config, defaultLang: 'fr_FR' }, 'old@example.org', { ...user, lang: null });
      expect(mail.subject).toBe(french.login_changed_subject);
    });
  });
});
