// The `inspiration.draft` AI job (domain/ai/job.ts; issue 31): drafts written from a saved post for the
// destinations asked (an X post, a LinkedIn post, an X thread, a long-form article) in one style (a viral format
// key of domain/ai/viral-formats.ts, or `auto`), in the brand's voice and grounded in the writing context (public
// brand context, pillars, priorities; domain/ai/writing.ts). The saved post is the model to learn from, never to
// copy. The offline writer fills the formats' templates from the item's analysis, deterministically.
import { z } from 'zod';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { clean } from '../ai/text.js';
import {
  offlineFormatFor,
  offlinePost,
  viralFormatKeys,
  viralFormatPromptLines,
  type ViralFormatKey,
} from '../ai/viral-formats.js';
import {
  fitToPlatform,
  fitsPlatform,
  groundingPromptLines,
  voiceInstructions,
  type WritingContext,
} from '../ai/writing.js';
import { formatLabel } from './analysis-job.js';
import type { DraftDestination, InspirationAnalysis } from './event-codec.js';

export const draftStyleKeys = ['auto', ...viralFormatKeys] as const;
export type DraftStyleKey = (typeof draftStyleKeys)[number];
export const defaultDraftDestinations: readonly DraftDestination[] = ['x', 'linkedin'];

/** A thread's posts are stored in one draft text, separated by this line. */
export const threadSeparator = '\n\n---\n\n';
export const articleMax = 12_000;
const threadPartsMax = 8;

export interface InspirationDraftInput {
  item: {
    contentText: string;
    authorName: string | null;
    analysis: InspirationAnalysis | null;
    tags: string[];
  };
  context: WritingContext;
  destinations: readonly DraftDestination[];
  styleKey: DraftStyleKey;
  guidance: string | null;
  /** The pillar the item speaks to (its interpretation's first), if any. */
  pillar: string | null;
}

const draftShape = z.object({
  destination: z.enum(['x', 'linkedin', 'thread', 'article']),
  styleKey: z.string().min(1).max(60),
  text: z.string().min(1),
});
export type InspirationDraftOutput = { drafts: z.infer<typeof draftShape>[] };

/** Whether a draft fits its destination (a thread: each part fits X). */
export function fitsDestination(destination: DraftDestination, text: string): boolean {
  switch (destination) {
    case 'x':
      return fitsPlatform('x', text);
    case 'linkedin':
      return fitsPlatform('linkedin', text);
    case 'thread': {
      const parts = threadParts(text);
      return parts.length >= 2 && parts.length <= threadPartsMax && parts.every((p) => fitsPlatform('x', p));
    }
    case 'article':
      return text.length <= articleMax;
  }
}

export const threadParts = (text: string) =>
  text
    .split(/\n\s*---\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);

export function draftsOutputSchema(destinations: readonly DraftDestination[]) {
  return z.object({ drafts: z.array(draftShape).min(1).max(destinations.length) }).superRefine((out, ctx) => {
    out.drafts.forEach((d, i) => {
      if (!destinations.includes(d.destination))
        ctx.addIssue({ code: 'custom', path: ['drafts', i, 'destination'], message: 'not asked for' });
      else if (out.drafts.findIndex((x) => x.destination === d.destination) !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['drafts', i, 'destination'],
          message: 'one draft per destination',
        });
      if (!fitsDestination(d.destination, d.text))
        ctx.addIssue({
          code: 'custom',
          path: ['drafts', i, 'text'],
          message: `does not fit ${d.destination}`,
        });
    });
    for (const destination of destinations)
      if (!out.drafts.some((d) => d.destination === destination))
        ctx.addIssue({ code: 'custom', path: ['drafts'], message: `no draft for ${destination}` });
  });
}

const destinationLines: Record<DraftDestination, string> = {
  x: 'x: one X post, at most 280 weighted characters',
  linkedin: 'linkedin: one LinkedIn post, at most 3000 characters',
  thread: `thread: an X thread of 2 to ${threadPartsMax} posts, each at most 280 weighted characters, separated by a line "---"`,
  article: `article: a long-form article (a title line, then sections), at most ${articleMax} characters`,
};

function prompt(input: InspirationDraftInput): AiPrompt {
  const a = input.item.analysis;
  return {
    system:
      'You write original social media drafts for a brand, inspired by a post it saved. Learn from how the saved ' +
      'post is built; never copy its sentences or claims, and never pass its author off as the brand. ' +
      voiceInstructions(input.context.brand),
    prompt: [
      ...groundingPromptLines(input.context),
      '',
      `The saved post${input.item.authorName ? ` (by ${input.item.authorName})` : ''}:`,
      '"""',
      input.item.contentText,
      '"""',
      a
        ? `Its analysis: topic ${a.topic}; hook "${a.hook}"; format ${a.format}; tone ${a.tone}; framework ${a.writingFramework}.`
        : 'Not analysed yet.',
      `The brand's pillar it speaks to: ${input.pillar ?? '(none)'}`,
      `Guidance from the person: ${input.guidance ?? '(none)'}`,
      input.styleKey === 'auto'
        ? 'Style: pick, per draft, the viral format that fits best, and give its key as styleKey.'
        : `Style: follow the viral format ${input.styleKey} in every draft; styleKey is "${input.styleKey}".`,
      'Viral formats:',
      ...viralFormatPromptLines().map((l) => `- ${l}`),
      '',
      'Write exactly one draft for each destination:',
      ...input.destinations.map((d) => `- ${destinationLines[d]}`),
    ].join('\n'),
  };
}

// ---- The offline writer ----

function formatFor(input: InspirationDraftInput, destination: DraftDestination): ViralFormatKey {
  if (input.styleKey !== 'auto') return input.styleKey;
  const analysed = input.item.analysis?.format;
  if (analysed && (viralFormatKeys as readonly string[]).includes(analysed))
    return analysed as ViralFormatKey;
  return offlineFormatFor('thought', destination === 'x' || destination === 'thread' ? 'x' : 'linkedin');
}

/** The idea a draft is written about: the analysis' topic and hook, else the post's first sentences. */
function ideaOf(input: InspirationDraftInput): string {
  const a = input.item.analysis;
  const sentences = clean(input.item.contentText)
    .split(/(?<=[.!?])\s+/)
    .slice(0, 3)
    .join(' ');
  return a ? `${a.hook.replace(/[.!?…]*$/, '.')} ${sentences}`.trim() : sentences;
}

export function writeInspirationDraftsOffline(input: InspirationDraftInput): InspirationDraftOutput {
  const thought = { id: 'inspiration', kind: 'thought' as const, text: ideaOf(input), tags: input.item.tags };
  const post = (format: ViralFormatKey, platform: 'x' | 'linkedin') =>
    offlinePost(format, {
      thought,
      brand: input.context.brand,
      pillar: input.pillar,
      platform,
      guidance: input.guidance,
    });
  return {
    drafts: input.destinations.map((destination) => {
      const format = formatFor(input, destination);
      const styleKey = input.styleKey === 'auto' ? format : input.styleKey;
      switch (destination) {
        case 'x':
        case 'linkedin':
          return { destination, styleKey, text: post(format, destination) };
        case 'thread': {
          const long = post(format, 'linkedin')
            .split(/\n\s*\n/)
            .map((p) => p.trim())
            .filter(Boolean);
          const parts = long.length >= 2 ? long : [...long, 'What would you add?'];
          return {
            destination,
            styleKey,
            text: parts
              .slice(0, threadPartsMax)
              .map((p) => fitToPlatform('x', p))
              .join(threadSeparator),
          };
        }
        case 'article': {
          const title = input.item.analysis?.topic ?? thought.text.slice(0, 80);
          const body = post(format, 'linkedin');
          return {
            destination,
            styleKey,
            text: `${title}\n\n${body}\n\nWhy it matters\n\n${
              input.pillar ? `This is what we keep coming back to in ${input.pillar}. ` : ''
            }The ${formatLabel(format).toLowerCase()} shape works because it gives the reader one idea to act on.`.slice(
              0,
              articleMax,
            ),
          };
        }
      }
    }),
  };
}

export function inspirationDraftsJob(
  destinations: readonly DraftDestination[],
): AiJob<InspirationDraftInput, InspirationDraftOutput> {
  return {
    jobType: 'inspiration.draft',
    creditAction: 'ai_draft',
    output: draftsOutputSchema(destinations),
    outputName: 'inspiration_drafts',
    prompt,
    heuristic: writeInspirationDraftsOffline,
  };
}
