import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { bcp47 } from '@kith/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { serverText } from '../mail/texts.js';

// Content Security Policy of the web client's page: everything from our own origin; embeds
// (built by the server for allow-listed providers) only over https. The service worker and the web
// app manifest are named too, although `default-src` covers them, so that loosening the default
// one day cannot let a foreign worker in.
const PAGE_CSP = [
  "default-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  'frame-src https:',
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const MANIFEST = 'manifest.webmanifest';
const MANIFEST_TYPE = 'application/manifest+json; charset=utf-8';

const PLACEHOLDER = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><!--kith-config--><title>Kith</title></head>
<body><main><h1>Kith</h1><p>The server is running. The web client has not been built yet: run <code>npm start</code>.</p></main></body>
</html>
`;

/**
 * The web client's `index.html`, with the base path and default language written in, so the client
 * knows where it lives (a page meta tag gives the default language, product spec §1).
 */
export function renderIndexHtml(config: Config): string {
  const file = path.join(config.webDist, 'index.html');
  const html = existsSync(file) ? readFileSync(file, 'utf8') : PLACEHOLDER;
  const tags =
    `<base href="${config.basePath}/">` +
    `<meta name="kith-base-path" content="${config.basePath}">` +
    `<meta name="kith-default-lang" content="${config.defaultLang}">` +
    `<meta name="kith-lang-from-browser" content="${String(config.langFromBrowser)}">`;
  // The page's language before the client starts: the default one, which the client then confirms.
  const page = html.replace(/<html lang="[^"]*">/, `<html lang="${bcp47(config.defaultLang)}">`);
  return page.includes('<!--kith-config-->')
    ? page.replace('<!--kith-config-->', tags)
    : page.replace('<head>', `<head>${tags}`);
}

/** Serves the built client's assets under the base path; client routes fall back to `index.html`. */
export async function registerWebClient(app: FastifyInstance, config: Config): Promise<string> {
  const indexHtml = renderIndexHtml(config);
  if (existsSync(config.webDist)) {
    await app.register(fastifyStatic, {
      root: config.webDist,
      prefix: `${config.basePath}/`,
      index: false,
      // The raw index.html lacks the base path and default language written in by
      // renderIndexHtml: `/index.html` falls through to the rendered page like any client route.
      allowedPath: (pathName) => pathName !== '/index.html',
      // The manifest is served below, in the instance's language.
      globIgnore: [MANIFEST],
      // One route per built file: folders and unknown paths fall through to the client's index.html.
      wildcard: false,
      // Vite names assets by content hash, so they can be cached for a year. The rest (the service
      // worker, the manifest, the icons) keeps its name across versions: revalidated on each use,
      // so a new worker is found at once.
      setHeaders: (reply, filePath) => {
        void reply.header(
          'Cache-Control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    const manifest = renderManifest(config);
    if (manifest !== null) {
      app.get(`${config.basePath}/${MANIFEST}`, (_request, reply) =>
        reply.header('Cache-Control', 'no-cache').type(MANIFEST_TYPE).send(manifest),
      );
    }
  }
  return indexHtml;
}

/**
 * The installable app's manifest in the instance's language (`DEFAULT_LANG`): its description
 * from `server.app_description` of locales/<lang>.json, with `lang` set, so a phone's app list and
 * install prompt do not speak English to a family that set another language. Null without a build.
 */
export function renderManifest(config: Config): string | null {
  const file = path.join(config.webDist, MANIFEST);
  if (!existsSync(file)) return null;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const description = serverText(config.defaultLang, 'app_description');
  return JSON.stringify({
    ...manifest,
    lang: bcp47(config.defaultLang),
    description,
  });
}

export const PAGE_HEADERS = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

/** A Content Security Policy with its `frame-ancestors` directive, if any, replaced by `'none'`. */
export function denyFraming(csp: string): string {
  const others = csp
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && !/^frame-ancestors\b/i.test(directive));
  return [...others, "frame-ancestors 'none'"].join('; ');
}

/**
 * Gives every HTML answer, whichever part of the server sends it (the client's page, a static
 * file, the API docs), the page's protection against framing and foreign scripts: the page's CSP
 * unless the answer brings its own (the docs page lists its scripts), `frame-ancestors 'none'` in
 * any case (replacing a laxer one), and `X-Frame-Options: DENY`. Called from one `onSend` hook in app.ts.
 */
export function protectHtml(reply: FastifyReply): void {
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !/^\s*(text\/html|application\/xhtml\+xml)\b/i.test(type)) return;
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp !== 'string' || csp.trim() === '') {
    void reply.header('Content-Security-Policy', PAGE_CSP);
  } else {
    void reply.header('Content-Security-Policy', denyFraming(csp));
  }
  void reply.header('X-Frame-Options', 'DENY');
}
