import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { createContext } from '../setup.js';

/** Where the repository keeps its copy of the OpenAPI document, relative to the checkout's root. */
export const OPENAPI_FILE = 'docs/api/openapi.json';

/**
 * The settings the committed document is generated with. Only these reach the document (the
 * address in `servers` and the prefix of every path); fixing them makes the file the same on every
 * machine, whatever the developer's `.env` says.
 */
export const OPENAPI_FILE_ENV = {
  PUBLIC_URL: 'http://localhost:8080',
  BASE_PATH: '',
  API_DOCS: 'true',
} as const;

/** The document as the file holds it: JSON indented by two spaces, ending with a newline. */
export function formatOpenApiDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Builds the app in process on a throw-away SQLite database, asks it for `GET /api/openapi.json`
 * and writes the answer to `<repoRoot>/docs/api/openapi.json` (`npm run docs:api`).
 */
export async function writeOpenApiFile(repoRoot: string): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kith-openapi-'));
  try {
    const config = loadConfig(
      {
        ...OPENAPI_FILE_ENV,
        DATA_DIR: dataDir,
        // A fixed secret spares the generated one's file; nothing signed ends up in the document.
        SECRET_KEY: 'openapi-document-openapi-document-0',
        LOG_LEVEL: 'silent',
        WEB_DIST: path.join(dataDir, 'no-web-dist'),
        LINK_PREVIEWS: 'false',
      },
      { repoRoot },
    );
    const ctx = await createContext(config);
    const app = await buildApp(ctx);
    try {
      const answer = await app.inject({ method: 'GET', url: '/api/openapi.json' });
      if (answer.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${answer.statusCode}`);
      const file = path.join(repoRoot, OPENAPI_FILE);
      writeFileSync(file, formatOpenApiDocument(answer.json()));
      return file;
    } finally {
      await app.close();
      await ctx.jobs.stop();
      await ctx.db.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
