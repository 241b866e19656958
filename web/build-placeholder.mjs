// Until the React client lands, the "build" copies a placeholder page that the server serves for
// every client route.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
mkdirSync(path.join(here, 'dist'), { recursive: true });
copyFileSync(path.join(here, 'index.html'), path.join(here, 'dist', 'index.html'));
