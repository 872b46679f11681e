// The documented set of viral post formats (issue 29): shapes of posts that travel on X and LinkedIn, each with
// what it is for, its structure (what a model is told) and an offline template (what the offline writer makes of a
// thought without a model). A drafting job asks for one of these keys per post and records which it used; the
// catalogue is listed in docs/decisions.md ("Viral formats") and is what a later `list_viral_post_formats` serves.
import type { Platform } from '../shared/platforms.js';
import type { BrandContext } from './brand-context.js';
import { fitToPlatform, type ThoughtBrief } from './writing.js';

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
    suits: ['opinion', 'tip'],
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

const clean = (text: string) => text.replace(/\s+/g, ' ').trim();
const sentencesOf = (text: string) =>
  clean(text)
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
const stripEnd = (text: string) => text.replace(/[.!?…]+$/, '');
const lowerFirst = (text: string) =>
  text && !/^[A-Z]{2}/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;

export interface OfflinePostInput {
  thought: ThoughtBrief;
  brand: BrandContext | null;
  /** The pillar the thought is filed under, if one matches. */
  pillar: string | null;
  platform: Platform;
  guidance: string | null;
}

/** Who the post speaks to, from the brand's audience (or a general reader). */
const audienceOf = (brand: BrandContext | null) =>
  brand?.businessOutline.targetAudience[0]?.trim() || 'people building something';

/** The post the format makes of the thought, fitted to the platform. */
export function offlinePost(format: ViralFormatKey, input: OfflinePostInput): string {
  const sentences = sentencesOf(input.thought.text);
  const claim = stripEnd(sentences[0] ?? clean(input.thought.text));
  const support = sentences.slice(1);
  const audience = audienceOf(input.brand);
  const long = input.platform === 'linkedin';
  const closing = long
    ? `${input.pillar ? `More on ${lowerFirst(input.pillar)} soon. ` : ''}What's your experience?`
    : 'Agree?';
  const supportLines = support.length > 0 ? support : [`It took us a while to see it.`];
  let lines: string[];
  switch (format) {
    case 'contrarian_take':
      lines = [
        `Unpopular opinion: ${lowerFirst(claim)}.`,
        `Most advice to ${audience} says the opposite.`,
        ...supportLines.slice(0, long ? 4 : 1),
        long ? 'Change my mind in the comments.' : 'Change my mind.',
      ];
      break;
    case 'lesson_learned':
      lines = [
        `A lesson I learned the hard way: ${lowerFirst(claim)}.`,
        ...supportLines.slice(0, long ? 4 : 1),
        long ? `If you are one of the ${audience}, save yourself the detour.` : '',
        closing,
      ];
      break;
    case 'how_to_steps': {
      const steps = (support.length > 0 ? support : [claim]).slice(0, long ? 5 : 3).map(stripEnd);
      lines = [`${claim}. Here's how:`, ...steps.map((s, i) => `${i + 1}. ${s}`), long ? closing : ''];
      break;
    }
    case 'story_arc':
      lines = [
        `${claim}.`,
        ...supportLines.slice(0, long ? 5 : 1),
        long ? `The takeaway for ${audience}: start before you feel ready.` : '',
        closing,
      ];
      break;
    case 'myth_vs_fact':
      lines = [
        `Myth: ${lowerFirst(stripEnd(supportLines[0] ?? claim))}.`,
        `Fact: ${lowerFirst(claim)}.`,
        long
          ? `Why it matters: ${supportLines.slice(1).join(' ') || `it changes what ${audience} should do first.`}`
          : '',
      ];
      break;
    case 'listicle': {
      const points = [claim, ...support].slice(0, long ? 5 : 3).map(stripEnd);
      lines = [
        `${points.length} things I wish I'd known sooner:`,
        ...points.map((p) => `→ ${p}`),
        long ? closing : '',
      ];
      break;
    }
    case 'before_after':
      lines = [
        `Before: we did what everyone does.`,
        `After: ${lowerFirst(claim)}.`,
        ...supportLines.slice(0, long ? 3 : 1),
        closing,
      ];
      break;
    case 'question_hook':
      lines = [
        `Something I keep coming back to: ${lowerFirst(claim)}.`,
        ...supportLines.slice(0, long ? 4 : 1),
        long ? `I'd love to hear how other ${audience} see it.` : "What's your take?",
      ];
      break;
  }
  return fitToPlatform(input.platform, lines.filter(Boolean).join('\n\n'));
}
