/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The server writes `<base href>` into index.html (server/src/http/web.ts), so assets are linked
// relatively and one build works at the site root and under any sub-path.
export default defineConfig({
  base: './',
  plugins: [react()],
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
