import { describe, expect, it } from 'vitest';
import { type Texts, translator } from './translate';

const en: Texts = {
  errors: { generic: 'An error occurred', only_english: 'Only in English' },
  notifications: { joined: '{{name}} joined {{group}}', spaced: '{{ name }} and {{name}}' },
  feed: {
    comments_one: '{{count}} comment',
    comments_other: '{{count}} comments',
    plain: '{{count}} things',
  },
  deep: { er: { still: 'Found' } },
  empty: { text: '' },
};

// Russian has four plural forms: 1 and 21 one, 2–4 few, 5–20 many, fractions other.
const ru: Texts = {
  errors: { generic: 'Произошла ошибка' },
  feed: {
    comments_one: '{{count}} комментарий',
    comments_few: '{{count}} комментария',
    comments_many: '{{count}} комментариев',
    comments_other: '{{count}} комментария (дробь)',
  },
  partial: { files_one: '{{count}} файл', files_other: '{{count}} файлов' },
  empty: { text: '' },
};

describe('translator', () => {
  const t = translator('en_US', { en_US: en });

  it('reads dot paths into nested texts', () => {
    expect(t('errors.generic')).toBe('An error occurred');
    expect(t('deep.er.still')).toBe('Found');
  });

  it('fills {{placeholders}} without HTML escaping, leaving unknown ones as written', () => {
    expect(t('notifications.joined', { name: 'Ana', group: 'Family' })).toBe('Ana joined Family');
    expect(t('notifications.spaced', { name: 'Ben' })).toBe('Ben and Ben');
    expect(t('notifications.joined', { name: '<b>Tom & Jerry</b>' })).toBe('<b>Tom & Jerry</b> joined {{group}}');
    expect(t('notifications.joined', { name: undefined, group: null })).toBe(' joined ');
    expect(t('notifications.joined', { name: 7, group: 'x' })).toBe('7 joined x');
    expect(t('notifications.joined')).toBe('{{name}} joined {{group}}');
  });

  it('chooses English plural forms with count', () => {
    expect(t('feed.comments', { count: 0 })).toBe('0 comments');
    expect(t('feed.comments', { count: 1 })).toBe('1 comment');
    expect(t('feed.comments', { count: 2 })).toBe('2 comments');
    expect(t('feed.comments', { count: 21 })).toBe('21 comments');
    // A key without plural forms is used as it is.
    expect(t('feed.plain', { count: 1 })).toBe('1 things');
  });

  it('chooses the plural form with the rules of the language', () => {
    const tr = translator('ru_RU', { ru_RU: ru, en_US: en });
    expect(tr('feed.comments', { count: 1 })).toBe('1 комментарий');
    expect(tr('feed.comments', { count: 3 })).toBe('3 комментария');
    expect(tr('feed.comments', { count: 5 })).toBe('5 комментариев');
    expect(tr('feed.comments', { count: 21 })).toBe('21 комментарий');
    // The number itself is written the Russian way: a decimal comma, a space between thousands.
    expect(tr('feed.comments', { count: 1.5 })).toBe('1,5 комментария (дробь)');
    expect(tr('feed.comments', { count: 12345 })).toBe('12\u00a0345 комментариев');
    // A form the translation lacks falls back to its _other form, not to English.
    expect(tr('partial.files', { count: 3 })).toBe('3 файлов');
    expect(tr('partial.files', { count: 1 })).toBe('1 файл');
  });

  it('takes a text missing in the language from en_US, with the English plural rules', () => {
    const tr = translator('ru_RU', { ru_RU: ru, en_US: en });
    expect(tr('errors.generic')).toBe('Произошла ошибка');
    expect(tr('errors.only_english')).toBe('Only in English');
    const noRussian = translator('ru_RU', { ru_RU: {}, en_US: en });
    // 21 and 3 are "one" and "few" in Russian, but "other" in English.
    expect(noRussian('feed.comments', { count: 21 })).toBe('21 comments');
    expect(noRussian('feed.comments', { count: 3 })).toBe('3 comments');
    expect(noRussian('feed.comments', { count: 1 })).toBe('1 comment');
    // Texts not loaded (yet) also fall back.
    expect(translator('cs_CZ', { en_US: en })('errors.generic')).toBe('An error occurred');
  });

  it('counts an empty text as missing', () => {
    expect(translator('ru_RU', { ru_RU: ru, en_US: { empty: { text: 'Filled' } } })('empty.text')).toBe('Filled');
    expect(t('empty.text')).toBe('empty.text');
  });

  it('gives defaultValue, filled in, for a missing text, and the text when there is one', () => {
    expect(t('errors.unknown_code', { defaultValue: 'The server said no' })).toBe('The server said no');
    expect(t('errors.unknown_code', { defaultValue: 'No {{name}}', name: 'Ana' })).toBe('No Ana');
    expect(t('errors.generic', { defaultValue: 'The server said no' })).toBe('An error occurred');
  });

  it('gives the key itself for a missing text', () => {
    expect(t('errors.unknown_code')).toBe('errors.unknown_code');
    expect(t('feed.missing', { count: 2 })).toBe('feed.missing');
    expect(t('errors')).toBe('errors');
    expect(t('errors.generic.more')).toBe('errors.generic.more');
    expect(t('errors.toString')).toBe('errors.toString');
    expect(translator('en_US', {})('errors.generic')).toBe('errors.generic');
  });

  it('reads the texts at each call, so texts loaded later are seen', () => {
    const texts: Record<string, Texts> = {};
    const late = translator('de_DE', texts);
    expect(late('errors.generic')).toBe('errors.generic');
    texts.en_US = en;
    texts.de_DE = { errors: { generic: 'Ein Fehler ist aufgetreten' } };
    expect(late('errors.generic')).toBe('Ein Fehler ist aufgetreten');
  });
});
