// What the "Your data" tab shows of the caller's exports (issue 22), without React.
import type { ExportList, ExportObject } from '@kith/common';

/** The export section's state: the latest export and whether a new one may be started now. */
export type ExportView =
  | { kind: 'none'; canStart: true }
  | { kind: 'building'; canStart: false }
  | { kind: 'ready'; export: ExportObject; canStart: boolean }
  | { kind: 'failed'; canStart: boolean }
  | { kind: 'limited'; canStart: false };

/**
 * The latest export decides what is shown; the button follows `nextAllowedAt` (one building at a
 * time, one per hour). A ready export stays downloadable while the next hour has not come, and a
 * new one may be started once it has.
 */
export function exportView(list: ExportList, nowSeconds: number): ExportView {
  const latest = list.exports[0];
  const canStart = list.nextAllowedAt === null || list.nextAllowedAt <= nowSeconds;
  if (latest?.state === 'building') return { kind: 'building', canStart: false };
  if (latest?.state === 'ready' && latest.downloadUrl !== null) return { kind: 'ready', export: latest, canStart };
  if (latest?.state === 'failed') return canStart ? { kind: 'failed', canStart } : { kind: 'limited', canStart: false };
  return canStart ? { kind: 'none', canStart: true } : { kind: 'limited', canStart: false };
}

/** A size in bytes as people read it (kB below a megabyte, else MB with one decimal), in `lang`. */
export function formatSize(lang: string, bytes: number): string {
  const megabytes = bytes / 1_000_000;
  const [unit, value] =
    megabytes < 1 ? (['kilobyte', Math.max(1, Math.round(bytes / 1000))] as const) : (['megabyte', megabytes] as const);
  try {
    return new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(
      value,
    );
  } catch {
    return `${value.toFixed(unit === 'megabyte' ? 1 : 0)} ${unit === 'megabyte' ? 'MB' : 'kB'}`;
  }
}
