import path from 'node:path';
import type { AppContext } from '../../context.js';
import { publishCommitted } from '../../db/effects.js';
import { findFile, markRawFileFailed, replaceConvertedFile, setRawFileProgress } from './queries.js';
import type { FileRow } from '../../db/rows.js';
import { PermanentJobError, type JobQueue, type RunningJob } from '../../jobs/job-queue.js';
import {
  cleanAac,
  cleanMp3,
  isPlayableMp4,
  MediaError,
  probe,
  remuxMp4,
  transcodeAudio,
  transcodeVideo,
  type ProbeResult,
} from '../../media/ffmpeg.js';
import { makeStill } from '../../media/pictures.js';
import { fetchToFile, storeFile, withFileWorkspace } from '../../media/workspace.js';

/** Progress is written and published at most this often per file (ms). */
const PROGRESS_EVERY_MS = 2000;

type MediaContext = Pick<AppContext, 'config' | 'db' | 'files' | 'events' | 'clock' | 'log'>;

/** The stored form a conversion produced. */
interface Converted {
  file: string;
  ext: string;
  mime: string;
}

/**
 * Tells the uploader's streams that the file changed (docs/api §11.4). The job's writes are single
 * statements that commit on their own; this follows the one that did.
 */
function publish(ctx: MediaContext, file: Pick<FileRow, 'id' | 'uploader_id'>): void {
  if (file.uploader_id !== null) publishCommitted(ctx, { type: 'file', userId: file.uploader_id, fileId: file.id });
}

/** Records progress of a raw file, at most once per PROGRESS_EVERY_MS and only when it rose. */
function progressReporter(ctx: MediaContext, file: FileRow): (percent: number) => void {
  let last = file.progress ?? 0;
  let lastAt = 0;
  let writing = false;
  return (percent) => {
    const now = Date.now();
    if (writing || percent <= last || now - lastAt < PROGRESS_EVERY_MS) return;
    last = percent;
    lastAt = now;
    writing = true;
    setRawFileProgress(ctx.db.kysely, file.id, percent)
      .then((changed) => {
        if (changed) publish(ctx, file);
      })
      .catch((error: unknown) => ctx.log.warn({ err: error, fileId: file.id }, 'recording progress failed'))
      .finally(() => {
        writing = false;
      });
  };
}

/** The file while it still waits for its conversion (`raw`); undefined once gone or ready. */
async function rawFile(ctx: MediaContext, fileId: string): Promise<FileRow | undefined> {
  const file = await findFile(ctx.db.kysely, fileId);
  return file?.status === 'raw' ? file : undefined;
}

/**
 * Converts one raw file: fetch the original, probe it, let `convert` write the stored form, store
 * it, then switch the row to it (`ready`, new type/size/ext; same id) and delete the original.
 * Nothing happens when the file is gone or already ready (a job run twice). The work folder is the
 * file's own, so a conversion left running by a server that died is stopped first (workspace.ts).
 */
async function processFile(
  ctx: MediaContext,
  fileId: string,
  job: RunningJob,
  convert: (input: string, dir: string, info: ProbeResult, file: FileRow) => Promise<Converted>,
): Promise<void> {
  if ((await rawFile(ctx, fileId)) === undefined) return;
  await withFileWorkspace(ctx, fileId, async (dir) => {
    // Read again: a run of the same file that had the folder before this one may have finished it.
    const file = await rawFile(ctx, fileId);
    if (file === undefined) return;
    const input = path.join(dir, `original.${file.ext}`);
    await fetchToFile(ctx, file.storage_key, input);
    const info = await probe(input, job.signal);
    const out = await convert(input, dir, info, file);
    const after = out.mime.startsWith('video/') ? await probe(out.file, job.signal) : null;
    let key = `${file.id}.${out.ext}`;
    if (key === file.storage_key) key = `${file.id}.converted.${out.ext}`;
    const { size } = await storeFile(ctx, out.file, key);
    // A new version: derived pictures of the original are keyed by the old `updated_at`.
    const updatedAt = Math.max(ctx.clock.now(), file.updated_at + 1);
    const replaced = await replaceConvertedFile(ctx.db.kysely, file, {
      type: out.mime,
      ext: out.ext,
      // The download name follows the new format: "IMG_0042.MOV" becomes "IMG_0042.mp4".
      name: renameExtension(file.name, out.ext),
      storage_key: key,
      size,
      width: after?.video?.width ?? null,
      height: after?.video?.height ?? null,
      updated_at: updatedAt,
    });
    if (!replaced) {
      // Deleted (or finished by another run) meanwhile: keep nothing of this run.
      await ctx.files.delete(key);
      return;
    }
    await ctx.files.delete(file.storage_key);
    await ctx.files.delete(`derived/${file.id}`);
    if (file.kind === 'video') {
      // The poster of the converted video, ready for the first thumbnail request.
      try {
        await makeStill(ctx, { ...file, storage_key: key, ext: out.ext, updated_at: updatedAt }, job.signal);
      } catch (error) {
        ctx.log.warn({ err: error, fileId: file.id }, 'taking the poster failed; it is made on first request');
      }
    }
    publish(ctx, file);
  });
}

/**
 * The final failure of a conversion (docs/api §7.1): the file becomes `ready` with its original
 * bytes, and `error` says why in a few words. A file is never left `raw`.
 */
/** `name` with its extension replaced by `ext` (or `ext` added when it has none). */
export function renameExtension(name: string, ext: string): string {
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.${ext}`;
}

async function giveUp(ctx: MediaContext, fileId: string, error: unknown, fallback: string): Promise<void> {
  const reason = error instanceof MediaError ? error.reason : fallback;
  const file = await findFile(ctx.db.kysely, fileId);
  if (file === undefined) return;
  const updatedAt = Math.max(ctx.clock.now(), file.updated_at);
  if (await markRawFileFailed(ctx.db.kysely, fileId, reason, updatedAt)) publish(ctx, file);
}

/** A MediaError that retrying cannot fix stops the retries. */
function rethrow(error: unknown): never {
  if (error instanceof MediaError && error.permanent) {
    throw Object.assign(new PermanentJobError(error.message), { cause: error, reason: error.reason });
  }
  throw error;
}

function reasonOf(error: unknown): unknown {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof MediaError ? cause : error;
}

/**
 * `process-video` and `process-audio` (docs/api §7.1), enqueued by the upload in its transaction.
 *
 * - Video: an MP4 already H.264 + AAC/MP3 is remuxed (no metadata, moov first); anything else is
 *   converted to H.264/AAC MP4 at most 720p, with progress. The poster is taken from the result.
 * - Audio: MP3 and AAC (M4A/ADTS) are rewritten without metadata; anything else becomes AAC in M4A.
 * - PDF needs no job: its first-page preview is rendered by pdftoppm on the first thumbnail
 *   request and kept (src/media/pictures.ts).
 */
export function registerMediaHandlers(ctx: MediaContext, queue: JobQueue): void {
  queue.register('process-video', {
    heavy: true,
    async run({ fileId }, job) {
      try {
        await processFile(ctx, fileId, job, async (input, dir, info, file) => {
          if (info.video === null) throw new MediaError('This video cannot be read', 'no video stream', true);
          const output = path.join(dir, 'out.mp4');
          if (isPlayableMp4(file.ext, info)) {
            await remuxMp4(input, output, { signal: job.signal });
          } else {
            await transcodeVideo(input, output, {
              signal: job.signal,
              durationSec: info.duration,
              onProgress: progressReporter(ctx, file),
            });
          }
          return { file: output, ext: 'mp4', mime: 'video/mp4' };
        });
      } catch (error) {
        rethrow(error);
      }
    },
    onFailure: ({ fileId }, error) => giveUp(ctx, fileId, reasonOf(error), 'This video could not be converted'),
  });

  queue.register('process-audio', {
    heavy: true,
    async run({ fileId }, job) {
      try {
        await processFile(ctx, fileId, job, async (input, dir, info, file) => {
          if (info.audio === null) throw new MediaError('This sound cannot be read', 'no audio stream', true);
          const { codec } = info.audio;
          if (codec === 'mp3' && info.formatName.includes('mp3')) {
            const output = path.join(dir, 'out.mp3');
            await cleanMp3(input, output, { signal: job.signal });
            return { file: output, ext: 'mp3', mime: 'audio/mpeg' };
          }
          const output = path.join(dir, 'out.m4a');
          if (codec === 'aac' && (info.formatName.includes('mp4') || info.formatName.includes('aac'))) {
            await cleanAac(input, output, { signal: job.signal });
          } else {
            await transcodeAudio(input, output, {
              signal: job.signal,
              durationSec: info.duration,
              onProgress: progressReporter(ctx, file),
            });
          }
          return { file: output, ext: 'm4a', mime: 'audio/mp4' };
        });
      } catch (error) {
        rethrow(error);
      }
    },
    onFailure: ({ fileId }, error) => giveUp(ctx, fileId, reasonOf(error), 'This sound could not be converted'),
  });
}
