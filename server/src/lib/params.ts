import { invalidField } from './errors.js';

/** `{limit}` of a list path: an integer ≥ 1, lowered to `max`; absent means `fallback` (docs/api §1.7). */
export function parseLimit(raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    throw invalidField('limit', 'The limit must be a whole number of at least 1');
  return Math.min(Number(raw), max);
}
