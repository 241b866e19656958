import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { AppContext } from '../context.js';

/**
 * A private folder on the local disk for the tools (ffmpeg and pdftoppm need seekable files; the
 * FileStore may be remote), under `<DATA_DIR>/work` rather than /tmp, which can be small. Removed
 * when `work` ends, whatever happens.
 */
export async function withWorkspace<T>(ctx: Pick<AppContext, 'config'>, work: (dir: string) => Promise<T>): Promise<T> {
  const root = path.join(ctx.config.dataDir, 'work');
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(path.join(root, 'media-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Workspaces of files in use in this process, by folder: runs for the same file take turns. */
const fileWorkspaces = new Map<string, Promise<unknown>>();

/**
 * The work folder of one file's conversion, `<DATA_DIR>/work/file-<id>`. It is named after the file
 * so that a run after a crash finds what the crashed run left there: a tool still working in it
 * (should the parent-death signal have missed it) is killed before this run starts, and its files
 * are removed. Two runs for the same file in this process take turns instead. Removed when `work`
 * ends, whatever happens.
 */
export async function withFileWorkspace<T>(
  ctx: Pick<AppContext, 'config' | 'log'>,
  fileId: string,
  work: (dir: string) => Promise<T>,
): Promise<T> {
  // The id names a folder that is emptied: it must not reach outside `work`.
  if (!/^[\w-]+$/.test(fileId)) throw new Error(`Not a file id: ${JSON.stringify(fileId)}`);
  const dir = path.join(ctx.config.dataDir, 'work', `file-${fileId}`);
  const turn = (fileWorkspaces.get(dir) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const stopped = await stopLeftoverTools(dir);
      if (stopped.length > 0) {
        ctx.log.warn({ fileId, pids: stopped }, 'stopped a conversion left running by a previous server');
      }
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      try {
        return await work(dir);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  fileWorkspaces.set(dir, turn);
  try {
    return await turn;
  } finally {
    if (fileWorkspaces.get(dir) === turn) fileWorkspaces.delete(dir);
  }
}

/** The programs whose leftovers are looked for: the media tools, and setpriv before it runs one. */
const TOOLS = new Set(['ffmpeg', 'ffprobe', 'pdftoppm', 'setpriv']);

/**
 * Whether process `pid` is a live media tool with an argument inside `dir`, from /proc. A pid
 * reused by an unrelated process does not match: the folder is in the command line.
 */
async function isToolIn(pid: number, dir: string): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (name) state …": the name may hold spaces and parentheses, so read after the last ")".
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    // Exited, only waiting for its parent to collect its status: it works no more.
    if (state === 'Z' || state === 'X') return false;
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    const inside = dir + path.sep;
    return TOOLS.has(path.basename(argv[0] ?? '')) && argv.some((arg) => arg.startsWith(inside));
  } catch {
    return false;
  }
}

/** The live media tools working in `dir`; none where there is no /proc. */
async function toolsIn(dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const pids = names.filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid).map(Number);
  const matches = await Promise.all(pids.map((pid) => isToolIn(pid, dir)));
  return pids.filter((_, i) => matches[i]);
}

/**
 * Kills the media tools still working in `dir`, left by a server that died, and resolves with their
 * pids once they are gone. They are killed rather than awaited: their server is dead, so nothing
 * would store what they make. Rejects when one survives `limitMs`: the job is then tried again
 * later rather than run beside it.
 */
async function stopLeftoverTools(dir: string, limitMs = 10_000): Promise<number[]> {
  const found = await toolsIn(dir);
  for (const pid of found) {
    // Checked again just before: the smaller the gap, the smaller the chance the pid was reused.
    if (!(await isToolIn(pid, dir))) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended meanwhile, or not ours to stop (then still found below).
    }
  }
  const deadline = Date.now() + limitMs;
  for (;;) {
    const alive = (await Promise.all(found.map((pid) => isToolIn(pid, dir)))).filter(Boolean).length;
    if (alive === 0) return found;
    if (Date.now() > deadline) throw new Error(`a previous run of ${dir} could not be stopped`);
    await delay(50);
  }
}

/** Copies stored bytes to a local file. */
export async function fetchToFile(ctx: Pick<AppContext, 'files'>, key: string, file: string): Promise<void> {
  await pipeline(ctx.files.read(key), createWriteStream(file));
}

/** Stores a local file under `key`; resolves with its size. */
export function storeFile(ctx: Pick<AppContext, 'files'>, file: string, key: string): Promise<{ size: number }> {
  return ctx.files.write(key, createReadStream(file));
}
