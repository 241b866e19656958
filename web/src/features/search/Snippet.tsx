import type { SearchSnippet } from '@kith/common';
import { snippetParts } from './highlight';

/** A search snippet with its matches in <mark>: text nodes only, never the server's markup. */
export function Snippet({ snippet, className }: { snippet: SearchSnippet; className?: string }) {
  return (
    <p className={className}>
      {snippetParts(snippet.text, snippet.highlights).map((part, index) =>
        part.marked ? <mark key={index}>{part.text}</mark> : part.text,
      )}
    </p>
  );
}
