// What the ai-text offline writers share (issue 29): how the brand speaks without a model (first person plural for
// a business, singular for a person), its banned phrases taken out of whatever is written, and small text helpers.
// Everything here is deterministic: the same input gives the same text.
import type { BrandContext } from '../ai/brand-context.js';

/** The words a text is made of, for counting: lower case, letters and digits (any script). */
export const wordsOf = (text: string): string[] =>
  text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];

/** Common English words that carry no topic, left out of word counts and keywords. */
export const stopwords: ReadonlySet<string> = new Set(
  (
    'a about after all also an and any are as at be been but by can could did do does for from had has have he her ' +
    'his how i if in into is it its just may me more most my no not of on one only or other our out over she so ' +
    'some such than that the their them then there these they this those through to too up us was we were what ' +
    'when where which while who why will with would you your'
  ).split(' '),
);

export const squeeze = (text: string) =>
  text
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
export { lowerFirst, upperFirst } from '../ai/text.js';
/** A phrase without its closing punctuation, to be set inside a sentence. */
export const bare = (text: string) => squeeze(squeeze(text).replace(/[\s.!?;:,]+$/, ''));

/** How the brand names itself: "we"/"our" for a business, "I"/"my" for a person. */
export function pronounsOf(brand: BrandContext | null): { we: string; our: string } {
  return brand?.brandType === 'personal' ? { we: 'I', our: 'my' } : { we: 'we', our: 'our' };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text without the brand's banned phrases (case-insensitive), its spacing tidied after the cut. */
export function withoutBannedPhrases(text: string, brand: BrandContext | null): string {
  let out = text;
  for (const phrase of brand?.voice.bannedPhrases ?? []) {
    if (!phrase.trim()) continue;
    out = out.replace(new RegExp(`\\s*${escapeRegExp(phrase.trim())}`, 'giu'), '');
  }
  return out === text ? text : squeeze(out.replace(/ +([.,!?;:])/g, '$1'));
}

/** Sentences of a text, in order (a line break also ends one). */
export function sentencesOf(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?…])\s+(?=["'“‘(\p{Lu}\p{N}])/u))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
