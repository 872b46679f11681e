// The `thoughts.draft` AI job (domain/ai/job.ts; issue 29): posts written from one saved thought, one per platform
// asked, each in one of the documented viral formats (domain/ai/viral-formats.ts) and the brand voice, grounded in
// the writing context (public brand context, strategy pillars and priorities, the other active thoughts, recent top
// posts; domain/ai/writing.ts). The prompt is built from that context alone, which is public by construction. The
// offline writer makes the same shape from the formats' templates without a model, deterministically.
import { z } from 'zod';
import type { AiJob, AiPrompt } from '../ai/job.js';
import {
  offlineFormatFor,
  offlinePost,
  viralFormatKeys,
  viralFormatPromptLines,
  viralFormats,
} from '../ai/viral-formats.js';
import {
  fitsPlatform,
  groundingPromptLines,
  platformLimitLines,
  voiceInstructions,
  type ThoughtBrief,
  type WritingContext,
} from '../ai/writing.js';
import { platformNames, type Platform } from '../shared/platforms.js';

/**
 * The platforms drafting writes for: those whose posts are text that needs nothing else (Reddit needs a subreddit
 * and a title, Instagram, TikTok and YouTube a video or image); docs/decisions.md, "Thoughts (issue 29)".
 */
export const draftPlatforms = ['x', 'linkedin', 'threads', 'bluesky', 'facebook'] as const;
export type DraftPlatform = (typeof draftPlatforms)[number];
export const defaultDraftPlatforms: readonly DraftPlatform[] = ['x', 'linkedin'];

export const draftVisuals = ['none', 'image', 'carousel'] as const;
export type DraftVisual = (typeof draftVisuals)[number];

/** The group's title is at most this long (shown in review; posts do not carry it). */
export const draftTitleMax = 120;

export interface ThoughtDraftInput {
  /** The thought drafted from. */
  thought: ThoughtBrief;
  /** The workspace's grounding; its `thoughts` are the other active thoughts (the drafted one left out). */
  context: WritingContext;
  platforms: readonly DraftPlatform[];
  visual: DraftVisual;
  /** What the person asked for, in their words. */
  guidance: string | null;
}

const draftedPost = z.object({
  platform: z.enum(draftPlatforms),
  format: z.enum(viralFormatKeys),
  contentText: z.string().min(1),
});
export type DraftedPost = z.infer<typeof draftedPost>;

const draftOutput = z.object({
  title: z.string().min(1).max(draftTitleMax),
  posts: z.array(draftedPost).min(1).max(draftPlatforms.length),
});
export type ThoughtDraftOutput = z.infer<typeof draftOutput>;

/**
 * The output for these platforms: one post per platform, each fitting its platform's limit. A model answer that
 * misses a platform or runs too long is malformed, and the runner asks again.
 */
export function draftOutputSchema(platforms: readonly DraftPlatform[]) {
  return draftOutput.superRefine((out, ctx) => {
    out.posts.forEach((post, i) => {
      if (!platforms.includes(post.platform))
        ctx.addIssue({ code: 'custom', path: ['posts', i, 'platform'], message: 'a platform not asked for' });
      else if (out.posts.findIndex((p) => p.platform === post.platform) !== i)
        ctx.addIssue({ code: 'custom', path: ['posts', i, 'platform'], message: 'one post per platform' });
      if (!fitsPlatform(post.platform, post.contentText))
        ctx.addIssue({
          code: 'custom',
          path: ['posts', i, 'contentText'],
          message: `longer than ${platformNames[post.platform]} allows`,
        });
    });
    for (const platform of platforms)
      if (!out.posts.some((p) => p.platform === platform))
        ctx.addIssue({ code: 'custom', path: ['posts'], message: `no post for ${platform}` });
  });
}

// ---- The prompt: the writing context (public), the thought and the person's guidance ----

const visualLines: Record<DraftVisual, string> = {
  none: 'The posts carry no image.',
  image: 'Each post will carry one branded image with the title on it: the text must stand on its own.',
  carousel:
    'The posts will carry a branded carousel made from the LinkedIn post; make that post skimmable, one idea per paragraph.',
};

function prompt(input: ThoughtDraftInput): AiPrompt {
  const { thought, context } = input;
  return {
    system:
      'You write social media posts for a brand from one of its saved thoughts. ' +
      voiceInstructions(context.brand) +
      ' Pick, for each post, the viral format that fits the thought and the platform best, and follow its structure.',
    prompt: [
      ...groundingPromptLines(context),
      '',
      `The thought to write from (${thought.kind}): ${thought.text}`,
      `Its tags: ${thought.tags.length > 0 ? thought.tags.join(', ') : '(none)'}`,
      `Guidance from the person: ${input.guidance ?? '(none)'}`,
      '',
      'Viral formats (give the key of the one each post uses):',
      ...viralFormatPromptLines().map((l) => `- ${l}`),
      '',
      'Write exactly one post for each of these platforms, within its limit:',
      ...platformLimitLines(input.platforms).map((l) => `- ${l}`),
      visualLines[input.visual],
      `Also give a short title (at most ${draftTitleMax} characters) naming the idea, for the review queue.`,
    ].join('\n'),
  };
}

// ---- The offline writer ----

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9+#-]+/)
      .filter((w) => w.length > 3),
  );

/** The pillar the thought speaks to most (shared words of its name and keywords), or null. */
export function pillarOf(thought: ThoughtBrief, context: WritingContext): string | null {
  const said = words(`${thought.text} ${thought.tags.join(' ')}`);
  let best: { name: string; score: number } | null = null;
  for (const p of context.pillars) {
    const score = [...words(`${p.name} ${p.keywords.join(' ')}`)].filter((w) => said.has(w)).length;
    if (score > 0 && (!best || score > best.score)) best = { name: p.name, score };
  }
  return best?.name ?? null;
}

/** The thought's first sentence, cut at a word to fit a title. */
export function titleOf(text: string): string {
  const first =
    text
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=[.!?])\s/)[0] ?? text;
  if (first.length <= draftTitleMax) return first;
  const cut = first.slice(0, draftTitleMax - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 40)).trimEnd()}…`;
}

export function writeDraftsOffline(input: ThoughtDraftInput): ThoughtDraftOutput {
  const pillar = pillarOf(input.thought, input.context);
  return {
    title: titleOf(input.thought.text),
    posts: input.platforms.map((platform: Platform & DraftPlatform) => {
      const format = offlineFormatFor(input.thought.kind, platform);
      return {
        platform,
        format,
        contentText: offlinePost(format, {
          thought: input.thought,
          brand: input.context.brand,
          pillar,
          platform,
          guidance: input.guidance,
        }),
      };
    }),
  };
}

/** The job for one request's platforms (its output schema checks that each is written once and fits). */
export function draftFromThoughtJob(
  platforms: readonly DraftPlatform[],
): AiJob<ThoughtDraftInput, ThoughtDraftOutput> {
  return {
    jobType: 'thoughts.draft',
    creditAction: 'ai_draft',
    output: draftOutputSchema(platforms),
    outputName: 'thought_drafts',
    prompt,
    heuristic: writeDraftsOffline,
  };
}

/** The name of a format, for answers and summaries. */
export const formatName = (key: DraftedPost['format']) => viralFormats[key].name;

// ---- The visual's text, made from the drafts ----

export interface DraftSlide {
  title: string;
  body?: string;
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
const plain = (text: string) =>
  text
    .replace(/^\s*(?:\d+[.)]|→|[-•*])\s*/, '')
    .replace(/\s+/g, ' ')
    .trim();

const bare = (text: string) => text.replace(/[.!?…]+$/, '').toLowerCase();

/**
 * A carousel from the drafts: a cover with the title, then one slide per paragraph of the longest post (the
 * LinkedIn one when asked for), a short paragraph as the slide's title, a long one as its first sentence with the
 * rest below; at most `max` slides in all, at least two.
 */
export function carouselSlidesOf(output: ThoughtDraftOutput, thought: ThoughtBrief, max = 8): DraftSlide[] {
  const source =
    output.posts.find((p) => p.platform === 'linkedin') ??
    [...output.posts].sort((a, b) => b.contentText.length - a.contentText.length)[0];
  const paragraphs = (source?.contentText ?? thought.text)
    .split(/\n\s*\n|\n(?=\s*(?:\d+[.)]|→|[-•*])\s)/)
    .map(plain)
    // Headers ("Here's how:") and the hook repeated as the title make no slide of their own.
    .filter((p) => p.length > 0 && !p.endsWith(':') && bare(p) !== bare(output.title));
  const points = paragraphs.map((p): DraftSlide => {
    if (p.length <= 140) return { title: p };
    const [first, ...rest] = p.split(/(?<=[.!?])\s+/);
    return { title: clip(first ?? p, 140), ...(rest.length > 0 ? { body: clip(rest.join(' '), 600) } : {}) };
  });
  const slides: DraftSlide[] = [{ title: clip(output.title, 140) }, ...points.slice(0, max - 1)];
  if (slides.length < 2) slides.push({ title: clip(plain(thought.text), 140) });
  return slides;
}
