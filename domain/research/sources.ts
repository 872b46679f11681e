// Where a research answer came from (issue 31, part 3), said in every answer: `live` (read now from the platform or
// the workspace's feeds), `cached` (a live read kept from earlier, with when), or `curated` (the data set shipped
// with the project, config/research/curated.json, with its date and the name of its source).
export const sourceKinds = ['live', 'cached', 'curated'] as const;
export type SourceKind = (typeof sourceKinds)[number];

export interface ResearchSource {
  kind: SourceKind;
  /** What was read: "X personalized trends (@handle)", "RSS/Atom feed: Example News", the curated set's name. */
  name: string;
  /** When it was read (live, cached), or the date the curated set was compiled. */
  asOf: string;
  /** Where to read more: the feed's address, the curated set's references; null when there is none. */
  url: string | null;
}

/** Terms are matched as whole words (or phrases), case-insensitively. */
export function termPattern(term: string): RegExp {
  const escaped = term
    .trim()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/g, '\\s+');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'iu');
}

/** The terms (of `terms`) a text mentions, in the order given. */
export function matchedTerms(text: string, terms: readonly string[]): string[] {
  return terms.filter((t) => t.trim() !== '' && termPattern(t).test(text));
}

/** A list of terms de-duplicated case-insensitively, the first spelling kept. */
export function uniqueTerms(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const t = v.trim().replace(/\s+/g, ' ');
    if (t && !seen.has(t.toLowerCase())) {
      seen.add(t.toLowerCase());
      out.push(t);
    }
  }
  return out;
}
