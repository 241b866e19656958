// nginx in front of Kith's web processes with the configuration operators are given
// (deploy/nginx/kith.conf, filled in as docs/scale-out.md shows), for the deployment suite
// (e2e/deployment.ts) and the benchmark harness (bench/lib/runner/cluster.ts). Plain Node and
// erasable TypeScript: the harness runs it without a build.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The nginx configuration template of docs/scale-out.md. */
export const NGINX_TEMPLATE = path.join(import.meta.dirname, 'nginx', 'kith.conf');
/** Debian's nginx (the test suites install the package). */
export const NGINX_BINARY = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/**
 * The template with each `{{NAME}}` replaced, outside comments (which name the placeholders);
 * fails on a placeholder left without a value or a value that the template does not use, so the
 * test and the template cannot drift apart.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  const used = new Set<string>();
  const fillLine = (line: string) =>
    /^\s*#/.test(line)
      ? line
      : line.replace(/\{\{([A-Z_]+)\}\}/g, (_match, name: string) => {
          const value = values[name];
          if (value === undefined) throw new Error(`no value for {{${name}}}`);
          used.add(name);
          return value;
        });
  const filled = template.split('\n').map(fillLine).join('\n');
  const unused = Object.keys(values).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`the template has no {{${unused.join('}}, {{')}}}`);
  return filled;
}

/** The `server` lines of the upstream block, as docs/scale-out.md recommends them. */
export function upstreamLines(addresses: string[]): string {
  return addresses.map((address) => `    server ${address} max_fails=2 fail_timeout=5s;`).join('\n');
}

export interface LocalNginx {
  /** The arguments to start `NGINX_BINARY` with, in the foreground. */
  args: string[];
  accessLogFile: string;
  errorLogFile: string;
}

/**
 * Writes an nginx set-up under `dir` that listens on 127.0.0.1:`port` in front of `upstreams`:
 * the template filled in (plain HTTP on loopback), and around it what /etc/nginx/nginx.conf would
 * hold, with every path (pid, logs, temporary bodies) inside `dir`.
 */
export async function writeLocalNginx(options: {
  dir: string;
  port: number;
  upstreams: string[];
  maxBody: string;
  /** nginx worker processes (default 1). */
  workers?: number;
}): Promise<LocalNginx> {
  const { dir } = options;
  await mkdir(dir, { recursive: true });
  const accessLogFile = path.join(dir, 'access.log');
  const errorLogFile = path.join(dir, 'error.log');
  const config = fillTemplate(await readFile(NGINX_TEMPLATE, 'utf8'), {
    UPSTREAMS: upstreamLines(options.upstreams),
    LISTEN: `127.0.0.1:${options.port}`,
    TLS: '',
    SERVER_NAME: '127.0.0.1',
    MAX_BODY: options.maxBody,
    ACCESS_LOG: accessLogFile,
  });
  await writeFile(path.join(dir, 'kith.conf'), config);
  const main = [
    // As root, the workers would otherwise run as nobody, who cannot write into `dir`.
    process.getuid?.() === 0 ? 'user root;' : '',
    `worker_processes ${options.workers ?? 1};`,
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${errorLogFile} info;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (name) => `  ${name}_temp_path ${path.join(dir, `${name}_temp`)};`,
    ),
    `  include ${path.join(dir, 'kith.conf')};`,
    '}',
    '',
  ].join('\n');
  const mainFile = path.join(dir, 'nginx.conf');
  await writeFile(mainFile, main);
  return { args: ['-p', dir, '-e', errorLogFile, '-c', mainFile, '-g', 'daemon off;'], accessLogFile, errorLogFile };
}
