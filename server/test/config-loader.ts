import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

/** A SECRET_KEY long enough to pass the configuration's check. */
export const TEST_SECRET = 'test-secret-0123456789abcdefghijklmnop';

type Env = Record<string, string | undefined>;

/**
 * A fresh temporary checkout for each test of the calling file (removed after it): answers a getter
 * of its path, for loading a configuration whose relative paths resolve inside it.
 */
export function useTempCheckout(prefix = 'kith-config-'): () => string {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });
  return () => root;
}

/**
 * `load(env)`: the configuration of `env` plus a valid secret, in the checkout `root()` names;
 * `problemsOf(env)`: the problems of the ConfigError that `env` must cause.
 */
export function configLoader(root: () => string) {
  const load = (env: Env = {}): Config => loadConfig({ SECRET_KEY: TEST_SECRET, ...env }, { repoRoot: root() });
  const problemsOf = (env: Env): string[] => {
    try {
      load(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
    return expect.unreachable(`loadConfig accepted ${JSON.stringify(env)}`);
  };
  return { load, problemsOf };
}
