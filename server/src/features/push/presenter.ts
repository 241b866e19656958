import type { PushSubscription } from '@kith/common';
import { toSeconds } from '../../lib/clock.js';
import type { PushSubscriptionRow } from './queries.js';

/** One device of the caller (docs/api §11.9); its keys never leave the server. */
export function presentSubscription(row: PushSubscriptionRow): PushSubscription {
  return {
    id: row.id,
    endpoint: row.endpoint,
    label: row.label,
    createdAt: toSeconds(row.created_at),
    lastPushAt: row.last_push_at === null ? null : toSeconds(row.last_push_at),
  };
}
