// The search rule of the spec (§2 main navigation): accents stripped, words joined by "+", and
// #hashtags recognised. Imported by the navigation, so it stays a few lines.

/** A search as the route carries it: plain words and hashtags (without "#"), accents stripped. */
export interface SearchQuery {
  words: string[];
  hashtags: string[];
}

/** Removes accents: the combining marks left by canonical decomposition (é → e). */
export function stripAccents(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC');
}

/** Cuts typed text into words and hashtags: pieces split on white space and "+"; "#x" is a hashtag. */
export function parseSearch(text: string, hashtags = ''): SearchQuery {
  const query: SearchQuery = { words: [], hashtags: [] };
  const add = (piece: string, isTag: boolean) => {
    const tag = isTag || (piece.startsWith('#') && piece.length > 1);
    const word = tag ? piece.replace(/^#+/, '') : piece;
    const list = tag ? query.hashtags : query.words;
    if (word !== '' && !list.includes(word)) list.push(word);
  };
  for (const piece of stripAccents(text).split(/[\s+]+/)) add(piece, false);
  for (const piece of stripAccents(hashtags).split(/[\s+]+/)) add(piece, true);
  return query;
}

/** The search page of a group for typed text: `/groups/{id}/search?q=a+b&hashtags=c`, or null if empty. */
export function searchPath(groupId: string, text: string, hashtags = ''): string | null {
  const { words, hashtags: tags } = parseSearch(text, hashtags);
  if (words.length === 0 && tags.length === 0) return null;
  // Each word is encoded on its own, so the "+" between them stays a literal separator (a space).
  const join = (list: string[]) => list.map(encodeURIComponent).join('+');
  const params = [words.length > 0 ? `q=${join(words)}` : '', tags.length > 0 ? `hashtags=${join(tags)}` : ''];
  return `/groups/${groupId}/search?${params.filter((p) => p !== '').join('&')}`;
}
