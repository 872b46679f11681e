// LIKE / ILIKE patterns that match text literally: the one escaping of `%`, `_` and `\` that every query uses
// (PostgreSQL's default escape character for LIKE is the backslash).

/** Escapes LIKE wildcards and the escape character, so `text` inside a pattern matches only itself. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
