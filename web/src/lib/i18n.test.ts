import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { act, cleanup, render, screen } from '@testing-library/react';
import { createElement } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { i18n, initI18n, setLanguage, type TFunction, useTranslation } from './i18n';

const here = path.dirname(fileURLToPath(import.meta.url));
const srcDir = path.resolve(here, '..');
const enUS = JSON.parse(readFileSync(path.resolve(srcDir, '../../locales/en_US.json'), 'utf8')) as {
  web: Record<string, unknown>;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function has(key: string): boolean {
  const [section, name] = key.split('.');
  const texts = enUS.web[section ?? ''] as Record<string, string> | undefined;
  if (texts === undefined || name === undefined) return false;
  // A plural key exists as key_one / key_other.
  return name in texts || `${name}_other` in texts;
}

describe('en_US web texts', () => {
  it('has every key the client asks for', () => {
    const used = new Set<string>();
    for (const file of sources(srcDir)) {
      const code = readFileSync(file, 'utf8');
      for (const match of code.matchAll(/\b(?:t|showAlert)\(\s*'([a-z_]+\.[a-z_]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(100);
    expect([...used].filter((key) => !has(key))).toEqual([]);
  });

  it('has no empty text (the client would show the key instead)', () => {
    const empty = Object.entries(enUS.web).flatMap(([section, texts]) =>
      Object.entries(texts as Record<string, string>)
        .filter(([, text]) => text.trim() === '')
        .map(([name]) => `${section}.${name}`),
    );
    expect(empty).toEqual([]);
  });

  it('has a text for every message kind the client builds a key for', () => {
    for (const kind of ['image', 'video', 'audio', 'pdf']) expect(has(`composer.kind_${kind}`)).toBe(true);
    for (const code of ['invalid_credentials', 'too_many_requests', 'invalid_invite_key', 'invalid_reset_key']) {
      expect(has(`errors.${code}`)).toBe(true);
    }
  });
});

describe('language choice', () => {
  beforeAll(async () => {
    await initI18n('fr_FR');
  });

  it("starts in the page's default language, with that language's texts", () => {
    expect(i18n.language).toBe('fr_FR');
    expect(document.documentElement.lang).toBe('fr-FR');
    const french = JSON.parse(readFileSync(path.resolve(srcDir, '../../locales/fr_FR.json'), 'utf8')) as {
      web: { errors: { empty_message: string } };
    };
    expect(i18n.t('errors.empty_message')).toBe(french.web.errors.empty_message);
    expect(i18n.t('errors.empty_message')).not.toBe('The message is empty and cannot be sent.');
  });

  it("switches to the user's language, and to en_US for an unknown code", async () => {
    await setLanguage('de_DE');
    expect(i18n.language).toBe('de_DE');
    await setLanguage('xx_YY');
    expect(i18n.language).toBe('en_US');
    expect(document.documentElement.lang).toBe('en-US');
  });

  it('chooses plural forms with the language rules', async () => {
    await setLanguage('en_US');
    expect(i18n.t('feed.comments', { count: 1 })).toBe('1 comment');
    expect(i18n.t('feed.comments', { count: 3 })).toBe('3 comments');
  });

  it('renders components again, with a new t, when the language changes', async () => {
    await setLanguage('en_US');
    const seen: TFunction[] = [];
    function Probe() {
      const { t, i18n } = useTranslation();
      seen.push(t);
      return createElement('p', null, `${i18n.language}: ${t('feed.comments', { count: 2 })}`);
    }
    render(createElement(Probe));
    expect(screen.getByText('en_US: 2 comments')).toBeTruthy();
    await act(() => setLanguage('ru_RU'));
    expect(screen.getByText(`ru_RU: ${i18n.t('feed.comments', { count: 2 })}`)).toBeTruthy();
    expect(i18n.t('feed.comments', { count: 2 })).toMatch(/^2 комментари/);
    expect(seen.at(-1)).not.toBe(seen[0]);
    expect(seen.at(-1)).toBe(i18n.t);
    cleanup();
  });
});
