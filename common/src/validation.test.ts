import { describe, expect, it } from 'vitest';
import { FALLBACK_LANGUAGE, isOfferedLanguage, LANGUAGES } from './i18n.js';
import { IMAGE_SIZES, LIMITS } from './limits.js';
import { isValidLangCode, isValidNewPassword, nameFromEmail, normalizeEmail, normalizeName } from './validation.js';

describe('normalizeName (docs/api §1.7: trimmed, 1–128, no < > or control characters)', () => {
  it('trims the name before checking and returning it', () => {
    expect(normalizeName('  Ana Lima \t\n')).toBe('Ana Lima');
  });

  it('accepts 1 and 128 characters', () => {
    expect(normalizeName('A')).toBe('A');
    const name = 'x'.repeat(128);
    expect(normalizeName(name)).toBe(name);
  });

  it('refuses 0 characters, also after trimming', () => {
    expect(normalizeName('')).toBeNull();
    expect(normalizeName('   \t ')).toBeNull();
  });

  it('refuses 129 characters', () => {
    expect(normalizeName('x'.repeat(129))).toBeNull();
  });

  it('checks the length after trimming', () => {
    const name = 'x'.repeat(128);
    expect(normalizeName(`   ${name}   `)).toBe(name);
  });

  it.each([
    ['<', 'a<b'],
    ['>', 'a>b'],
    ['NUL \\u0000', 'a\u0000b'],
    ['BEL \\u0007', 'a\u0007b'],
    ['DEL \\u007f', 'a\u007fb'],
    ['NEL \\u0085 (C1)', 'a\u0085b'],
    ['\\u009f (last C1)', 'a\u009fb'],
    ['a newline inside', 'a\nb'],
  ])('refuses %s', (_label, value) => {
    expect(normalizeName(value)).toBeNull();
  });

  it('accepts emoji, accents and non-Latin scripts', () => {
    expect(normalizeName('Zoë 🎉')).toBe('Zoë 🎉');
    expect(normalizeName('Éléonore Ångström')).toBe('Éléonore Ångström');
    expect(normalizeName('山田 太郎')).toBe('山田 太郎');
    expect(normalizeName('e\u0301')).toBe('e\u0301');
    expect(normalizeName('a\u00a0b')).toBe('a\u00a0b');
  });

  it('counts the length in UTF-16 code units', () => {
    // 🎉 is two UTF-16 units: 64 of them are 128 units, 65 are 130.
    expect('🎉'.length).toBe(2);
    expect(normalizeName('🎉'.repeat(64))).toBe('🎉'.repeat(64));
    expect(normalizeName('🎉'.repeat(65))).toBeNull();
    // 127 letters and one emoji is 129 units although only 128 code points.
    expect(normalizeName(`${'a'.repeat(127)}🎉`)).toBeNull();
  });
});

describe('normalizeEmail (docs/api §1.7: trimmed and lowercased, ≤ 254, one @, a dot in the domain)', () => {
  it('trims and lowercases', () => {
    expect(normalizeEmail('  Ana.Lima@Example.ORG \n')).toBe('ana.lima@example.org');
  });

  it('accepts 254 characters and refuses 255', () => {
    const domain = '@example.org';
    const at254 = `${'a'.repeat(254 - domain.length)}${domain}`;
    expect(at254.length).toBe(254);
    expect(normalizeEmail(at254)).toBe(at254);
    const at255 = `a${at254}`;
    expect(normalizeEmail(at255)).toBeNull();
  });

  it('checks the length after trimming', () => {
    const domain = '@example.org';
    const at254 = `${'a'.repeat(254 - domain.length)}${domain}`;
    expect(normalizeEmail(`  ${at254}  `)).toBe(at254);
  });

  it('accepts a plain address', () => {
    expect(normalizeEmail('a@b.co')).toBe('a@b.co');
    expect(normalizeEmail('first.last+tag@mail.example.org')).toBe('first.last+tag@mail.example.org');
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['no @', 'ana.example.org'],
    ['two @', 'ana@lima@example.org'],
    ['nothing before @', '@example.org'],
    ['nothing after @', 'ana@'],
    ['no dot in the domain', 'ana@localhost'],
    ['a trailing dot', 'ana@example.org.'],
    ['a domain starting with a dot', 'ana@.example.org'],
    ['a space inside', 'ana lima@example.org'],
    ['a space in the domain', 'ana@exam ple.org'],
    ['a tab inside', 'ana\t@example.org'],
  ])('refuses %s', (_label, value) => {
    expect(normalizeEmail(value)).toBeNull();
  });
});

describe('isValidNewPassword (docs/api §1.7: 8–128 characters)', () => {
  it.each([
    [7, false],
    [8, true],
    [128, true],
    [129, false],
  ])('%i characters -> %s', (length, valid) => {
    expect(isValidNewPassword('p'.repeat(length))).toBe(valid);
  });

  it('has no composition rule', () => {
    expect(isValidNewPassword('        ')).toBe(true);
    expect(isValidNewPassword('aaaaaaaa')).toBe(true);
  });

  it('counts UTF-16 code units', () => {
    expect(isValidNewPassword('🔑'.repeat(4))).toBe(true); // 8 units
    expect(isValidNewPassword('🔑'.repeat(3))).toBe(false); // 6 units
  });
});

describe('isValidLangCode (docs/api §1.7: letters, optional _ and 2–4 letters, ≤ 16)', () => {
  it.each(['fr_FR', 'zgh', 'zh_Hans', 'en_US', 'pt_BR', 'de'])('accepts %s', (code) => {
    expect(isValidLangCode(code)).toBe(true);
  });

  it.each([
    ['a hyphen', 'fr-FR'],
    ['one letter', 'f'],
    ['17 characters', 'abcdefghijkl_Abcd'],
    ['17 letters', 'abcdefghijklmnopq'],
    ['a region of 6 letters', 'fr_FRANCE'],
    ['a region of 1 letter', 'fr_F'],
    ['an empty region', 'fr_'],
    ['digits', 'es_419'],
    ['empty', ''],
    ['markup', '<script>'],
    ['a path', '../etc'],
  ])('refuses %s', (_label, code) => {
    expect(isValidLangCode(code)).toBe(false);
  });

  it('accepts a 16-character code (the contract bound)', () => {
    // Letters, "_" and 4 letters, 16 characters in all: inside every rule of the contract.
    expect('abcdefghijk_Abcd'.length).toBe(16);
    expect(isValidLangCode('abcdefghijk_Abcd')).toBe(true);
  });
});

describe('nameFromEmail', () => {
  it('takes the part before @ without < and >', () => {
    expect(nameFromEmail('Ana<b>@x.org')).toBe('Anab');
    expect(nameFromEmail('ana.lima@example.org')).toBe('ana.lima');
  });

  it('cuts the name to 128 characters', () => {
    const name = nameFromEmail(`${'n'.repeat(200)}@example.org`);
    expect(name).toBe('n'.repeat(128));
  });

  it('always gives a valid name', () => {
    for (const email of ['<>@x.org', 'a\u0007b@x.org', '   @x.org', '']) {
      const name = nameFromEmail(email);
      expect(normalizeName(name), JSON.stringify(email)).toBe(name);
    }
  });
});

describe('LIMITS and IMAGE_SIZES (values fixed by the contract)', () => {
  it('fixes the message, name and password limits', () => {
    expect(LIMITS.text).toBe(50000);
    expect(LIMITS.title).toBe(500);
    expect(LIMITS.nameMin).toBe(1);
    expect(LIMITS.name).toBe(128);
    expect(LIMITS.passwordMin).toBe(8);
    expect(LIMITS.passwordMax).toBe(128);
    expect(LIMITS.loginPasswordMax).toBe(1024);
    expect(LIMITS.email).toBe(254);
    expect(LIMITS.filesPerMessage).toBe(200);
    expect(LIMITS.jsonBodyBytes).toBe(1024 * 1024);
    expect(LIMITS.langCode).toBe(16);
  });

  it('fixes the page sizes', () => {
    expect(LIMITS.groupPageSize).toBe(30);
    expect(LIMITS.notificationsShown).toBe(20);
    expect(LIMITS.notificationsDefault).toBe(50);
    expect(LIMITS.notificationsMax).toBe(200);
    expect(LIMITS.bookmarksDefault).toBe(1000);
    expect(LIMITS.bookmarksMax).toBe(2000);
  });

  it.each(['720/99999', '1366/99999', '2048/99999', '1280/720', '420/994'])('allows the thumbnail %s', (size) => {
    expect(IMAGE_SIZES.thumbnail as readonly string[]).toContain(size);
  });

  it.each(['320/180', '160/160', '100/100', '80/80', '200/200', '270/270', '1024/270'])(
    'allows the crop %s',
    (size) => {
      expect(IMAGE_SIZES.crop as readonly string[]).toContain(size);
    },
  );

  it('allows no other sizes (the thumbnail store stays bounded)', () => {
    expect(IMAGE_SIZES.thumbnail).toHaveLength(5);
    expect(IMAGE_SIZES.crop).toHaveLength(7);
  });
});

describe('i18n', () => {
  const spec = [
    'cs_CZ',
    'de_DE',
    'en_US',
    'es_ES',
    'fr_FR',
    'hu_HU',
    'ko_KR',
    'nb_NO',
    'nl_NL',
    'pt_BR',
    'ru_RU',
    'sk_SK',
    'ta_IN',
    'zgh',
    'zh_Hans',
  ];

  it('offers exactly the 15 languages of the product spec', () => {
    expect(LANGUAGES).toHaveLength(15);
    expect([...LANGUAGES].sort()).toEqual([...spec].sort());
  });

  it('falls back to en_US', () => {
    expect(FALLBACK_LANGUAGE).toBe('en_US');
  });

  it('every offered code is a valid language code', () => {
    for (const code of LANGUAGES) expect(isValidLangCode(code), code).toBe(true);
  });

  it.each(spec)('isOfferedLanguage(%s) is true', (code) => {
    expect(isOfferedLanguage(code)).toBe(true);
  });

  it.each(['en_GB', 'fr', 'FR_fr', 'en_us', 'zh_Hant', '', 'en_US '])('isOfferedLanguage(%j) is false', (code) => {
    expect(isOfferedLanguage(code)).toBe(false);
  });
});
