import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportList, ExportObject } from '@kith/common';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import { publishCommitted } from '../../db/effects.js';
import type { UserRow } from '../../db/rows.js';
import { unauthenticated } from '../../http/caller.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { toSeconds } from '../../lib/clock.js';
import { ApiError, notFound } from '../../lib/errors.js';
import { newId, parseId } from '../../lib/ids.js';
import { mailLanguage } from '../../mail/texts.js';
import { checkSignature } from '../files/signing.js';
import { writeArchive, type ArchiveCounts, type ArchiveSubject } from './archive.js';
import { canSeeExport, isDownloadable } from './policy.js';
import { exportSignedName, presentExport } from './presenter.js';
import {
  deleteExports,
  deleteOldFailedExports,
  exportKeysOfUser,
  findArchiveGroup,
  findExport,
  findExportOwner,
  groupMembers,
  insertExport,
  latestCountedExport,
  listExpiredExports,
  listUserExports,
  markExportFailed,
  markExportReady,
  type ExportRow,
} from './queries.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The limits of member exports (docs/decisions.md, "Exports"). */
export const EXPORT_LIMITS = {
  /** One export started per hour (failed ones do not count), besides one building at a time. */
  intervalMs: HOUR_MS,
  /** A ready export, and its zip, are deleted this long after they became ready. */
  retentionMs: 7 * DAY_MS,
  /** A failed export stays listed this long, so the member sees what happened. */
  failedKeepMs: 7 * DAY_MS,
  /** The list shows at most this many (older ones expire long before there are more). */
  listMax: 20,
} as const;

/** Where a member export's zip is kept in the FileStore. */
export function exportStorageKey(id: string): string {
  return `exports/${id}.zip`;
}

/** When `user` may start their next export, or null when they may now. */
function nextAllowed(latest: ExportRow | undefined): number | null {
  if (latest === undefined) return null;
  if (latest.state === 'building') return null;
  return latest.created_at + EXPORT_LIMITS.intervalMs;
}

/** POST /api/me/exports: records the export and queues the job that builds it (docs/api §11.12). */
export async function startExport(ctx: AppContext, user: UserRow): Promise<ExportObject> {
  const now = ctx.clock.now();
  try {
    const row = await transaction(ctx, async (tx, effects) => {
      const latest = await latestCountedExport(tx, user.id);
      if (latest?.state === 'building') throw exportInProgress();
      const allowedAt = nextAllowed(latest);
      if (allowedAt !== null && allowedAt > now) throw exportLimitReached((allowedAt - now) / 1000);
      const created: ExportRow = {
        id: newId(),
        user_id: user.id,
        state: 'building',
        storage_key: null,
        size: null,
        error: null,
        created_at: now,
        finished_at: null,
        expires_at: null,
      };
      await insertExport(tx, created);
      await effects.enqueue('build-export', { exportId: created.id });
      return created;
    });
    return presentExport(ctx, row);
  } catch (error) {
    // Two requests at once: the partial unique index let one in.
    if (isUniqueViolation(error)) throw exportInProgress();
    throw error;
  }
}

const exportInProgress = () =>
  new ApiError(409, 'export_in_progress', 'An export is already being prepared. Please wait until it is ready');

const exportLimitReached = (retryAfterSeconds: number) =>
  new ApiError(429, 'export_limit_reached', 'You can start one export per hour. Please try again later', undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/** GET /api/me/exports: the caller's exports and when they may start the next. */
export async function listExports(ctx: AppContext, user: UserRow): Promise<ExportList> {
  const now = ctx.clock.now();
  const [rows, latest] = await Promise.all([
    listUserExports(ctx.db.kysely, user.id, now, EXPORT_LIMITS.listMax),
    latestCountedExport(ctx.db.kysely, user.id),
  ]);
  const allowedAt = nextAllowed(latest);
  const busy = latest?.state === 'building';
  return {
    exports: rows.map((row) => presentExport(ctx, row)),
    nextAllowedAt: busy ? toSeconds(now) : allowedAt !== null && allowedAt > now ? Math.ceil(allowedAt / 1000) : null,
  };
}

/**
 * GET /api/me/exports/{id}/download: the zip of a ready export, for its owner's key or its signed
 * link. Anything else is 404, as for an export that does not exist; no key and no link is 401.
 */
export async function openExportDownload(
  ctx: AppContext,
  request: Parameters<typeof unauthenticated>[0],
  caller: UserRow | null,
  rawId: string,
  query: { exp?: unknown; sig?: unknown },
): Promise<{ row: ExportRow; stream: Readable }> {
  const id = parseId(rawId);
  const now = ctx.clock.now();
  const signed = query.sig !== undefined || query.exp !== undefined;
  if (caller === null && !signed) throw unauthenticated(request);
  if (id === null) throw notFound();
  const row = await findExport(ctx.db.kysely, id);
  let allowed = row !== undefined && caller !== null && canSeeExport(caller, row);
  if (!allowed && signed) {
    const check = checkSignature(ctx.config.secretKey, exportSignedName(id), query.exp, query.sig, now);
    if (check === 'expired') throw new ApiError(403, 'url_expired', 'This link has expired');
    allowed = check === 'ok' && row !== undefined;
  }
  if (row === undefined || !allowed || !isDownloadable(row, now) || row.storage_key === null) throw notFound();
  return { row, stream: ctx.files.read(row.storage_key) };
}

/** The file name a download is saved under. */
export function downloadName(row: ExportRow): string {
  return `kith-export-${new Date(row.created_at).toISOString().slice(0, 10)}.zip`;
}

/** The archive description of a member's own writing. */
async function memberSubject(ctx: AppContext, userId: string, exportedAt: number): Promise<ArchiveSubject | null> {
  const owner = await findExportOwner(ctx.db.kysely, userId);
  if (owner === undefined) return null;
  return {
    scope: { kind: 'member', userId },
    subject: { id: owner.id, name: owner.name },
    lang: mailLanguage(owner.lang, ctx.config.defaultLang),
    exportedAt,
  };
}

/** Builds one member export (the `build-export` job): the zip into the FileStore, then ready. */
async function buildExport(ctx: AppContext, exportId: string): Promise<void> {
  const row = await findExport(ctx.db.kysely, exportId);
  // Gone (the account was deleted) or already finished by an earlier run: nothing left to do.
  if (row === undefined || row.state !== 'building') return;
  const subject = await memberSubject(ctx, row.user_id, row.created_at);
  if (subject === null) return;
  const key = exportStorageKey(row.id);
  const { result } = await writeArchive(subject, { db: ctx.db.kysely, files: ctx.files }, (zip) =>
    ctx.files.write(key, zip),
  );
  const now = ctx.clock.now();
  const marked = await markExportReady(ctx.db.kysely, row.id, {
    storageKey: key,
    size: result.size,
    finishedAt: now,
    expiresAt: now + EXPORT_LIMITS.retentionMs,
  });
  if (!marked) {
    await ctx.files.delete(key);
    return;
  }
  publishCommitted(ctx, { type: 'export', userId: row.user_id, exportId: row.id });
}

/** Registers the `build-export` job: retried on failure, marked failed (and the owner told) at the end. */
export function registerExportHandler(ctx: AppContext, queue: JobQueue): void {
  queue.register('build-export', {
    run: ({ exportId }) => buildExport(ctx, exportId),
    async onFailure({ exportId }, error) {
      const row = await findExport(ctx.db.kysely, exportId);
      if (row === undefined) return;
      ctx.log.error({ err: error, exportId }, 'building an export failed');
      await markExportFailed(
        ctx.db.kysely,
        exportId,
        error instanceof Error ? error.message : String(error),
        ctx.clock.now(),
      );
      await ctx.files.delete(exportStorageKey(exportId)).catch(() => undefined);
      publishCommitted(ctx, { type: 'export', userId: row.user_id, exportId });
    },
  });
}

/**
 * For account deletion: the zips of a user's exports, read before the account goes (its rows then
 * go with it by foreign key), to delete once the deletion has committed.
 */
export function exportZipsOf(ctx: AppContext, userId: string): Promise<string[]> {
  return exportKeysOfUser(ctx.db.kysely, userId);
}

/** Deletes zips from the store (after account deletion); a failure is logged, never thrown. */
export async function deleteExportZips(ctx: AppContext, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    await ctx.files
      .delete(key)
      .catch((error: unknown) => ctx.log.warn({ err: error, key }, 'deleting an export zip failed'));
  }
}

/** How many expired exports one housekeeping run removes at most; the next run takes the rest. */
const EXPIRY_BATCH = 200;

/**
 * Housekeeping: deletes ready exports past their expiry (the zip first, then the row, so a failure
 * leaves the row for the next run) and failed ones older than a week. Returns how many went.
 */
export async function expireExports(ctx: AppContext, now: number): Promise<number> {
  const expired = await listExpiredExports(ctx.db.kysely, now, EXPIRY_BATCH);
  for (const row of expired) {
    await ctx.files.delete(row.storage_key ?? exportStorageKey(row.id));
  }
  await deleteExports(
    ctx.db.kysely,
    expired.map((row) => row.id),
  );
  const failed = await deleteOldFailedExports(ctx.db.kysely, now - EXPORT_LIMITS.failedKeepMs);
  return expired.length + failed;
}

/** What the operator's group export reports. */
export interface GroupExportSummary {
  group: { id: string; name: string };
  file: string;
  size: number;
  members: number;
  counts: ArchiveCounts;
}

/**
 * `kith export-group`: a whole group (all members' messages, comments and files, the members'
 * names) in the member export's format, written to `file` (through a temporary name, so a failed
 * run leaves no half zip behind).
 */
export async function exportGroupToFile(
  ctx: AppContext,
  groupId: string,
  file: string,
  progress: (written: number) => void,
): Promise<GroupExportSummary | null> {
  const group = await findArchiveGroup(ctx.db.kysely, groupId);
  if (group === undefined) return null;
  const members = await groupMembers(ctx.db.kysely, groupId);
  const subject: ArchiveSubject = {
    scope: { kind: 'group', groupId },
    subject: group,
    members: members.map((m) => ({ id: m.id, name: m.name })),
    lang: ctx.config.defaultLang,
    exportedAt: ctx.clock.now(),
  };
  const partial = `${file}.partial`;
  let size = 0;
  try {
    const { counts } = await writeArchive(subject, { db: ctx.db.kysely, files: ctx.files, progress }, async (zip) => {
      zip.on('data', (chunk: Buffer) => (size += chunk.length));
      await pipeline(zip, createWriteStream(partial));
    });
    await rename(partial, file);
    return { group, file, size, members: members.length, counts };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
