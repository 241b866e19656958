import type { SearchAnswer } from '@kith/common';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SearchIndex, SearchQuery } from '../../search/search-index.js';
import { highlightTerms, presentSearchAnswer, presentSearchMessage } from './presenter.js';

/**
 * The answer to a search whose caller may see the group (service.ts checked): one query whatever
 * the number of hits (the index's, which reads the page's messages too), then the snippets. It needs nothing of the app but a
 * database and the index, so a worker thread runs it on a connection of its own (worker.ts).
 */
export async function answerSearch(
  db: Kysely<Database>,
  index: SearchIndex,
  query: SearchQuery,
): Promise<SearchAnswer> {
  const result = await index.search(db, query);
  const terms = highlightTerms(result.terms);
  const messages = result.hits.map((hit) => presentSearchMessage(hit.message, hit.score, terms));
  return presentSearchAnswer(messages, result.total, result.terms, result.older);
}

const encoder = new TextEncoder();

/** An answer as the UTF-8 bytes of its JSON, in a buffer of their own (threads.ts says why). */
export function jsonBytes(answer: SearchAnswer): Uint8Array {
  return encoder.encode(JSON.stringify(answer));
}
