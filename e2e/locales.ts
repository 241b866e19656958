// The texts of locales/<lang>.json for the scenarios that check translated screens: each file read
// once, the `web` and `mail` sections flattened to dot paths (`settings.title`, `reply.hint`), as the
// client and the server look them up.
import { readFileSync } from 'node:fs';

interface LocaleFile {
  web: Record<string, unknown>;
  mail: Record<string, unknown>;
}

const files = new Map<string, { web: Record<string, string>; mail: Record<string, string> }>();

function flatten(node: Record<string, unknown>, prefix: string, out: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(node)) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'object' && value !== null) flatten(value as Record<string, unknown>, key, out);
  }
  return out;
}

function load(lang: string): { web: Record<string, string>; mail: Record<string, string> } {
  let texts = files.get(lang);
  if (texts === undefined) {
    const file = JSON.parse(readFileSync(new URL(`../locales/${lang}.json`, import.meta.url), 'utf8')) as LocaleFile;
    texts = { web: flatten(file.web, '', {}), mail: flatten(file.mail, '', {}) };
    files.set(lang, texts);
  }
  return texts;
}

/** Every web text of `lang`, by dot path. */
export function webTexts(lang: string): Readonly<Record<string, string>> {
  return load(lang).web;
}

/** Every mail text of `lang`, by dot path (the texts of a feature's sub-object as `reply.hint`). */
export function mailTexts(lang: string): Readonly<Record<string, string>> {
  return load(lang).mail;
}

/** One web text of `lang` with its `{{placeholders}}` filled (an unknown key fails the test). */
export function webText(lang: string, key: string, values: Readonly<Record<string, string>> = {}): string {
  const value = webTexts(lang)[key];
  if (value === undefined) throw new Error(`${lang} has no text ${key}`);
  return value.replace(/\{\{(\w+)\}\}/g, (_whole, name: string) => values[name] ?? '');
}
