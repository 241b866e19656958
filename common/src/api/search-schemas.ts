import { Type, type Static } from 'typebox';

/**
 * POST /api/messages/search (docs/api §6.8, §10.7): the request body and the answer. A result is not
 * a Message object: `author`, `preview` and `parent` are plain id strings, `""` when empty, and
 * `children` is a count, which is what the 0.5.6 client reads.
 */

const Id = Type.String({ description: 'lowercase UUID v4' });
const Seconds = Type.Integer({ description: 'Unix time in seconds' });
const IdOrEmpty = (what: string) => Type.String({ description: `${what} id, "" when none` });

/** A plain-text excerpt with the matched words (Kith addition). */
export const SearchSnippet = Type.Object({
  text: Type.String({ description: 'about 160 characters of plain text, "…" where cut' }),
  highlights: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), {
    description: '[start, end) offsets in UTF-16 units into text; escape the text first, then mark these ranges',
  }),
});
export type SearchSnippet = Static<typeof SearchSnippet>;

/** One search result. */
export const SearchMessage = Type.Object({
  id: Id,
  entityType: Type.Literal('message'),
  data: Type.Object({ title: Type.String(), text: Type.String({ description: 'always a string, "" when none' }) }),
  author: IdOrEmpty('author'),
  preview: IdOrEmpty('card picture file'),
  parent: IdOrEmpty('parent message'),
  children: Type.Integer({ description: 'number of direct replies' }),
  createdAt: Seconds,
  lastActivityDate: Seconds,
  score: Type.Number({ description: 'relevance; higher is better' }),
  snippet: SearchSnippet,
});
export type SearchMessage = Static<typeof SearchMessage>;

/** The answer: the best `limit` matches, the number of all matches, the terms used. */
export const SearchAnswer = Type.Object({
  messages: Type.Array(SearchMessage, { description: 'relevance first, then newest activity, then id' }),
  totalItems: Type.Integer({ description: 'all matches in the messages searched, not only the returned ones' }),
  searchterms: Type.Array(Type.String(), { description: 'normalized terms actually used; hashtags keep their #' }),
  older: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description:
      'Kith addition. A search reads the newest 122,881 to 131,072 messages of the group; when it holds older ones, ' +
      'send this as `before` to search the next ones back, else null',
  }),
});
export type SearchAnswer = Static<typeof SearchAnswer>;

/** The request body. Unknown fields are ignored; `null` means absent. */
export const SearchBody = Type.Object({
  group: Type.Union([Id, Type.Array(Type.Union([Id, Type.Null()])), Type.Object({ id: Id })], {
    description: 'the group id, as a string, an array whose first element is the id (the 0.5.6 client), or {id}',
  }),
  search: Type.Optional(Type.String({ description: 'words separated by + or white space; may hold #hashtags' })),
  hashtags: Type.Optional(Type.String({ description: 'more hashtags, separated by spaces or +, # optional' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  before: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: "Kith addition: an earlier answer's `older`, to search the messages before those it read",
    }),
  ),
});
