// The `engagement.reply_draft` AI job (domain/ai/job.ts; issue 30): a reply to a post of the reply inbox, in the brand
// voice and the user's recent writing style. The prompt holds the public brand context (BrandContext is public by
// construction), the strategy's pillar names, the workspace's recent published posts (its own words: the style to
// match), the post answered (its author's handle, title, text and what it answers) and the user's guidance; nothing
// else of the workspace. The offline writer answers a question with help, anything else with thanks and one
// question; deterministic. Nothing is posted: the draft waits in the item until someone sends it.
import { z } from 'zod';
import type { BrandContext } from '../ai/brand-context.js';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { brandPromptLines, fitToPlatform, voiceInstructions } from '../ai/writing.js';
import { inboxLimits, type InboxKind, type InboxPlatform } from './inbox-item.js';

export interface ReplyDraftInput {
  workspaceName: string;
  brand: BrandContext | null;
  pillars: string[];
  /** The workspace's recent published posts' text, newest or best first (at most `recentPostsGiven`). */
  recentPosts: string[];
  platform: InboxPlatform;
  kind: InboxKind;
  authorHandle: string | null;
  title: string | null;
  text: string;
  inReplyToText: string | null;
  community: string | null;
  guidance: string | null;
}

export const recentPostsGiven = 3;

export const replyDraftSchema = z.object({
  draftText: z.string().trim().min(1).max(inboxLimits.redditReplyLength),
  draftReason: z.string().trim().min(1).max(inboxLimits.reasonLength),
});
export type ReplyDraftOutput = z.infer<typeof replyDraftSchema>;

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
};

const platformRules: Record<InboxPlatform, string> = {
  x: `An X reply: at most ${inboxLimits.xReplyLength} characters (X's weighted count), no hashtags, no links unless asked; conversational, specific, helpful before promotional.`,
  reddit:
    'A Reddit comment: helpful first, no marketing voice, disclose the affiliation when the brand is mentioned, plain text, a few short paragraphs at most.',
};

function prompt(input: ReplyDraftInput): AiPrompt {
  return {
    system: [
      'You draft replies to posts for the brand described below; a person reviews and sends them.',
      voiceInstructions(input.brand),
      "Match the style of the brand's recent posts given (length, tone, punctuation) without repeating them.",
      platformRules[input.platform],
      'Answer with draftText (the reply) and draftReason (one sentence: why this reply).',
    ].join(' '),
    prompt: [
      `Workspace: ${input.workspaceName}`,
      'Brand:',
      ...brandPromptLines(input.brand).map((l) => `- ${l}`),
      `Strategy pillars: ${input.pillars.length > 0 ? input.pillars.join('; ') : '(none)'}`,
      'Recent posts of the brand (the writing style to match, do not copy):',
      ...(input.recentPosts.length > 0
        ? input.recentPosts.slice(0, recentPostsGiven).map((t) => `- ${clip(t, 400)}`)
        : ['- (none yet)']),
      `Post to answer (${input.platform === 'x' ? 'X' : 'Reddit'}${input.community ? `, ${input.platform === 'reddit' ? 'r/' : 'community '}${input.community}` : ''}) by ${input.authorHandle ? `@${input.authorHandle}` : 'someone'}:`,
      ...(input.title ? [`Title: ${clip(input.title, 300)}`] : []),
      `Text: ${clip(input.text, 3000)}`,
      ...(input.inReplyToText ? [`It answers: ${clip(input.inReplyToText, 1000)}`] : []),
      `Guidance: ${input.guidance ? clip(input.guidance, 1000) : '(none)'}`,
    ].join('\n'),
  };
}

/** A reply in the brand's name, fitted to the platform. Deterministic. */
export function writeReplyDraftOffline(input: ReplyDraftInput): ReplyDraftOutput {
  const who = input.authorHandle && input.platform === 'x' ? `@${input.authorHandle} ` : '';
  const subject = clip(input.title ?? input.text, 60);
  const asks = /\?/.test(`${input.title ?? ''} ${input.text}`);
  const brand = input.brand?.name ?? null;
  const body = asks
    ? `Good question. Here is what has worked for us: keep it simple, start small and measure what gets replies.${
        brand ? ` Happy to share how we approach it at ${brand}.` : ''
      }`
    : `Thanks for sharing "${subject}". What made you look into this?`;
  const guidance = input.guidance ? ` Guidance to work in by hand: ${clip(input.guidance, 200)}` : '';
  return {
    draftText: fitToPlatform(input.platform, `${who}${body}`),
    draftReason:
      `${asks ? 'Answers their question' : 'Thanks them and keeps the conversation going'} about "${subject}".${guidance}`.slice(
        0,
        inboxLimits.reasonLength,
      ),
  };
}

export const replyDraftJob: AiJob<ReplyDraftInput, ReplyDraftOutput> = {
  jobType: 'engagement.reply_draft',
  creditAction: 'ai_draft',
  output: replyDraftSchema,
  outputName: 'reply_draft',
  prompt,
  heuristic: writeReplyDraftOffline,
};
