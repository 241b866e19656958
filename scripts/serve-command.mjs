// How the server is run, read from one place: the `serve` script of the root package.json
// (`[NAME=value …] node <flags> server/dist/main.js`). `npm run kith -- serve` and the benchmark
// start the server with the same environment variables and Node flags as `npm run serve`
// (docs/decisions.md, "Node flags", says why each).
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The environment variables and Node flags of `npm run serve` in the project at `root`.
 * @param {string} root
 * @returns {{ env: Record<string, string>, flags: string[] }}
 */
export function serveCommand(root) {
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const match = /^((?:[A-Z_]+=[^\s]+ )*)node((?: --[^\s]+)*) server\/dist\/main\.js$/.exec(scripts?.serve ?? '');
  if (match === null) throw new Error('package.json "serve" is not "[NAME=value …] node [flags] server/dist/main.js"');
  /** @param {string | undefined} text */
  const words = (text) => (text ?? '').split(' ').filter((word) => word !== '');
  const env = Object.fromEntries(
    words(match[1]).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  return { env, flags: words(match[2]) };
}
