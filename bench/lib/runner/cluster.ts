import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { NGINX_BINARY, writeLocalNginx } from '../../../deploy/nginx.ts';
import type { Manifest } from './types.ts';
import {
  freePort,
  serverArgs,
  serverEnv,
  spawnTracked,
  stopChild,
  whenAnswering,
  type RunningServer,
} from './server.ts';

/**
 * Scale-out mode as docs/scale-out.md deploys it, on this machine: `processes` web processes
 * (`--role web`) and one worker (`--role worker`) on the manifest's PostgreSQL data and the local
 * Redis (BENCH_REDIS_URL, else 127.0.0.1:6379, under a prefix of this run's own), with Debian's
 * nginx in front, configured from deploy/nginx/kith.conf. Files stay in the manifest's DATA_DIR,
 * which every process on one machine shares. The load goes through nginx; the memory reported is
 * the sum of the Kith processes (nginx's is not counted).
 */
export async function startCluster(
  repoRoot: string,
  manifest: Manifest,
  processes: number,
  cpuProfDir: string | null = null,
): Promise<RunningServer> {
  if (!manifest.databaseUrl.startsWith('postgres')) {
    throw new Error('--processes needs --db postgres: several processes share PostgreSQL and Redis (scale-out mode)');
  }
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `kith-bench-${process.pid}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const shared = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, TRUSTED_PROXIES: '127.0.0.1' };
  const args = serverArgs(repoRoot, cpuProfDir);
  const started: { child: ChildProcess; tail: () => string }[] = [];
  const webPorts: number[] = [];
  for (let i = 0; i < processes; i += 1) {
    const webPort = await freePort();
    webPorts.push(webPort);
    started.push(
      spawnTracked(
        [...args, '--role', 'web'],
        { ...serverEnv(repoRoot, manifest, url, webPort), ...shared },
        `web${i + 1}`,
      ),
    );
  }
  started.push(
    spawnTracked([...args, '--role', 'worker'], { ...serverEnv(repoRoot, manifest, url, 0), ...shared }, 'worker'),
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'kith-bench-nginx-'));
  let nginx: ChildProcess | null = null;
  const tail = () => started.map((s) => s.tail()).join('\n');
  const stop = async () => {
    if (nginx !== null) await stopChild(nginx);
    await Promise.all(started.map((s) => stopChild(s.child)));
    rmSync(dir, { recursive: true, force: true });
    await forgetKeys(redisUrl, prefix);
  };
  for (const [i, webPort] of webPorts.entries()) {
    await whenAnswering(`http://127.0.0.1:${webPort}`, started[i]!.child, tail, stop);
  }
  const local = await writeLocalNginx({
    dir,
    port,
    upstreams: webPorts.map((p) => `127.0.0.1:${p}`),
    maxBody: '2049m',
  });
  const balancer = spawnTracked(local.args, process.env, 'nginx', NGINX_BINARY);
  nginx = balancer.child;
  await whenAnswering(url, balancer.child, () => `${tail()}\n${balancer.tail()}`, stop);
  const pids = started.map((s) => s.child.pid).filter((pid) => pid !== undefined);
  return { url, port, pids, child: started[0]!.child, tail, stop };
}

/** Deletes the run's Redis keys (events, jobs, throttles). */
async function forgetKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
