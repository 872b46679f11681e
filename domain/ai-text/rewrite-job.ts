// The `posts.rewrite` AI job (issue 29, tool rewrite_post): one post's text rewritten by the caller's guidance in the
// brand voice, priced `ai_draft`. The output must fit the post's platform: its schema refuses a text over the
// platform's limit, so a model that writes too long is asked again (the runner's malformed-output retry). The
// prompt carries the public brand context only. The offline writer applies the guidance it recognises (shorter,
// add a question, more formal or casual, remove emoji or hashtags, add a call to action) and fits the platform.
import { z } from 'zod';
import type { BrandContext } from '../ai/brand-context.js';
import type { AiJob, AiPrompt } from '../ai/job.js';
import {
  brandPromptLines,
  fitsPlatform,
  fitToPlatform,
  platformLimitLines,
  voiceInstructions,
} from '../ai/writing.js';
import { textLength } from '../post-groups/content-rules.js';
import { platformNames, type Platform } from '../shared/platforms.js';
import { pronounsOf, sentencesOf, squeeze, withoutBannedPhrases } from './offline-voice.js';

export const maxGuidanceChars = 2_000;

export interface RewritePostInput {
  platform: Platform;
  /** The post's current text. */
  text: string;
  guidance: string;
  /** Keep about the current length (within a fifth). */
  keepLength: boolean;
  brand: BrandContext | null;
  workspaceName: string;
}

export type RewrittenPost = { text: string };

/** The rewrite's schema for one platform: a non-empty text within the platform's limit. */
export function rewrittenPostSchema(platform: Platform): z.ZodType<RewrittenPost> {
  return z.object({
    text: z
      .string()
      .trim()
      .min(1)
      .refine((text) => fitsPlatform(platform, text), {
        message: `the text is over ${platformNames[platform]}'s limit`,
      }),
  });
}

function rewritePrompt(input: RewritePostInput): AiPrompt {
  const length = textLength(input.platform, input.text);
  return {
    system:
      `You rewrite one social media post for ${platformNames[input.platform]} following the guidance given, and ` +
      `keep its meaning and facts. ${voiceInstructions(input.brand)} Answer with the new post text only in \`text\`.`,
    prompt: [
      `Workspace: ${input.workspaceName}`,
      'Brand:',
      ...brandPromptLines(input.brand).map((l) => `- ${l}`),
      `Platform limit: ${platformLimitLines([input.platform]).join('; ')}`,
      input.keepLength
        ? `Keep about the current length (${length}, within a fifth either way).`
        : 'Change the length only if the guidance asks for it.',
      `Guidance: ${input.guidance}`,
      'Current post:',
      input.text,
    ].join('\n'),
  };
}

// ---- The offline writer ----

const emoji =
  /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}][\u{FE0F}\u{200D}\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}]*/gu;
const hashtag = /(^|\s)#[\p{L}\p{N}_]+/gu;

const contractions: Array<[RegExp, string]> = [
  [/\bcan't\b/gi, 'cannot'],
  [/\bwon't\b/gi, 'will not'],
  [/\b(\w+)n't\b/gi, '$1 not'],
  [/\b(I)'m\b/g, '$1 am'],
  [/\b(\w+)'re\b/gi, '$1 are'],
  [/\b(\w+)'ve\b/gi, '$1 have'],
  [/\b(\w+)'ll\b/gi, '$1 will'],
  [/\b(it|that|there|here|what|who)'s\b/gi, '$1 is'],
];
const expansions: Array<[RegExp, string]> = [
  [/\bdo not\b/gi, "don't"],
  [/\bdoes not\b/gi, "doesn't"],
  [/\bis not\b/gi, "isn't"],
  [/\bare not\b/gi, "aren't"],
  [/\bcannot\b/gi, "can't"],
  [/\bwill not\b/gi, "won't"],
  [/\bit is\b/gi, "it's"],
  [/\bwe are\b/gi, "we're"],
  [/\bI am\b/g, "I'm"],
  [/\byou are\b/gi, "you're"],
];
const fillers = /\s*\b(?:really|very|just|actually|basically|literally|simply|quite)\b/gi;

const replaceAll = (text: string, rules: Array<[RegExp, string]>) =>
  rules.reduce((out, [pattern, by]) => out.replace(pattern, by), text);
const tidy = (text: string) => squeeze(text.replace(/ +([.,!?;:])/g, '$1').replace(/\n{3,}/g, '\n\n'));

/** The first sentences of a text within `share` of its length (at least one). */
function shortened(text: string, share: number): string {
  const sentences = sentencesOf(text);
  const budget = Math.max(1, Math.floor(text.length * share));
  const kept: string[] = [];
  for (const s of sentences) {
    if (kept.length > 0 && [...kept, s].join(' ').length > budget) break;
    kept.push(s);
  }
  return kept.join(' ');
}

const asks = (guidance: string, ...words: string[]) => words.some((w) => guidance.includes(w));

/** The offline rewrite: the guidance it recognises, applied in a fixed order, then fitted to the platform. */
export function rewritePostOffline(input: RewritePostInput): RewrittenPost {
  const g = input.guidance.toLowerCase();
  let text = input.text;
  if (asks(g, 'emoji')) text = text.replace(emoji, '');
  if (asks(g, 'hashtag')) text = text.replace(hashtag, '$1');
  if (asks(g, 'formal', 'professional')) {
    text = replaceAll(text, contractions).replace(/!+/g, '.').replace(emoji, '');
    text = text.replace(/\b(?:gonna)\b/gi, 'going to').replace(/\b(?:wanna)\b/gi, 'want to');
  } else if (asks(g, 'casual', 'informal', 'friendly', 'conversational')) {
    text = replaceAll(text, expansions);
  }
  if (!input.keepLength && asks(g, 'short', 'concise', 'brief', 'tighten', 'trim', 'cut')) {
    text = shortened(text.replace(fillers, ''), 0.6);
  }
  text = withoutBannedPhrases(tidy(text), input.brand);
  const endings: string[] = [];
  if (asks(g, 'question') && !/\?\s*$/.test(text))
    endings.push(input.brand?.brandType === 'personal' ? 'What would you add?' : 'What has worked for you?');
  if (asks(g, 'call to action', 'cta', 'link')) {
    const { we } = pronounsOf(input.brand);
    const site = input.brand?.websiteUrl;
    endings.push(site ? `See how ${we} do it: ${site}` : 'Tell us what you think in the replies.');
  }
  if (text.length === 0) text = tidy(input.text);
  const ending = endings.length > 0 ? `\n\n${endings.join(' ')}` : '';
  return { text: fitWithEnding(input.platform, text, ending) };
}

/** The body and its ending within the platform's limit: the body is cut (at a word) so the ending stays whole. */
function fitWithEnding(platform: Platform, body: string, ending: string): string {
  if (fitsPlatform(platform, body + ending)) return body + ending;
  if (ending === '') return fitToPlatform(platform, body);
  const words = body.split(/(\s+)/);
  const cut = () => `${words.join('').trimEnd()}…${ending}`;
  while (words.length > 0 && !fitsPlatform(platform, cut())) words.pop();
  return words.length > 0 ? cut() : fitToPlatform(platform, body + ending);
}

/** The posts.rewrite job for a post of `platform` (its output schema is the platform's). */
export function rewritePostJob(platform: Platform): AiJob<RewritePostInput, RewrittenPost> {
  return {
    jobType: 'posts.rewrite',
    creditAction: 'ai_draft',
    output: rewrittenPostSchema(platform),
    outputName: 'rewritten_post',
    prompt: rewritePrompt,
    heuristic: rewritePostOffline,
  };
}
