import { spawn } from 'node:child_process';
import type { UploadKind } from '@kith/common';
import type { Config } from '../config.js';

/** The external programs media processing needs (Debian: `ffmpeg`, `poppler-utils`). */
export interface MediaTools {
  ffmpeg: boolean;
  ffprobe: boolean;
  pdftoppm: boolean;
}

/** Whether `command args` runs and exits 0, without holding the event loop while it does. */
function works(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', timeout: 10_000, killSignal: 'SIGKILL' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

let detected: (MediaTools & { guard: string[] }) | undefined;
let detecting: Promise<void> | undefined;

/**
 * Checks once per process which tools are installed (each run with its version flag, all at once)
 * and whether setpriv can tie them to the server's life. `createContext` awaits it, so no request
 * ever waits for a tool to start: a synchronous check took up to 2.5 s of the event loop on a busy
 * machine, during the first `/api/info`.
 */
export function detectMediaTools(): Promise<void> {
  detecting ??= (async () => {
    const [ffmpeg, ffprobe, pdftoppm, setpriv] = await Promise.all([
      works('ffmpeg', ['-hide_banner', '-version']),
      works('ffprobe', ['-hide_banner', '-version']),
      works('pdftoppm', ['-v']),
      process.platform === 'linux' ? works('setpriv', ['--pdeathsig', 'KILL', '--', 'true']) : Promise.resolve(false),
    ]);
    detected = { ffmpeg, ffprobe, pdftoppm, guard: setpriv ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [] };
  })();
  return detecting;
}

function detectedTools(): MediaTools & { guard: string[] } {
  if (detected === undefined) throw new Error('detectMediaTools() has not finished: createContext awaits it');
  return detected;
}

/** Which tools are installed, as found by `detectMediaTools`. */
export function mediaTools(): MediaTools {
  const { ffmpeg, ffprobe, pdftoppm } = detectedTools();
  return { ffmpeg, ffprobe, pdftoppm };
}

/**
 * The command prefix that ties a tool's life to the server's: util-linux's `setpriv --pdeathsig KILL`
 * (Debian: always installed) asks the kernel to SIGKILL the tool when the server dies, even by
 * `kill -9`, so no orphaned ffmpeg converts on. Empty where setpriv cannot do it (not Linux); the
 * work folder's leftover check (workspace.ts) still keeps a restarted server from converting twice.
 */
export function parentDeathGuard(): string[] {
  return detectedTools().guard;
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
