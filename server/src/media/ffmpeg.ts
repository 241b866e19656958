import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { parentDeathGuard } from './tools.js';

/** A media tool failed; `reason` is the short, readable text shown on the file (`error`). */
export class MediaError extends Error {
  override readonly name = 'MediaError';
  constructor(
    readonly reason: string,
    detail: string,
    /** True when retrying cannot help (the input cannot be read). */
    readonly permanent = false,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface ProbeResult {
  /** ffprobe's `format_name`, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`. */
  formatName: string;
  /** Seconds, or null when unknown. */
  duration: number | null;
  video: { codec: string; width: number; height: number; pixFmt: string | null } | null;
  audio: { codec: string } | null;
}

interface RunOptions {
  signal?: AbortSignal;
  /** Called with each chunk of standard output (ffmpeg's `-progress pipe:1`). */
  onStdout?: (text: string) => void;
  /** Kill the process after this long (ms). */
  timeoutMs?: number;
}

/** A tool ended without success: with an exit code, or killed by a signal. */
export class ToolExitError extends Error {
  override readonly name = 'ToolExitError';
  constructor(
    command: string,
    readonly code: number | null,
    readonly signal: NodeJS.Signals | null,
    lastLines: string,
  ) {
    super(`${command} exited with ${code ?? signal}: ${lastLines}`);
  }
}

/**
 * Runs a tool; resolves with its standard output, rejects with the end of its error output.
 *
 * The tool dies with the server, even one killed by `kill -9` (parentDeathGuard), and runs in its
 * own process group: a Ctrl-C in the server's terminal reaches only the server, which then stops
 * its jobs, and a stop or a timeout kills the whole group.
 */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const [program = command, ...programArgs] = [...parentDeathGuard(), command, ...args];
    const child = spawn(program, programArgs, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const kill = () => {
      // Once it has exited its pid (the group's id) may belong to another process: never signal it then.
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const { signal } = options;
    signal?.addEventListener('abort', kill);
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(kill, options.timeoutMs);
    child.once('exit', () => {
      signal?.removeEventListener('abort', kill);
      clearTimeout(timer);
    });
    if (signal?.aborted === true) kill();
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (options.onStdout !== undefined) options.onStdout(chunk);
      else if (stdout.length < 10_000_000) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      // Only the end matters (the error); keep it bounded.
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('error', (error) => {
      signal?.removeEventListener('abort', kill);
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, killedBy) => {
      if (code === 0) resolve(stdout);
      else reject(new ToolExitError(command, code, killedBy, stderr.trim().split('\n').slice(-3).join(' | ')));
    });
  });
}

interface FfprobeJson {
  format?: { format_name?: string; duration?: string };
  streams?: {
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    pix_fmt?: string;
    disposition?: { attached_pic?: number };
  }[];
}

/** What is in a media file (ffprobe JSON); a MediaError (permanent) when it cannot be read. */
export async function probe(file: string, signal?: AbortSignal): Promise<ProbeResult> {
  let json: FfprobeJson;
  try {
    const out = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
      ...(signal === undefined ? {} : { signal }),
      timeoutMs: 60_000,
    });
    json = JSON.parse(out) as FfprobeJson;
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new MediaError('This file cannot be read', (error as Error).message, true);
  }
  const streams = json.streams ?? [];
  const v = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const a = streams.find((s) => s.codec_type === 'audio');
  const duration = Number(json.format?.duration);
  return {
    formatName: json.format?.format_name ?? '',
    duration: Number.isFinite(duration) && duration > 0 ? duration : null,
    video:
      v === undefined || !v.width || !v.height
        ? null
        : { codec: v.codec_name ?? '', width: v.width, height: v.height, pixFmt: v.pix_fmt ?? null },
    audio: a === undefined ? null : { codec: a.codec_name ?? '' },
  };
}

/** Turns `-progress pipe:1` output into percentages of `durationSec` (0–99; 100 is "done"). */
export class ProgressParser {
  private buffer = '';
  constructor(
    private readonly durationSec: number | null,
    private readonly onProgress: (percent: number) => void,
  ) {}

  push(text: string): void {
    this.buffer += text;
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    for (const line of lines) {
      // `out_time_us` (and the misnamed `out_time_ms`) are microseconds.
      const match = /^out_time_(?:us|ms)=(\d+)/.exec(line.trim());
      if (match === null || this.durationSec === null) continue;
      const seconds = Number(match[1]) / 1_000_000;
      this.onProgress(Math.max(0, Math.min(99, Math.floor((100 * seconds) / this.durationSec))));
    }
  }
}

interface ConvertOptions {
  signal?: AbortSignal;
  durationSec?: number | null;
  onProgress?: (percent: number) => void;
}

async function ffmpeg(args: string[], options: ConvertOptions, reason: string): Promise<void> {
  const parser = new ProgressParser(options.durationSec ?? null, options.onProgress ?? (() => undefined));
  try {
    await run('ffmpeg', ['-hide_banner', '-nostdin', '-y', '-v', 'error', '-nostats', '-progress', 'pipe:1', ...args], {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onStdout: (text) => parser.push(text),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    // Killed from outside (the kernel's out-of-memory killer, a service manager's SIGTERM to every
    // process of the unit, after which ffmpeg exits with 255, or a restarted server stopping a
    // conversion it found left running): not the input's fault, so worth another attempt. Any other
    // failure is deterministic for a given input and ffmpeg: retrying would fail the same way.
    const interrupted = error instanceof ToolExitError && (error.signal !== null || error.code === 255);
    throw new MediaError(reason, (error as Error).message, !interrupted);
  }
}

/** Everything that describes the recording (dates, places, devices, chapters) is left out. */
const NO_METADATA = ['-map_metadata', '-1', '-map_chapters', '-1', '-fflags', '+bitexact'];

/** H.264 + AAC (or MP3) in an MP4 browsers play as they are (docs/api §7.1). */
export function isPlayableMp4(ext: string, info: ProbeResult): boolean {
  return (
    (ext === 'mp4' || ext === 'm4v') &&
    info.formatName.includes('mp4') &&
    info.video?.codec === 'h264' &&
    (info.video.pixFmt === null || info.video.pixFmt === 'yuv420p' || info.video.pixFmt === 'yuvj420p') &&
    (info.audio === null || info.audio.codec === 'aac' || info.audio.codec === 'mp3')
  );
}

/** Rewrites an MP4 without metadata, its index (moov) moved to the front: seconds, no re-encoding. */
export function remuxMp4(input: string, output: string, options: ConvertOptions = {}): Promise<void> {
  return ffmpeg(
    [
      '-i',
      input,
      '-map',
      '0:v:0',
      '-map',
      '0:a:0?',
      '-c',
      'copy',
      ...NO_METADATA,
      '-map_metadata:s:v',
      '-1',
      '-map_metadata:s:a',
      '-1',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      output,
    ],
    options,
    'This video could not be prepared',
  );
}

/** The scale filter for "at most 720p": the shorter side ≤ 720, even sizes, never enlarged. */
const SCALE_720 = "scale=w='if(gte(iw,ih),-2,trunc(min(720,iw)/2)*2)':h='if(gte(iw,ih),trunc(min(720,ih)/2)*2,-2)'";

/** Converts any video to H.264/AAC MP4, at most 720p, fast start, no metadata. */
export function transcodeVideo(input: string, output: string, options: ConvertOptions = {}): Promise<void> {
  return ffmpeg(
    [
      '-i',
      input,
      '-map',
      '0:v:0',
      '-map',
      '0:a:0?',
      ...NO_METADATA,
      '-map_metadata:s:v',
      '-1',
      '-map_metadata:s:a',
      '-1',
      '-vf',
      SCALE_720,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '23',
      '-pix_fmt',
      'yuv420p',
      '-profile:v',
      'high',
      '-c:a',
      'aac',
      '-b:a',
      '128k',
      '-ac',
      '2',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      output,
    ],
    options,
    'This video could not be converted',
  );
}

/** MP3 rewritten as it is, without ID3 tags or cover pictures. */
export function cleanMp3(input: string, output: string, options: ConvertOptions = {}): Promise<void> {
  return ffmpeg(
    [
      '-i',
      input,
      '-map',
      '0:a:0',
      '-c:a',
      'copy',
      ...NO_METADATA,
      '-map_metadata:s:a',
      '-1',
      '-id3v2_version',
      '0',
      '-write_id3v1',
      '0',
      '-write_xing',
      '0',
      '-f',
      'mp3',
      output,
    ],
    options,
    'This sound could not be prepared',
  );
}

/** AAC rewritten into M4A as it is, without metadata or cover pictures, fast start. */
export function cleanAac(input: string, output: string, options: ConvertOptions = {}): Promise<void> {
  return ffmpeg(
    [
      '-i',
      input,
      '-map',
      '0:a:0',
      '-c:a',
      'copy',
      ...NO_METADATA,
      '-map_metadata:s:a',
      '-1',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      output,
    ],
    options,
    'This sound could not be prepared',
  );
}

/** Converts any sound to AAC in M4A, without metadata. */
export function transcodeAudio(input: string, output: string, options: ConvertOptions = {}): Promise<void> {
  return ffmpeg(
    [
      '-i',
      input,
      '-map',
      '0:a:0',
      '-vn',
      ...NO_METADATA,
      '-map_metadata:s:a',
      '-1',
      '-c:a',
      'aac',
      '-b:a',
      '160k',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      output,
    ],
    options,
    'This sound could not be converted',
  );
}

async function nonEmpty(file: string): Promise<boolean> {
  try {
    return (await stat(file)).size > 0;
  } catch {
    return false;
  }
}

/**
 * A still of a video as PNG (docs/api §7.4): the frame at 1 s, or the first frame when the clip is
 * shorter. Rejects with a MediaError when the video has no frame to give.
 */
export async function extractFrame(input: string, output: string, signal?: AbortSignal): Promise<void> {
  const base = ['-hide_banner', '-nostdin', '-y', '-v', 'error'];
  const tail = ['-map', '0:v:0', '-frames:v', '1', '-map_metadata', '-1', '-f', 'image2', '-c:v', 'png', output];
  const opts = { ...(signal === undefined ? {} : { signal }), timeoutMs: 60_000 };
  try {
    await run('ffmpeg', [...base, '-ss', '1', '-i', input, ...tail], opts);
  } catch (error) {
    if (signal?.aborted) throw error;
  }
  if (await nonEmpty(output)) return;
  try {
    await run('ffmpeg', [...base, '-i', input, ...tail], opts);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new MediaError('No picture can be taken from this video', (error as Error).message, true);
  }
  if (!(await nonEmpty(output))) throw new MediaError('No picture can be taken from this video', 'no frame', true);
}
