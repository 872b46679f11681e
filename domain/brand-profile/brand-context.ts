// What generated public text may know of a brand (domain/ai/brand-context.ts), built in one place: brandContextOf is
// the only way from a profile to a prompt, and it leaves out every private and restricted knowledge item and every
// guardrail. Guardrails still act, after the fact: checkOutput finds generated text that touches a guardrail or
// repeats a private item, without the guardrail's words ever being sent to a model.
import type { BrandContext, OutputFinding } from '../ai/brand-context.js';
import type { BrandKitState } from '../brand/brand-kit.js';
import type { BrandProfileFields, Disclosure, KnowledgeItem, PreferenceSignal } from './brand-profile.js';

/** The disclosure an item has: its own, or the profile's when it has none. */
export function disclosureOf(
  item: Pick<KnowledgeItem, 'disclosure'>,
  profile: Pick<BrandProfileFields, 'profileDisclosure'>,
): Disclosure {
  return item.disclosure ?? profile.profileDisclosure;
}

/** The profile as brandContextOf reads it: its own fields, every preference signal, and whether it was confirmed. */
export interface ProfileForContext extends BrandProfileFields {
  /** The profile's own signals and the learned ones, merged (see mergeSignals). */
  allSignals: PreferenceSignal[];
  confirmedAt: string | null;
}

/**
 * The public brand context: the profile's public fields, its public knowledge items, its promoted preference
 * signals, and the kit's tagline and website where the profile has none. Never a guardrail, never an item whose
 * disclosure (its own or the profile's) is private or restricted.
 */
export function brandContextOf(
  profile: ProfileForContext,
  kit: Pick<BrandKitState, 'tagline' | 'website'> | null,
): BrandContext {
  const knowledge = profile.knowledgeItems
    .filter((item) => disclosureOf(item, profile) === 'public')
    .map((item) => ({ kind: item.kind, text: item.text }));
  return {
    name: profile.identity,
    websiteUrl: profile.websiteUrl ?? kit?.website ?? null,
    tagline: profile.tagline ?? kit?.tagline ?? null,
    mission: profile.mission,
    brandType: profile.brandType,
    voice: {
      tone: profile.voice.tone,
      personalityTraits: [...profile.voice.personalityTraits],
      writingGuidelines: [...profile.voice.writingGuidelines],
      bannedPhrases: [...profile.voice.bannedPhrases],
    },
    businessOutline: {
      overview: profile.businessOutline.overview,
      productsOrServices: [...profile.businessOutline.productsOrServices],
      targetAudience: [...profile.businessOutline.targetAudience],
      valueProposition: profile.businessOutline.valueProposition,
      differentiators: [...profile.businessOutline.differentiators],
    },
    expertise: [...profile.expertise],
    goals: [...profile.goals],
    topics: [...profile.topics],
    opinions: [...profile.opinions],
    knowledge,
    preferences: profile.allSignals.filter((s) => s.promoted === true).map((s) => s.signal),
    confirmed: profile.confirmedAt !== null,
  };
}

export type { OutputFinding } from '../ai/brand-context.js';

// Words that say what a rule does rather than what it is about.
const ruleWords = new Set(
  (
    "never always avoid dont don't do not no mention mentions mentioning talk about discuss say write post share " +
    'reveal disclose publish use any our the a an and or of to in on for with from by is are be it its this that ' +
    'these those we us you your they their them should must may can will would could about until before after ' +
    'yet publicly public private internal confidential'
  ).split(' '),
);

const normalise = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');

const wordsOf = (text: string) => normalise(text).match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];

/** The words a rule is about: quoted phrases when it has some, else its words that are not about rules. */
function termsOf(text: string): { phrases: string[]; words: string[] } {
  const phrases = [...text.matchAll(/["“”']([^"“”']{3,})["“”']/g)].map((m) => normalise(m[1]!.trim()));
  const words = [...new Set(wordsOf(text).filter((w) => w.length >= 3 && !ruleWords.has(w)))];
  return { phrases, words };
}

function touches(output: string, rule: string): string[] {
  const text = normalise(output);
  const { phrases, words } = termsOf(rule);
  // A rule that quotes what it is about is about exactly that.
  if (phrases.length > 0) return phrases.filter((p) => text.includes(p));
  if (words.length === 0) return [];
  const present = new Set(wordsOf(output));
  const hits = words.filter((w) => present.has(w));
  // One distinctive word of a short rule is enough; a longer rule needs half of its words (at least two).
  const needed = words.length <= 2 ? 1 : Math.max(2, Math.ceil(words.length / 2));
  return hits.length >= needed ? hits : [];
}

/**
 * Checks generated text against the profile's guardrails and its private and restricted knowledge, after the
 * fact: a guardrail that quotes phrases is touched by any of them (and only by them); another guardrail, and a
 * private item, by enough of its distinctive words (one of a rule of one or two, else half and at least two). What to do with a finding (hold the draft for review, say why) is the
 * caller's; the guardrails themselves never reach a prompt.
 */
export function checkOutput(
  output: string,
  profile: Pick<BrandProfileFields, 'guardrails' | 'knowledgeItems' | 'profileDisclosure'>,
): OutputFinding[] {
  const findings: OutputFinding[] = [];
  for (const guardrail of profile.guardrails) {
    const matched = touches(output, guardrail.text);
    if (matched.length > 0) findings.push({ kind: 'guardrail', id: guardrail.id, matched });
  }
  for (const item of profile.knowledgeItems) {
    if (disclosureOf(item, profile) === 'public') continue;
    const matched = touches(output, item.text);
    if (matched.length > 0) findings.push({ kind: 'private_knowledge', id: item.id, matched });
  }
  return findings;
}
