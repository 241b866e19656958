import type { SearchAnswer } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { Body } from '../../lib/body.js';
import { invalidField, missingField, notFound } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import { canSeeGroup } from '../groups/policy.js';
import { findMembership } from '../memberships/queries.js';
import type { UserRow } from '../../db/rows.js';
import { highlightTerms, presentSearchAnswer, presentSearchMessage } from './presenter.js';
import { loadSearchRows } from './queries.js';

export const DEFAULT_SEARCH_LIMIT = 100;
export const MAX_SEARCH_LIMIT = 100;

export interface SearchRequest {
  groupId: string;
  search: string;
  hashtags: string;
  limit: number;
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
  return { groupId, search, hashtags, limit };
}

/**
 * POST /api/messages/search (docs/api §6.8, §10.7). The caller must be a member of the group (else
 * 404, so ids cannot be probed). Three queries whatever the number of hits: membership, the index,
 * the rows. A search without a usable term answers an empty list.
 */
export async function searchMessages(ctx: AppContext, user: UserRow, request: SearchRequest): Promise<SearchAnswer> {
  const db = ctx.db.kysely;
  const membership = await findMembership(db, request.groupId, user.id);
  if (!canSeeGroup(user, { id: request.groupId }, membership)) throw notFound();
  const result = await ctx.search.search(db, request);
  if (result.hits.length === 0) return presentSearchAnswer([], result.total, result.terms);
  const rows = await loadSearchRows(
    db,
    request.groupId,
    result.hits.map((hit) => hit.messageId),
  );
  const terms = highlightTerms(result.terms);
  const messages = result.hits.flatMap((hit) => {
    // A message deleted between the two reads is left out.
    const row = rows.get(hit.messageId);
    return row === undefined ? [] : [presentSearchMessage(row, hit.score, terms)];
  });
  return presentSearchAnswer(messages, result.total, result.terms);
}
