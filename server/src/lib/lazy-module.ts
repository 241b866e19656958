import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded on the first call rather than at start. The parts most instances never use
 * (S3, Redis and BullMQ, PostgreSQL on SQLite, Web Push, Prometheus, the mail-reply listener) cost
 * 2–7 MB of heap each when imported; a server pays only for what it runs (bench/README.md, Memory).
 * Types come from `import type`, so a call still cannot use the package wrongly.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
