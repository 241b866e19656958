#!/usr/bin/env node
// `npm run docs:api`: regenerates docs/api/openapi.json, the OpenAPI document a clone of the
// repository reads without running a server. The npm script builds the server first; this builds
// the app in process with fixed settings (server/src/http/openapi-file.ts) and writes the file.
// An integration test (openapi-file.int.test.ts) fails when the committed file falls behind.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOpenApiFile } from '../server/dist/http/openapi-file.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = await writeOpenApiFile(root);
process.stderr.write(`wrote ${path.relative(root, file)}\n`);
