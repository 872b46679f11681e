// What every AI path that writes posts shares (issue 29): the grounding a writer is given (the public brand
// context, the strategy's pillars and current priorities, the workspace's active thoughts and its recent top
// posts), the prompt lines made of it, the brand-voice instructions, and the platform limits a draft must fit.
// Thought drafting, launch kits, rewriting and X threads build their prompts from these, so what reaches a model
// is decided in one place: BrandContext is public by construction (domain/ai/brand-context.ts) and nothing else
// of the brand profile is taken.
import { textLength, textLimits } from '../post-groups/content-rules.js';
import { platformNames, type Platform } from '../shared/platforms.js';
import type { BrandContext } from './brand-context.js';

/** A saved thought as a writer sees it (active ones only: archived thoughts stop feeding generation). */
export interface ThoughtBrief {
  id: string;
  kind: 'thought' | 'tip' | 'opinion' | 'story' | 'lesson';
  text: string;
  tags: string[];
}

/**
 * A document of the context library as a writer sees it (issue 31): enabled and public ones only; private,
 * restricted and disabled documents never reach a writer (projections/context/queries.ts).
 */
export interface ContextDocumentBrief {
  id: string;
  title: string;
  text: string;
}

/** A recent post of the workspace that did well, as a writer may learn from it. */
export interface TopPostBrief {
  platform: Platform;
  text: string;
  engagement: number;
}

/** What a writer is grounded in. Every part is public knowledge of the workspace, or the workspace's own words. */
export interface WritingContext {
  workspaceName: string;
  brand: BrandContext | null;
  /** The strategy's pillars (the active version, or the draft when none is active yet). */
  pillars: { name: string; description: string; keywords: string[] }[];
  /** The strategy's priorities in force now. */
  priorities: string[];
  /** Active thoughts (new or drafted, not archived), newest first. */
  thoughts: ThoughtBrief[];
  /** Recent published posts by engagement, best first. */
  topPosts: TopPostBrief[];
  /** The context library's enabled public documents, newest sync first (absent: none). */
  documents?: ContextDocumentBrief[];
}

/** A context with nothing in it: a workspace on its first day. */
export const emptyWritingContext = (workspaceName: string): WritingContext => ({
  workspaceName,
  brand: null,
  pillars: [],
  priorities: [],
  thoughts: [],
  topPosts: [],
});

const list = (items: readonly string[]) => (items.length > 0 ? items.join('; ') : '(none)');

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;

/** How much of the context library a prompt carries: documents, characters of each, characters in all. */
export const documentPromptLimits = { documents: 5, perDocument: 1200, total: 4000 } as const;

/** The public documents as one prompt line, clipped per document and in all; null when there are none. */
export function documentsPromptLine(documents: readonly ContextDocumentBrief[] | undefined): string | null {
  if (!documents || documents.length === 0) return null;
  const parts: string[] = [];
  let used = 0;
  for (const d of documents.slice(0, documentPromptLimits.documents)) {
    const room = documentPromptLimits.total - used;
    if (room < 80) break;
    const part = clip(
      `${d.title}: ${d.text.replace(/\s+/g, ' ').trim()}`,
      Math.min(documentPromptLimits.perDocument, room),
    );
    parts.push(part);
    used += part.length;
  }
  return `Context library (public documents of the brand; ground claims in them, do not copy): ${parts.join(' | ')}`;
}

/** The brand, as lines of a prompt (public context only). */
export function brandPromptLines(
  brand: BrandContext | null,
  whenNone = 'No brand profile yet: write plainly and make no claims about the brand.',
): string[] {
  if (!brand) return [whenNone];
  const o = brand.businessOutline;
  return [
    `Name: ${brand.name ?? '(unknown)'}; type: ${brand.brandType}; website: ${brand.websiteUrl ?? '(none)'}`,
    `Tagline: ${brand.tagline ?? '(none)'}; mission: ${brand.mission ?? '(none)'}`,
    `Overview: ${o.overview || '(none)'}`,
    `Products or services: ${list(o.productsOrServices)}`,
    `Target audience: ${list(o.targetAudience)}`,
    `Value proposition: ${o.valueProposition || '(none)'}`,
    `Differentiators: ${list(o.differentiators)}`,
    `Expertise: ${list(brand.expertise)}; topics: ${list(brand.topics)}; goals: ${list(brand.goals)}`,
    `Opinions: ${list(brand.opinions)}`,
    `Voice: ${brand.voice.tone || '(unset)'}; traits: ${list(brand.voice.personalityTraits)}; guidelines: ${list(brand.voice.writingGuidelines)}; never say: ${list(brand.voice.bannedPhrases)}`,
    `Known facts: ${list(brand.knowledge.map((k) => `${k.kind}: ${k.text}`))}`,
    `Preferences: ${list(brand.preferences)}`,
    brand.confirmed
      ? 'The profile was confirmed by a person.'
      : 'The profile was inferred and not confirmed yet.',
  ];
}

/** How a post writer must write, whatever it writes: the system message's shared rules. */
export function voiceInstructions(brand: BrandContext | null): string {
  const banned = brand?.voice.bannedPhrases ?? [];
  return [
    'Write in the brand voice described below, as the brand itself (first person where the brand is a person).',
    'Ground every claim in the facts given; never invent products, numbers, customers or quotes.',
    banned.length > 0 ? `Never use these phrases: ${banned.join('; ')}.` : '',
    'No hashtags unless the platform expects them; at most one emoji per post; no clickbait.',
    'Each post must fit its platform limit.',
  ]
    .filter(Boolean)
    .join(' ');
}

/** The grounding as prompt lines: brand, pillars, priorities, active thoughts and what did well recently. */
export function groundingPromptLines(context: WritingContext, options: { thoughts?: number } = {}): string[] {
  const thoughts = context.thoughts.slice(0, options.thoughts ?? 5);
  return [
    `Workspace: ${context.workspaceName}`,
    'Brand:',
    ...brandPromptLines(context.brand).map((l) => `- ${l}`),
    `Strategy pillars: ${list(context.pillars.map((p) => (p.description ? `${p.name} (${clip(p.description, 160)})` : p.name)))}`,
    `Current priorities: ${list(context.priorities)}`,
    `Other saved thoughts of the brand (context, do not copy): ${list(thoughts.map((t) => `${t.kind}: ${clip(t.text, 200)}`))}`,
    `Recent top posts (learn the style, do not repeat): ${list(
      context.topPosts.slice(0, 3).map((p) => `${platformNames[p.platform]}: ${clip(p.text, 240)}`),
    )}`,
    ...[documentsPromptLine(context.documents)].filter((l): l is string => l !== null),
  ];
}

/** The limit line for the platforms a writer must fit, e.g. "X: at most 280 weighted characters". */
export function platformLimitLines(platforms: readonly Platform[]): string[] {
  return platforms.map(
    (p) => `${platformNames[p]} (${p}): at most ${textLimits[p].max} ${textLimits[p].unit}`,
  );
}

/** Whether a text fits the platform's limit (in the platform's own unit). */
export const fitsPlatform = (platform: Platform, text: string): boolean =>
  textLength(platform, text) <= textLimits[platform].max;

/**
 * The text cut to the platform's limit at a sentence or word boundary, with an ellipsis when cut: for the offline
 * writer, whose templates can exceed a short limit with long input.
 */
export function fitToPlatform(platform: Platform, text: string): string {
  if (fitsPlatform(platform, text)) return text;
  const words = text.split(/(\s+)/);
  let out = '';
  for (const word of words) {
    const next = out + word;
    if (!fitsPlatform(platform, `${next.trimEnd()}…`)) break;
    out = next;
  }
  out = out.trimEnd();
  if (out.length === 0) out = longestFittingPrefix(platform, text.trimStart());
  return `${out}…`;
}

/** A first word longer than the limit: the longest prefix (whole code points) that fits with an ellipsis. */
function longestFittingPrefix(platform: Platform, text: string): string {
  const chars = Array.from(text);
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fitsPlatform(platform, `${chars.slice(0, mid).join('')}…`)) low = mid;
    else high = mid - 1;
  }
  return chars.slice(0, low).join('');
}
