import type { UserRow } from '../../db/rows.js';
import type { ExportRow } from './queries.js';

/** Exports are their owner's alone: anyone else is told the export does not exist. */
export function canSeeExport(user: Pick<UserRow, 'id'>, exp: Pick<ExportRow, 'user_id'>): boolean {
  return exp.user_id === user.id;
}

/** Only a ready export has bytes to download. */
export function isDownloadable(exp: Pick<ExportRow, 'state' | 'storage_key' | 'expires_at'>, now: number): boolean {
  return exp.state === 'ready' && exp.storage_key !== null && exp.expires_at !== null && exp.expires_at > now;
}
