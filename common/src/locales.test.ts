import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './errors.js';
import { FALLBACK_LANGUAGE, LANGUAGES, pluralCategories, pluralCategory } from './i18n.js';

// The check that fails on a gap in a translation (issue 18): every language has every text of
// en_US (web client and e-mails), no English left in, the same placeholders, and exactly the plural
// forms of its language. The list of what was also checked by hand is in locales/README.md.

type Flat = Record<string, string>;

function load(lang: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../locales/${lang}.json`, import.meta.url), 'utf8'));
}

/** `{ web: { common: { retry: '…' } } }` → `{ 'web.common.retry': '…' }`; a non-string leaf is kept as a problem. */
function flatten(node: unknown, prefix: string, out: Flat, problems: string[]): Flat {
  for (const [name, value] of Object.entries(node as Record<string, unknown>)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    if (typeof value === 'string') out[path] = value;
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) flatten(value, path, out, problems);
    else problems.push(`${path}: not a text`);
  }
  return out;
}

const CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];

/** The plural bases of en_US: `web.time.minutes` for `web.time.minutes_one` and `…_other`. */
function pluralBases(english: Flat): Set<string> {
  const bases = new Set<string>();
  for (const key of Object.keys(english)) {
    const match = /^(.*)_other$/.exec(key);
    if (match?.[1] !== undefined && `${match[1]}_one` in english) bases.add(match[1]);
  }
  return bases;
}

/** The keys `lang` must have: en_US's plain keys and one form per plural category of `lang`. */
function expectedKeys(english: Flat, bases: Set<string>, lang: string): Set<string> {
  const keys = new Set<string>();
  for (const key of Object.keys(english)) {
    const match = /^(.*)_([a-z]+)$/.exec(key);
    if (match?.[1] !== undefined && bases.has(match[1]) && CATEGORIES.includes(match[2] ?? '')) continue;
    keys.add(key);
  }
  for (const base of bases) for (const category of pluralCategories(lang)) keys.add(`${base}_${category}`);
  return keys;
}

const placeholders = (text: string): string[] =>
  [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1] ?? '').sort();

/** True when `category` of `lang` covers exactly one whole number, so its text may spell the number out. */
function singleNumberCategory(lang: string, category: string): boolean {
  let matches = 0;
  for (let n = 0; n <= 1000; n += 1) if (pluralCategory(lang, n) === category) matches += 1;
  return matches === 1;
}

/**
 * Words that are written the same in English and in other languages, so a text made only of them
 * may equal the English one: the brand, file kinds, keyboard keys, numbers.
 */
const SAME_IN_EVERY_LANGUAGE = new Set([
  'kith',
  'pdf',
  'ok',
  'ctrl',
  'enter',
  'c',
  'api',
  'audio',
  'video',
  'e',
  'mail',
]);

/**
 * Texts that are, in a language, really the same as the English one (French "Notifications",
 * "Message", "Photos"; Norwegian "Send"): by language, the keys whose text may equal en_US's.
 */
const SAME_AS_ENGLISH = JSON.parse(
  readFileSync(new URL('../../locales/same-as-english.json', import.meta.url), 'utf8'),
) as Record<string, string[]>;

/** English words that are no word of the other Latin-script languages: one left in a text is a gap. */
const ENGLISH_ONLY = new Set(
  "the your you with this that have please again cannot isn’t isn't don’t don't what there been which could would should something someone anyone everyone nothing here yet".split(
    ' ',
  ),
);

/** Languages not written in Latin letters: a Latin word in them is English left behind. */
const OTHER_SCRIPTS = new Set(['ko_KR', 'ru_RU', 'ta_IN', 'zgh', 'zh_Hans']);

const words = (text: string): string[] =>
  text
    .replace(/\{\{\s*\w+\s*\}\}/g, ' ')
    .toLowerCase()
    .split(/[^\p{L}'’]+/u)
    .filter((word) => word !== '');

/** Every problem of one language's file, as readable lines (empty when it is complete). */
function problemsOf(
  lang: string,
  file: unknown,
  english: Flat,
  allowedSame: Record<string, string[]> = SAME_AS_ENGLISH,
): string[] {
  const problems: string[] = [];
  const texts = flatten(file, '', {}, problems);
  const bases = pluralBases(english);
  const expected = expectedKeys(english, bases, lang);
  for (const key of expected) if (!(key in texts)) problems.push(`${key}: missing`);
  for (const key of Object.keys(texts))
    if (!expected.has(key)) problems.push(`${key}: not a text of en_US (or a plural form ${lang} does not have)`);
  for (const [key, text] of Object.entries(texts)) {
    if (!expected.has(key)) continue;
    if (text.trim() === '') {
      problems.push(`${key}: empty`);
      continue;
    }
    const plural = /^(.*)_([a-z]+)$/.exec(key);
    const isPlural = plural?.[1] !== undefined && bases.has(plural[1]);
    const source = isPlural ? english[`${plural?.[1]}_other`] : english[key];
    if (source === undefined) continue;
    const want = placeholders(source);
    let have = placeholders(text);
    if (isPlural && !have.includes('count') && singleNumberCategory(lang, plural?.[2] ?? ''))
      have = [...have, 'count'].sort();
    if (want.join() !== have.join())
      problems.push(`${key}: placeholders {{${have.join('}} {{')}}} instead of {{${want.join('}} {{')}}}`);
    if (lang === FALLBACK_LANGUAGE) continue;
    const englishSource = english[key] ?? source;
    if (
      text === englishSource &&
      !(allowedSame[lang] ?? []).includes(key) &&
      words(text).some((word) => !SAME_IN_EVERY_LANGUAGE.has(word))
    )
      problems.push(`${key}: still the English text "${text}"`);
    // In other scripts, every run of Latin letters counts, also one a Korean particle is glued to
    // ("Kith에서").
    const left = OTHER_SCRIPTS.has(lang)
      ? words(text)
          .flatMap((word) => word.match(/[a-z]+/g) ?? [])
          .filter((run) => !SAME_IN_EVERY_LANGUAGE.has(run))
      : words(text).filter((word) => ENGLISH_ONLY.has(word));
    if (left.length > 0) problems.push(`${key}: English word(s) ${left.join(', ')} in "${text}"`);
  }
  return problems;
}

const english = flatten(load(FALLBACK_LANGUAGE), '', {}, []);

describe('locales/<lang>.json', () => {
  it('en_US has a text for every error code of the API', () => {
    expect(ERROR_CODES.filter((code) => english[`web.errors.${code}`] === undefined)).toEqual([]);
  });

  it('allows a text the same as English only in a language that has it, and only while it is', () => {
    const stale = Object.entries(SAME_AS_ENGLISH).flatMap(([lang, keys]) => {
      if (!(LANGUAGES as readonly string[]).includes(lang) || lang === FALLBACK_LANGUAGE)
        return [`${lang}: not a translation`];
      const texts = flatten(load(lang), '', {}, []);
      return keys
        .filter((key) => english[key] === undefined || texts[key] !== english[key])
        .map((key) => `${lang} ${key}`);
    });
    expect(stale).toEqual([]);
  });

  it.each(LANGUAGES)('%s has every text, translated, with its placeholders and plural forms', (lang) => {
    expect(problemsOf(lang, load(lang), english)).toEqual([]);
  });
});

describe('the locale check itself', () => {
  it('finds the plural bases of en_US, and not a key that only ends like a category', () => {
    const bases = pluralBases({ 'a.n_one': '', 'a.n_other': '', 'b.two': '', 'c.new_two': '' });
    expect([...bases]).toEqual(['a.n']);
    expect([...expectedKeys({ 'a.n_one': '', 'a.n_other': '', 'c.new_two': '' }, bases, 'ru_RU')].sort()).toEqual(
      ['a.n_few', 'a.n_many', 'a.n_one', 'a.n_other', 'c.new_two'].sort(),
    );
    expect([...expectedKeys({ 'a.n_one': '', 'a.n_other': '' }, bases, 'ko_KR')]).toEqual(['a.n_other']);
  });

  it('lets only a category of one number leave the count out', () => {
    expect(singleNumberCategory('de_DE', 'one')).toBe(true);
    expect(singleNumberCategory('ru_RU', 'one')).toBe(false);
    expect(singleNumberCategory('fr_FR', 'one')).toBe(false);
  });

  it('reports a missing text, English left in, a wrong placeholder and a wrong plural form', () => {
    const source = {
      a: { hi: 'Hello {{name}}', pdf: 'PDF', n_one: '{{count}} file', n_other: '{{count}} files', note: 'Your photo' },
    };
    const german = {
      a: {
        hi: 'Hello {{name}}',
        pdf: 'PDF',
        n_one: 'eine Datei',
        n_few: '{{count}} Dateien',
        note: 'Ein Foto für the family',
      },
    };
    expect(problemsOf('de_DE', german, flatten(source, '', {}, [])).sort()).toEqual(
      [
        'a.n_other: missing',
        'a.n_few: not a text of en_US (or a plural form de_DE does not have)',
        'a.hi: still the English text "Hello {{name}}"',
        'a.note: English word(s) the in "Ein Foto für the family"',
      ].sort(),
    );
    const russian = {
      a: {
        hi: 'Привет, {{user}}',
        pdf: 'PDF',
        n_one: 'один файл',
        n_few: '{{count}} файла',
        n_many: '{{count}} файлов',
        n_other: '{{count}} файла',
        note: 'Ваше photoфото',
      },
    };
    expect(problemsOf('ru_RU', russian, flatten(source, '', {}, [])).sort()).toEqual(
      [
        'a.hi: placeholders {{user}} instead of {{name}}',
        'a.n_one: placeholders {{}} instead of {{count}}',
        'a.note: English word(s) photo in "Ваше photoфото"',
      ].sort(),
    );
  });

  it('reads words without placeholders', () => {
    expect(words('{{name}} and the PDF')).toEqual(['and', 'the', 'pdf']);
  });
});
