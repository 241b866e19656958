import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

export interface TestRedisServer {
  url: string;
  /** Starts it (again) on the same port and folder, resolving once it answers PING. */
  start(): Promise<void>;
  /** Stops it (SIGTERM: it writes its data first), resolving once it has exited. */
  stop(): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

/**
 * A Redis of a test's own (Debian's `redis-server`), on a free loopback port, for the tests that
 * take Redis away and bring it back: the machine's shared Redis must stay up for everyone else.
 * Append-only persistence is on, as docs/scale-out.md recommends, so a restart keeps its data.
 */
export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'kith-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const ping = async (): Promise<boolean> => {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };

  const server: TestRedisServer = {
    url,
    async start() {
      if (child !== null) return;
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''],
        { stdio: 'ignore' },
      );
      child = started;
      started.once('exit', () => {
        if (child === started) child = null;
      });
      const deadline = Date.now() + 30_000;
      while (!(await ping())) {
        if (child === null) throw new Error('redis-server exited at start');
        if (Date.now() > deadline) throw new Error('redis-server did not answer within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      const running = child;
      if (running === null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    async remove() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
