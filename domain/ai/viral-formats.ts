// The documented set of viral post formats (issue 29): shapes of posts that travel on X and LinkedIn, each with
// what it is for, its structure (what a model is told) and an offline template (what the offline writer makes of a
// thought without a model). A drafting job asks for one of these keys per post and records which it used; the
// catalogue is listed in docs/decisions.md ("Viral formats") and is what a later `list_viral_post_formats` serves.
import type { Platform } from '../shared/platforms.js';
import type { BrandContext } from './brand-context.js';
import { clean } from './text.js';
import { fitToPlatform, fitsPlatform, type ThoughtBrief } from './writing.js';

export const viralFormatKeys = [
  'contrarian_take',
  'lesson_learned',
  'how_to_steps',
  'story_arc',
  'myth_vs_fact',
  'listicle',
  'before_after',
  'question_hook',
] as const;
export type ViralFormatKey = (typeof viralFormatKeys)[number];

export interface ViralFormat {
  key: ViralFormatKey;
  name: string;
  /** When it works. */
  description: string;
  /** The shape a writer follows, in order. */
  structure: string[];
  /** The thought kinds it suits best (the offline writer's choice). */
  suits: ThoughtBrief['kind'][];
}

export const viralFormats: Record<ViralFormatKey, ViralFormat> = {
  contrarian_take: {
    key: 'contrarian_take',
    name: 'Contrarian take',
    description: 'A clear position against common advice, argued in a few lines; invites debate.',
    structure: [
      'State the position in one line',
      'Name the common belief it rejects',
      'Give the reason',
      'Ask who disagrees',
    ],
    suits: ['opinion'],
  },
  lesson_learned: {
    key: 'lesson_learned',
    name: 'Lesson learned',
    description: 'What went wrong or right and the lesson taken from it; builds trust through candour.',
    structure: [
      'What happened, in one line',
      'What it cost or taught',
      'The lesson, stated plainly',
      'How to apply it',
    ],
    suits: ['lesson', 'story'],
  },
  how_to_steps: {
    key: 'how_to_steps',
    name: 'How-to in steps',
    description: 'A practical result in three to five numbered steps; saved and shared.',
    structure: ['The result promised', 'Three to five numbered steps', 'One line on why it works'],
    suits: ['tip'],
  },
  story_arc: {
    key: 'story_arc',
    name: 'Story arc',
    description: 'A short story with a hook, a turn and a takeaway; holds attention to the end.',
    structure: [
      'A hook: the moment things changed',
      'The tension',
      'The turn',
      'The takeaway for the reader',
    ],
    suits: ['story'],
  },
  myth_vs_fact: {
    key: 'myth_vs_fact',
    name: 'Myth vs fact',
    description: 'A common myth corrected by what the brand knows; positions expertise.',
    structure: ['Myth: the common belief', 'Fact: what is true instead', 'Why it matters to the reader'],
    suits: ['opinion'],
  },
  listicle: {
    key: 'listicle',
    name: 'List of takeaways',
    description: 'A short list of points around one idea; skimmable.',
    structure: ['A headline with the number of points', 'The points, one line each', 'A closing line'],
    suits: ['tip', 'lesson'],
  },
  before_after: {
    key: 'before_after',
    name: 'Before and after',
    description: 'The change from an old way to a new one; shows a transformation.',
    structure: ['Before: the old way', 'After: the new way', 'What made the difference'],
    suits: ['lesson', 'story'],
  },
  question_hook: {
    key: 'question_hook',
    name: 'Question hook',
    description:
      'Opens with a question the audience has, answers it briefly and asks for theirs; draws replies.',
    structure: ['A question the audience asks', 'A short answer from experience', 'An open question back'],
    suits: ['thought'],
  },
};

/** The catalogue as prompt lines: key, name, what it is for and its structure. */
export function viralFormatPromptLines(keys: readonly ViralFormatKey[] = viralFormatKeys): string[] {
  return keys.map((k) => {
    const f = viralFormats[k];
    return `${f.key}: ${f.name}. ${f.description} Structure: ${f.structure.join(' / ')}.`;
  });
}

/** The offline writer's choice for a thought on a platform: the first suited format, LinkedIn the second. */
export function offlineFormatFor(kind: ThoughtBrief['kind'], platform: Platform): ViralFormatKey {
  const suited = viralFormatKeys.filter((k) => viralFormats[k].suits.includes(kind));
  const pick = platform === 'linkedin' && suited.length > 1 ? suited[1]! : suited[0]!;
  return pick ?? 'question_hook';
}

// ---- The offline templates ----

const sentencesOf = (text: string) =>
  clean(text)
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
const stripEnd = (text: string) => text.replace(/[.!?…]+$/, '');
/** Lower-cases the first letter mid-sentence, except acronyms and the word "I" ("I renamed", "I'd"). */
const lowerFirst = (text: string) =>
  text && !/^[A-Z]{2}/.test(text) && !/^I\b/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;

export interface OfflinePostInput {
  thought: ThoughtBrief;
  brand: BrandContext | null;
  /** The pillar the thought is filed under, if one matches. */
  pillar: string | null;
  platform: Platform;
  guidance: string | null;
}

/** Who the post speaks to, from the brand's audience (or a general reader), as it reads mid-sentence. */
const audienceOf = (brand: BrandContext | null) =>
  lowerFirst(brand?.businessOutline.targetAudience[0]?.trim() || 'people building something');

/** The lines of a format for the thought, with at most `room` of its supporting sentences. */
function templateLines(format: ViralFormatKey, input: OfflinePostInput, room: number): string[] {
  const sentences = sentencesOf(input.thought.text);
  const claim = stripEnd(sentences[0] ?? clean(input.thought.text));
  const support = sentences.slice(1).slice(0, room);
  const audience = audienceOf(input.brand);
  const long = input.platform === 'linkedin';
  const closing = long
    ? `${input.pillar ? `More on ${lowerFirst(input.pillar)} soon. ` : ''}What's your experience?`
    : 'Agree?';
  switch (format) {
    case 'contrarian_take':
      return [
        `Unpopular opinion: ${lowerFirst(claim)}.`,
        `Most advice to ${audience} says the opposite.`,
        ...support,
        long ? 'Change my mind in the comments.' : 'Change my mind.',
      ];
    case 'lesson_learned':
      return [
        `A lesson I learned the hard way: ${lowerFirst(claim)}.`,
        ...support,
        long ? `If you are one of the ${audience}, save yourself the detour.` : '',
        closing,
      ];
    case 'how_to_steps': {
      if (support.length === 0) return [`${claim}.`, 'Try it this week and see what changes.', closing];
      return [
        `${claim}. Here's how:`,
        ...support.map((s, i) => `${i + 1}. ${stripEnd(s)}`),
        long ? closing : '',
      ];
    }
    case 'story_arc': {
      const [takeaway, ...middle] = [...support].reverse();
      return [
        `${claim}.`,
        ...middle.reverse(),
        takeaway ? (long ? `The takeaway for ${audience}: ${lowerFirst(takeaway)}` : takeaway) : '',
        closing,
      ];
    }
    case 'myth_vs_fact':
      return [
        'Myth: the usual way is good enough.',
        `Fact: ${lowerFirst(claim)}.`,
        ...support,
        long ? `Why it matters: it changes what ${audience} should do first.` : '',
      ];
    case 'listicle': {
      const points = [claim, ...support].map(stripEnd);
      return [
        points.length === 1 ? 'The short version:' : `The short version, in ${points.length} points:`,
        ...points.map((p) => `→ ${p}`),
        long ? closing : '',
      ];
    }
    case 'before_after':
      return [`Before: we did what everyone does.`, `After: ${lowerFirst(claim)}.`, ...support, closing];
    case 'question_hook':
      return [
        `Something I keep coming back to: ${lowerFirst(claim)}.`,
        ...support,
        long ? `I'd love to hear how other ${audience} see it.` : "What's your take?",
      ];
  }
}

/**
 * The post the format makes of the thought: up to five supporting sentences on LinkedIn, three elsewhere, fewer
 * while the post does not fit the platform, and cut at a word only when even the shortest does not.
 */
export function offlinePost(format: ViralFormatKey, input: OfflinePostInput): string {
  const join = (lines: string[]) => lines.filter(Boolean).join('\n\n');
  for (let room = input.platform === 'linkedin' ? 5 : 3; room >= 0; room--) {
    const text = join(templateLines(format, input, room));
    if (fitsPlatform(input.platform, text)) return text;
  }
  return fitToPlatform(input.platform, join(templateLines(format, input, 0)));
}
