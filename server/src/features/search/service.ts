import type { AppContext } from '../../context.js';
import type { Body } from '../../lib/body.js';
import { invalidField, missingField, notFound } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import { canSeeGroup } from '../groups/policy.js';
import { findMembership } from '../memberships/queries.js';
import type { UserRow } from '../../db/rows.js';
import type { SearchRunner } from './threads.js';

export const DEFAULT_SEARCH_LIMIT = 100;
export const MAX_SEARCH_LIMIT = 100;

export interface SearchRequest {
  groupId: string;
  search: string;
  hashtags: string;
  limit: number;
  /** An earlier answer's `older`: search the slices below it (search/search-index.ts). */
  before: number | null;
}

/**
 * The `group` of a search body (docs/api §6.8): an id string, an array whose first element is the
 * id (the 0.5.6 client sends `["<id>", null]`), or `{id}`. Absent, `null`, blank or an empty array
 * is `missing_field`; anything else that is not a UUID is `invalid_field`.
 */
function readGroupId(raw: unknown): string {
  let value = Array.isArray(raw) ? (raw as unknown[])[0] : raw;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    value = (value as Record<string, unknown>).id;
  }
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw missingField('group', 'The group is required');
  }
  const id = typeof value === 'string' ? parseId(value.trim()) : null;
  if (id === null) throw invalidField('group', 'The group must be a group id');
  return id;
}

/** Reads and checks a search body, in the order of the contract's table. */
export function readSearchRequest(body: Body): SearchRequest {
  const groupId = readGroupId(body.raw('group'));
  const search = body.string('search') ?? '';
  const hashtags = body.string('hashtags') ?? '';
  const limit = body.integer('limit') ?? DEFAULT_SEARCH_LIMIT;
  if (limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw invalidField('limit', `The limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  const before = body.integer('before') ?? null;
  if (before !== null && before < 1) {
    throw invalidField('before', "The field before must be an earlier answer's older: a whole number from 1");
  }
  return { groupId, search, hashtags, limit, before };
}

/**
 * POST /api/messages/search (docs/api §6.8, §10.7). The caller must be a member of the group (else
 * 404, so ids cannot be probed); the search itself runs where `runner` says (threads.ts): in a
 * worker thread on SQLite, so no request waits behind its ranking and snippets. The answer is the
 * bytes of a `SearchAnswer`'s JSON.
 */
export async function searchMessages(
  ctx: AppContext,
  runner: SearchRunner,
  user: UserRow,
  request: SearchRequest,
): Promise<Uint8Array> {
  const membership = await findMembership(ctx.db.kysely, request.groupId, user.id);
  if (!canSeeGroup(user, { id: request.groupId }, membership)) throw notFound();
  return runner.answer(request);
}
