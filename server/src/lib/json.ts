/** How deep objects and arrays of a request body may nest; the deepest body of the API needs 3. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` nests objects and arrays deeper than `max`, counted on the raw text (brackets
 * inside strings skipped) before it is parsed: JSON.parse of 1 MiB of `[` builds a million arrays
 * and held the event loop for 100 ms, while this scan stops at the first bracket too deep.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return false;
}

/**
 * A request body read as a JSON object (docs/api §1.3), or an Error saying why it is not one: not
 * JSON, nested deeper than MAX_JSON_DEPTH, not an object, or holding a NUL character (PostgreSQL
 * cannot store them, and no text needs them).
 */
export function parseJsonObject(text: string): Record<string, unknown> | Error {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return new Error(`nested deeper than ${MAX_JSON_DEPTH}`);
  try {
    const value: unknown = JSON.parse(text, (_key, v: unknown) => {
      if (typeof v === 'string' && v.includes('\u0000')) throw new Error('NUL character');
      return v;
    });
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return new Error('not an object');
    return value as Record<string, unknown>;
  } catch (error) {
    return error as Error;
  }
}
