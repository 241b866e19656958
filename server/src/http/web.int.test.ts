import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { LOCALES_DIR } from '../mail/texts.js';

// The installable app's files (web/public: manifest, service worker, icons) as the server hands
// them out, at the site root and under a sub-path, and the page's policy that lets them load.

const MANIFEST = JSON.stringify({ name: 'Kith', start_url: './', scope: './' });
const WORKER = 'self.addEventListener("fetch", () => {});\n';

function builtClient(): string {
  const dist = mkdtempSync(path.join(tmpdir(), 'kith-web-app-'));
  mkdirSync(path.join(dist, 'assets'));
  mkdirSync(path.join(dist, 'icons'));
  writeFileSync(
    path.join(dist, 'index.html'),
    '<!doctype html><html lang="en"><head><!--kith-config--></head><body></body></html>',
  );
  writeFileSync(path.join(dist, 'manifest.webmanifest'), MANIFEST);
  writeFileSync(path.join(dist, 'sw.js'), WORKER);
  writeFileSync(path.join(dist, 'icons', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dist;
}

/** `server.app_description` of a locale file, as the manifest should carry it. */
function description(lang: string): string {
  const file = JSON.parse(readFileSync(path.join(LOCALES_DIR, `${lang}.json`), 'utf8')) as {
    server?: { app_description?: string };
  };
  return file.server?.app_description ?? description('en_US');
}

describe.each([
  ['at the site root', '', 'en_US'],
  ['under a sub-path, in Russian', '/family', 'ru_RU'],
])('the installable app %s', (_label, base, lang) => {
  let t: TestApp;
  let dist: string;

  beforeAll(async () => {
    dist = builtClient();
    t = await createTestApp({
      WEB_DIST: dist,
      BASE_PATH: base,
      PUBLIC_URL: `http://kith.test${base}`,
      DEFAULT_LANG: lang,
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves the manifest as application/manifest+json in the instance’s language, revalidated on each use', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${base}/manifest.webmanifest` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/manifest\+json\b/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(res.body)).toEqual({
      ...(JSON.parse(MANIFEST) as object),
      lang: lang.replace('_', '-'),
      description: description(lang),
    });
  });

  it('writes the default language into the page and its meta tags', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${base}/login` });
    expect(res.body).toContain(`<meta name="kith-default-lang" content="${lang}">`);
    expect(res.body).toContain('<meta name="kith-lang-from-browser" content="false">');
    expect(res.body).toContain(`<html lang="${lang.replace('_', '-')}">`);
  });

  it('serves the service worker as JavaScript without a long cache', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${base}/sw.js` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript\b/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(WORKER);
    // It lives at the base path, whose scope it takes by default: no wider scope is granted.
    expect(res.headers['service-worker-allowed']).toBeUndefined();
  });

  it('serves the icons', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${base}/icons/icon.svg` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml\b/);
  });

  it('lets the page load its own worker and manifest, and nobody else’s', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${base}/share?title=Hi` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const directives = String(res.headers['content-security-policy'])
      .split(';')
      .map((directive) => directive.trim());
    expect(directives).toContain("worker-src 'self'");
    expect(directives).toContain("manifest-src 'self'");
    expect(directives).toContain("default-src 'self'");
  });
});
