import { formatByteSize, type StorageUsage } from '@kith/common';
import type { TFunction } from '../../lib/translate';

/**
 * The lines of the Profile tab about storage (GET /api/me/storage): what the user holds, of their
 * limit when there is one, and what they may still upload when the instance's limit leaves them
 * less than their own (or is the only limit). Sizes are written the language's way.
 */
export function storageLines(usage: StorageUsage, lang: string, t: TFunction): string[] {
  const size = (bytes: number) => formatByteSize(lang, bytes);
  const lines = [
    usage.limit === null
      ? t('settings.storage_usage_unlimited', { used: size(usage.used) })
      : t('settings.storage_usage', { used: size(usage.used), limit: size(usage.limit) }),
  ];
  const ownRoom = usage.limit === null ? null : Math.max(0, usage.limit - usage.used);
  if (usage.available !== null && (ownRoom === null || usage.available < ownRoom)) {
    lines.push(t('settings.storage_available', { available: size(usage.available) }));
  }
  return lines;
}
