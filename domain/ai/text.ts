// Small text helpers the offline writers share (strategy, launch kits, thought drafts, AI text): whitespace, first sentences and the case
// of a first letter. Pure string work, no knowledge of any slice.

/** Runs of whitespace as one space, trimmed. */
export const clean = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The first sentence, without its closing punctuation. */
export const firstSentence = (text: string) =>
  clean(text)
    .split(/(?<=[.!?])\s/)[0]!
    .replace(/[.!?]+$/, '');

/** The first letter lower-cased when it starts an ordinary capitalised word (`Ledger` → `ledger`, `CFO` stays). */
export const lowerFirst = (text: string) =>
  /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;

export const upperFirst = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);
