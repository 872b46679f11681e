// The `inspiration.analyze` AI job (domain/ai/job.ts; issue 31): what a saved post is about and how it is built
// (topic, hook, format, tone, audience, call to action, writing framework, keywords, a quality score). The prompt
// holds the post and the workspace's public brand context only (domain/ai/brand-context.ts); the offline writer
// reads the same fields off the text with plain heuristics, deterministically, when no provider is configured.
import { z } from 'zod';
import type { BrandContext } from '../ai/brand-context.js';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { clean, upperFirst } from '../ai/text.js';
import { viralFormatKeys, viralFormats } from '../ai/viral-formats.js';
import { brandPromptLines } from '../ai/writing.js';
import type { InspirationAnalysis, InspirationPlatform } from './event-codec.js';

/** Recorded with every analysis (`analysisPromptVersion`); raise it when the prompt or the heuristics change. */
export const analysisPromptVersion = 'inspiration-analysis/1';
/** The credit action a model's analysis is priced by (config/billing.json); the offline writer is free. */
export const analysisCreditAction = 'ai_inspiration_analysis';

export interface AnalysisInput {
  platform: InspirationPlatform;
  contentText: string;
  authorName: string | null;
  /** The workspace's public brand context: whose audience the post is read for. */
  brand: BrandContext | null;
}

export const analysisOutput = z.object({
  topic: z.string().min(1).max(200),
  hook: z.string().min(1).max(400),
  format: z.string().min(1).max(80),
  tone: z.string().min(1).max(80),
  audience: z.string().min(1).max(200),
  cta: z.string().min(1).max(300),
  writingFramework: z.string().min(1).max(120),
  keywords: z.array(z.string().min(1).max(60)).max(12),
  qualityScore: z.number().min(0).max(100),
});

function prompt(input: AnalysisInput): AiPrompt {
  return {
    system:
      'You analyse social media posts that a brand saved for inspiration. Describe how the post is built so the ' +
      'brand can learn from it; do not rewrite it. Answer in English, briefly.',
    prompt: [
      'The brand saving it (public profile):',
      ...brandPromptLines(input.brand, 'No brand profile yet.').map((l) => `- ${l}`),
      '',
      `The post (${input.platform === 'x' ? 'X' : 'LinkedIn'}${input.authorName ? `, by ${input.authorName}` : ''}):`,
      '"""',
      input.contentText,
      '"""',
      '',
      'Give: topic (a few words); hook (the opening line as written); format (one of ' +
        `${viralFormatKeys.join(', ')}, or another short name); tone; audience (who it is written for); cta (the ` +
        'call to action, or "none"); writingFramework (e.g. PAS, AIDA, hook-body-takeaway); keywords (up to 8, ' +
        'lower case); qualityScore (0 to 100: how well it is written for its platform).',
    ].join('\n'),
  };
}

// ---- The offline writer ----

const stopWords = new Set(
  (
    'a about after again all also an and any are as at be because been but by can could did do does for from had ' +
    'has have how i if in into is it its just like me more most my no not of on one or our out over so some than ' +
    'that the their them then there these they this to too up us was we what when which who why will with you ' +
    "your yours i’m i'm it’s it's don’t don't get got make made every really only very even much many"
  ).split(' '),
);

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;

/** The most used words (hashtags first), lower case, at most `max`. */
export function keywordsOf(text: string, max = 8): string[] {
  const tags = [...text.matchAll(/#([\p{L}\p{N}_]{2,40})/gu)].map((m) => m[1]!.toLowerCase());
  const counts = new Map<string, number>();
  const words = text
    .toLowerCase()
    .replace(/https?:\/\/\S+/g, ' ')
    .split(/[^\p{L}\p{N}+'’-]+/u)
    .map((w) => w.replace(/^['’-]+|['’-]+$/g, ''))
    .filter((w) => w.length > 3 && !stopWords.has(w) && !/^\d+$/.test(w));
  words.forEach((w, i) => counts.set(w, (counts.get(w) ?? 0) + 1 + (words.length - i) / (words.length * 10)));
  const ranked = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([w]) => w);
  return [...new Set([...tags, ...ranked])].slice(0, max);
}

const has = (text: string, pattern: RegExp) => pattern.test(text);

/** The viral format the text follows most plainly (domain/ai/viral-formats.ts), or `insight`. */
export function formatOf(text: string): string {
  const ls = lines(text);
  const first = ls[0] ?? '';
  const listed = ls.filter((l) => /^(?:\d+[.)]|[-•*→✅👉])\s*/u.test(l)).length;
  const lower = text.toLowerCase();
  if (has(lower, /\bmyths?\b/) && has(lower, /\bfacts?\b|\btruth\b/)) return 'myth_vs_fact';
  if (has(lower, /\bbefore\b/) && has(lower, /\bafter\b/)) return 'before_after';
  if (has(lower, /\bhow to\b|\bstep \d|\bsteps?\b/) && listed >= 2) return 'how_to_steps';
  if (listed >= 3) return 'listicle';
  if (has(lower, /unpopular opinion|hot take|\bstop\b|\boverrated\b|\bwrong\b|\bmyth\b/))
    return 'contrarian_take';
  if (has(lower, /\bi learned\b|\blessons?\b|\bmistakes?\b|\bi wish i\b/)) return 'lesson_learned';
  if (first.endsWith('?')) return 'question_hook';
  if (has(lower, /\b(?:years? ago|yesterday|last (?:week|month|year)|when i)\b/)) return 'story_arc';
  return 'insight';
}

const frameworks: Record<string, string> = {
  contrarian_take: 'claim, reason, invitation to debate',
  lesson_learned: 'situation, lesson, how to apply it',
  how_to_steps: 'promise, numbered steps, payoff',
  story_arc: 'situation, tension, resolution, takeaway',
  myth_vs_fact: 'myth, fact, proof',
  listicle: 'hook, list, takeaway',
  before_after: 'before, bridge, after',
  question_hook: 'question, answer, call to reply',
  insight: 'hook, body, takeaway',
};

function toneOf(text: string, format: string): string {
  const exclamations = (text.match(/!/g) ?? []).length;
  if (format === 'contrarian_take') return 'provocative';
  if (exclamations >= 2) return 'energetic';
  if (/\bi\b|\bmy\b/i.test(text) && (format === 'story_arc' || format === 'lesson_learned'))
    return 'personal';
  if ((text.match(/\?/g) ?? []).length >= 2) return 'curious';
  return 'informative';
}

const audiences = [
  'founders',
  'developers',
  'engineers',
  'marketers',
  'designers',
  'creators',
  'managers',
  'leaders',
  'recruiters',
  'sales',
  'startups',
  'freelancers',
  'students',
  'writers',
  'investors',
];

function audienceOf(text: string): string {
  const lower = text.toLowerCase();
  const found = audiences.filter((a) => new RegExp(`\\b${a.replace(/s$/, '')}s?\\b`).test(lower));
  return found.length > 0 ? found.slice(0, 3).join(', ') : 'general professional audience';
}

const ctaPattern =
  /\b(?:comment|reply|follow|share|repost|subscribe|sign up|join|try|book|dm me|link in|download|read more|what do you think|agree)\b/i;

function ctaOf(text: string): string {
  const last = [...lines(text)].reverse().find((l) => ctaPattern.test(l) || l.endsWith('?'));
  return last ? clip(last, 300) : 'none';
}

function qualityOf(text: string, hook: string, cta: string, keywords: string[]): number {
  let score = 40;
  if (hook.length >= 20 && hook.length <= 140) score += 15;
  if (lines(text).length >= 3) score += 10;
  if (cta !== 'none') score += 10;
  if (text.length >= 200 && text.length <= 2000) score += 15;
  else if (text.length >= 80) score += 5;
  if (keywords.length >= 3) score += 10;
  return Math.min(100, score);
}

/** The offline analysis: the same fields read off the text with the heuristics above. Deterministic. */
export function analyseOffline(input: AnalysisInput): InspirationAnalysis {
  const text = input.contentText;
  const hook = clip(lines(text)[0] ?? clean(text), 400);
  const format = formatOf(text);
  const keywords = keywordsOf(text);
  const cta = ctaOf(text);
  const topic = keywords.length > 0 ? upperFirst(keywords.slice(0, 3).join(', ')) : clip(hook, 80);
  return {
    topic,
    hook,
    format,
    tone: toneOf(text, format),
    audience: audienceOf(text),
    cta,
    writingFramework: frameworks[format] ?? frameworks.insight!,
    keywords,
    qualityScore: qualityOf(text, hook, cta, keywords),
  };
}

export const analysisJob: AiJob<AnalysisInput, InspirationAnalysis> = {
  jobType: 'inspiration.analyze',
  creditAction: analysisCreditAction,
  output: analysisOutput,
  outputName: 'inspiration_analysis',
  prompt,
  heuristic: analyseOffline,
};

/** A format's readable name (a viral format's own, else the key). */
export const formatLabel = (format: string) =>
  (viralFormats as Record<string, { name: string } | undefined>)[format]?.name ?? format.replace(/_/g, ' ');
