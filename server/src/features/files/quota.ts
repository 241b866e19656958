import type { StorageUsage } from '@kith/common';
import type { AppContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import type { UserRow } from '../../db/rows.js';
import { ApiError } from '../../lib/errors.js';
import { claimStorage, clearStorageClaims, readStorage, releaseStorage } from './queries.js';

// Storage quotas (issue 22, part 4): QUOTA_USER_MB and QUOTA_INSTANCE_MB limit the bytes of stored
// uploads. What is stored is counted by triggers on `files` (migration 0021); what is still
// streaming is claimed here, step by step, before its bytes reach the store.

/** 413 for an upload past the caller's own limit. */
export const quotaExceeded = () =>
  new ApiError(413, 'quota_exceeded', 'This file does not fit in your storage allowance', 'file');
/** 413 for an upload past the instance's limit. */
export const storageFull = () =>
  new ApiError(413, 'storage_full', 'This instance has no room left for this file', 'file');

/**
 * What a multipart body may hold besides the file itself (boundaries, part headers with a long
 * file name, a few small fields), so that a file that just fits is not refused for its wrapping.
 */
const MULTIPART_SLACK = 16 * 1024;
const MIB = 1024 * 1024;

/** Whether any limit is set: without one, uploads claim nothing (no write per upload). */
function quotasOn(ctx: Pick<AppContext, 'config'>): boolean {
  return ctx.config.quota.userBytes !== null || ctx.config.quota.instanceBytes !== null;
}

/** What the caller may still upload under both limits, null when there is none. */
function availableOf(ctx: Pick<AppContext, 'config'>, usage: Awaited<ReturnType<typeof readStorage>>): number | null {
  const { userBytes, instanceBytes } = ctx.config.quota;
  const left: number[] = [];
  if (userBytes !== null) left.push(userBytes - usage.bytes - usage.reserved);
  if (instanceBytes !== null) left.push(instanceBytes - usage.instanceBytes - usage.instanceReserved);
  return left.length === 0 ? null : Math.max(0, Math.min(...left));
}

/** GET /api/me/storage: the caller's stored bytes, their limit and what they may still upload. */
export async function storageUsage(ctx: AppContext, user: UserRow): Promise<StorageUsage> {
  const usage = await readStorage(ctx.db.kysely, user.id);
  return { used: usage.bytes, limit: ctx.config.quota.userBytes, available: availableOf(ctx, usage) };
}

/**
 * The room an upload takes while it streams. `cover(total)` claims enough for `total` bytes before
 * they are passed on to the store, in steps that grow with the upload (an eighth of what it holds,
 * 1 to 64 MiB) so a large file costs a few hundred small writes, not one per chunk; near a limit
 * the step shrinks to exactly what is needed. The claim goes once the file row holds the bytes
 * (`settle`) or the upload is given up (`release`).
 */
export class UploadReservation {
  private claimed = 0;

  constructor(
    private readonly ctx: AppContext,
    /** Null for an operator's import (`import-zusam`), which no quota holds back. */
    private readonly userId: string | null,
  ) {}

  /** Makes sure `total` bytes are claimed; throws quota_exceeded or storage_full otherwise. */
  async cover(total: number): Promise<void> {
    if (this.userId === null || !quotasOn(this.ctx) || total <= this.claimed) return;
    const needed = total - this.claimed;
    const step = Math.min(64 * MIB, Math.max(MIB, Math.floor(this.claimed / 8)));
    if (step > needed && (await this.claim(step)) === null) return;
    const refused = await this.claim(needed);
    if (refused !== null) throw refused;
  }

  /** Claims `bytes` on both rows or on neither; answers the refusal, if any. */
  private async claim(bytes: number): Promise<ApiError | null> {
    const { userId } = this;
    if (userId === null) return null;
    const { userBytes, instanceBytes } = this.ctx.config.quota;
    try {
      await transaction(this.ctx, async (tx) => {
        const refused = await claimStorage(tx, userId, bytes, {
          userLimit: userBytes,
          instanceLimit: instanceBytes,
        });
        // Thrown inside: the user's claim made before an instance refusal is rolled back with it.
        if (refused === 'user') throw quotaExceeded();
        if (refused === 'instance') throw storageFull();
      });
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'quota_exceeded' || error.code === 'storage_full')) return error;
      throw error;
    }
    this.claimed += bytes;
    return null;
  }

  /**
   * Gives the claim back inside `tx` (the one recording the file, whose trigger counts the bytes
   * instead). The claim is forgotten only by `settled()`, once that transaction committed: a
   * transaction run again or rolled back still has it to give back.
   */
  async settle(tx: Parameters<typeof releaseStorage>[0]): Promise<void> {
    if (this.userId !== null) await releaseStorage(tx, this.userId, this.claimed);
  }

  /** The transaction that settled the claim committed. */
  settled(): void {
    this.claimed = 0;
  }

  /** Gives the claim back on its own (an upload refused or broken). */
  async release(): Promise<void> {
    const { userId } = this;
    if (this.claimed === 0 || userId === null) return;
    const bytes = this.claimed;
    this.claimed = 0;
    await transaction(this.ctx, (tx) => releaseStorage(tx, userId, bytes));
  }
}

/**
 * Forgets the claims of uploads that were under way when the previous server process stopped
 * (killed mid-upload, they were never given back). Only for a server holding the instance lock:
 * no other process can be uploading then. Scale-out processes never call it (docs/operations.md).
 */
export async function forgetStaleUploadClaims(ctx: AppContext): Promise<void> {
  await transaction(ctx, (tx) => clearStorageClaims(tx));
}

/**
 * Refuses an upload whose declared size (the request's Content-Length, less what a multipart
 * body wraps a file in) cannot fit, before any byte is read. Claims nothing: the streamed bytes
 * are claimed as they come (UploadReservation), so a wrong length gains nothing.
 */
export async function checkDeclaredSize(ctx: AppContext, user: UserRow, contentLength: string | undefined) {
  if (!quotasOn(ctx) || contentLength === undefined || !/^\d+$/.test(contentLength)) return;
  const fileBytes = Number(contentLength) - MULTIPART_SLACK;
  if (fileBytes <= 0) return;
  const usage = await readStorage(ctx.db.kysely, user.id);
  const { userBytes, instanceBytes } = ctx.config.quota;
  if (userBytes !== null && usage.bytes + usage.reserved + fileBytes > userBytes) throw quotaExceeded();
  if (instanceBytes !== null && usage.instanceBytes + usage.instanceReserved + fileBytes > instanceBytes) {
    throw storageFull();
  }
}
