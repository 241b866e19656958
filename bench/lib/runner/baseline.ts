import path from 'node:path';
import { runLoad, type LoadResult } from './load.ts';
import { spawnTracked, stopChild } from './server.ts';

export interface BaselineLoad {
  connections: number;
  durationS: number;
  warmupS: number;
}

/** The bare `node:http` server of a run, started once and measured whenever the run asks. */
export interface BaselineServer {
  /** Its requests/s with the same load settings as a scenario's. */
  measure(load: BaselineLoad): Promise<LoadResult>;
  stop(): Promise<void>;
}

/**
 * Starts the bare `node:http` server (`baseline-server.ts`) in a child process answering a fixed
 * JSON body of `bytes` bytes. Idle between measurements, it takes no CPU from the scenarios.
 */
export async function startBaseline(bytes: number): Promise<BaselineServer> {
  const script = path.join(import.meta.dirname, 'baseline-server.ts');
  const { child, tail } = spawnTracked([script, String(bytes)], { ...process.env }, 'baseline');
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
    return {
      measure: (load) =>
        runLoad({
          url: `http://127.0.0.1:${port}`,
          requests: [{ method: 'GET', path: '/' }],
          ...load,
          ...(child.pid !== undefined ? { pids: [child.pid] } : {}),
        }),
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}
