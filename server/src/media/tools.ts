import { spawnSync } from 'node:child_process';
import type { UploadKind } from '@kith/common';
import type { Config } from '../config.js';

/** The external programs media processing needs (Debian: `ffmpeg`, `poppler-utils`). */
export interface MediaTools {
  ffmpeg: boolean;
  ffprobe: boolean;
  pdftoppm: boolean;
}

function works(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}

let detected: MediaTools | undefined;

/** Which tools are installed, checked once per process (the first call runs each with its version flag). */
export function mediaTools(): MediaTools {
  detected ??= {
    ffmpeg: works('ffmpeg', ['-hide_banner', '-version']),
    ffprobe: works('ffprobe', ['-hide_banner', '-version']),
    pdftoppm: works('pdftoppm', ['-v']),
  };
  return detected;
}

let guard: string[] | undefined;

/**
 * The command prefix that ties a tool's life to the server's: util-linux's `setpriv --pdeathsig KILL`
 * (Debian: always installed) asks the kernel to SIGKILL the tool when the server dies, even by
 * `kill -9`, so no orphaned ffmpeg converts on. The kernel watches the thread that spawned the tool,
 * not the process: tools are started from the main thread (one started from a worker thread would
 * die with that worker). Empty where setpriv cannot do it (not Linux); the work folder's leftover
 * check (workspace.ts) still keeps a restarted server from converting twice. Checked once per process.
 */
export function parentDeathGuard(): string[] {
  guard ??=
    process.platform === 'linux' && works('setpriv', ['--pdeathsig', 'KILL', '--', 'true'])
      ? ['setpriv', '--pdeathsig', 'KILL', '--']
      : [];
  return guard;
}

/**
 * Whether uploads of `kind` are offered (`/api/info`) and accepted: the operator's switch, and for
 * video and audio ffmpeg + ffprobe, for PDF pdftoppm. Without its tool a kind could not be
 * processed, so it is not offered at all.
 */
export function uploadAvailable(config: Pick<Config, 'upload'>, kind: UploadKind): boolean {
  if (!config.upload[kind]) return false;
  const tools = mediaTools();
  switch (kind) {
    case 'image':
      return true;
    case 'video':
    case 'audio':
      return tools.ffmpeg && tools.ffprobe;
    case 'pdf':
      return tools.pdftoppm;
  }
}
