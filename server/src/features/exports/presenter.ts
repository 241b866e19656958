import type { ExportObject } from '@kith/common';
import type { AppContext } from '../../context.js';
import { toSeconds } from '../../lib/clock.js';
import { expiryFor, signatureOf } from '../files/signing.js';
import { isDownloadable } from './policy.js';
import type { ExportRow } from './queries.js';

/** What a signed download link signs: the export, not its bytes. */
export function exportSignedName(id: string): string {
  return `export/${id}`;
}

/**
 * The Export object (docs/api §11.12). A ready one carries a download link that a browser can open
 * without the key header, signed like file names (valid 12 to 24 hours, never past the export's expiry).
 */
export function presentExport(signer: Pick<AppContext, 'config' | 'clock'>, row: ExportRow): ExportObject {
  const now = signer.clock.now();
  let downloadUrl: string | null = null;
  if (isDownloadable(row, now) && row.expires_at !== null) {
    const exp = Math.min(expiryFor(now), Math.ceil(row.expires_at / 1000));
    const sig = signatureOf(signer.config.secretKey, exportSignedName(row.id), exp);
    downloadUrl = `/api/me/exports/${row.id}/download?exp=${exp}&sig=${sig}`;
  }
  return {
    id: row.id,
    entityType: 'export',
    state: row.state,
    createdAt: toSeconds(row.created_at),
    finishedAt: row.finished_at === null ? null : toSeconds(row.finished_at),
    expiresAt: row.expires_at === null ? null : toSeconds(row.expires_at),
    size: row.state === 'ready' ? row.size : null,
    downloadUrl,
  };
}
