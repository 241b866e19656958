/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The group page's early script (src/firstScreenReads.ts, an entry of its own) as one classic
 * script, linked into the built page's head right after the server's `<!--kith-config-->` tags,
 * whose base path it reads. Classic and parser-blocking, so that it runs the moment it arrives and
 * always before the app's module, which the page runs only once parsed; it is small and requested
 * beside the bundle. It must import and export nothing, and is wrapped in a function so that its
 * names stay out of the page's globals. The English texts are preloaded there too: lib/i18n.ts
 * always loads them before the first render, and would otherwise ask only once the bundle has run
 * (issue 23). Both names carry their content hash, so the server caches them like every asset.
 */
function firstScreenHead(): Plugin {
  const entry = 'firstScreenReads';
  return {
    name: 'kith-first-screen-head',
    apply: 'build',
    // Before the content hash is taken, so that the file's name follows the wrapper too.
    renderChunk(code, chunk) {
      if (!chunk.isEntry || chunk.name !== entry) return null;
      if (chunk.imports.length > 0 || chunk.dynamicImports.length > 0 || chunk.exports.length > 0) {
        throw new Error(`${chunk.fileName} must import and export nothing to run as a classic script`);
      }
      return `(() => {\n${code}\n})();\n`;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        const chunks = Object.values(bundle ?? {}).filter((file) => file.type === 'chunk');
        const reads = chunks.find((chunk) => chunk.isEntry && chunk.name === entry);
        const english = chunks.find((chunk) => chunk.moduleIds.some((id) => id.endsWith('/locales/en_US.json')));
        if (reads === undefined || english === undefined || !html.includes('<!--kith-config-->')) {
          throw new Error('index.html: the first-screen script, the English texts or <!--kith-config--> not found');
        }
        return html.replace(
          '<!--kith-config-->',
          '<!--kith-config-->\n' +
            `    <script src="./${reads.fileName}"></script>\n` +
            `    <link rel="modulepreload" crossorigin href="./${english.fileName}" />`,
        );
      },
    },
  };
}

// The server writes `<base href>` into index.html (server/src/http/web.ts), so assets are linked
// relatively and one build works at the site root and under any sub-path.
export default defineConfig({
  base: './',
  plugins: [react(), firstScreenHead()],
  resolve: {
    // The app is written and type-checked against React's API but ships on Preact's compat layer:
    // react-dom alone was 68 KB of the first screen's 125 gzipped, over its 100 KB budget (issue 23).
    alias: [
      { find: '@kith/common', replacement: fileURLToPath(new URL('../common/src/web.ts', import.meta.url)) },
      { find: /^react(-dom)?$/, replacement: fileURLToPath(new URL('src/lib/react.ts', import.meta.url)) },
      { find: /^react(-dom)?\/(jsx-runtime|jsx-dev-runtime|client|test-utils)$/, replacement: 'preact/compat/$2' },
    ],
  },
  // Vitest runs packages from node_modules as they are, so the libraries that import React would
  // get the real one there while the app gets Preact: the unit tests must test what ships. Testing
  // Library is taken as ES module, as its CommonJS build's require() would bypass the aliases.
  test: {
    alias: { '@testing-library/react': '@testing-library/react/dist/@testing-library/react.esm.js' },
    server: { deps: { inline: ['react-router', '@tanstack/react-query', '@testing-library/react'] } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The libraries in one chunk, which changes only when they are upgraded: fewer, larger files
    // compress better than the dozen small shared chunks the automatic split makes.
    rolldownOptions: {
      // The service worker is a second entry, written as `sw.js` beside index.html: its scope is the
      // folder it is served from, the app's base path (web/src/sw.ts).
      input: {
        index: fileURLToPath(new URL('index.html', import.meta.url)),
        sw: fileURLToPath(new URL('src/sw.ts', import.meta.url)),
        // The group page's first reads, started before the app: linked by firstScreenHead above.
        firstScreenReads: fileURLToPath(new URL('src/firstScreenReads.ts', import.meta.url)),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
        // The app's own shell (what every signed-in screen uses: the layout, navigation, live
        // stream, API client and small shared parts) in one chunk too: the automatic split made
        // some twenty files of a few hundred bytes each for the first screen, which gzip worse.
        // The group page, the most common first screen, rides in it with App.tsx: one file instead
        // of five to fetch one after the other (issue 23). main.tsx stays out: its top-level await
        // of that page's import would wait on its own chunk. global.css stays in the entry's
        // stylesheet, after the modules' rules as before. useSubmit serves only forms on other screens.
        codeSplitting: {
          groups: [
            // The bundled Tifinagh face stays out of it: lib/scripts.ts loads it only where it shows.
            { name: 'vendor', test: /node_modules\/(?!@fontsource)/ },
            {
              name: 'shell',
              test: /web\/src\/(lib(?!\/browserLanguage)|api|hooks(?!\/useSubmit)|features\/(layout|live)|components\/(Avatar|Dropdown|Spinner|LoadError|avatarColors|ErrorPage|Alerts)|routes\/GroupFeed|App\.tsx)\/?|common\/src\/(?!language-names|locale-format-more)/,
            },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': 'http://localhost:8080', '/files': 'http://localhost:8080' } },
});
