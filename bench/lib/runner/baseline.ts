import path from 'node:path';
import { runLoad, type LoadResult } from './load.ts';
import { spawnTracked, stopChild } from './server.ts';

export interface BaselineOptions {
  /** Size of the fixed JSON body (the feed answer's size). */
  bytes: number;
  connections: number;
  durationS: number;
  warmupS: number;
}

/**
 * The bare `node:http` server's requests/s with the same autocannon settings as the scenarios; it
 * runs in a child process and is stopped afterwards, also on failure.
 */
export async function measureBaseline(options: BaselineOptions): Promise<LoadResult> {
  const script = path.join(import.meta.dirname, 'baseline-server.ts');
  const { child, tail } = spawnTracked([script, String(options.bytes)], { ...process.env }, 'baseline');
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the baseline server did not start:\n${tail()}`)), 15_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /\{"port":(\d+)\}/.exec(out);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the baseline server exited with code ${code}:\n${tail()}`));
      });
    });
    return await runLoad({
      url: `http://127.0.0.1:${port}`,
      requests: [{ method: 'GET', path: '/' }],
      connections: options.connections,
      durationS: options.durationS,
      warmupS: options.warmupS,
      ...(child.pid !== undefined ? { pids: [child.pid] } : {}),
    });
  } finally {
    await stopChild(child);
  }
}
