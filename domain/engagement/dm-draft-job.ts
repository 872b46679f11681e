// The `engagement.dm_draft` AI job (domain/ai/job.ts): the next direct message of a tracked X conversation, in the
// brand voice. The prompt holds the public brand context (BrandContext is public by construction), the person's
// handle, the person's notes and the guidance the user gave, and the conversation's recent messages; nothing else
// of the workspace. The offline writer answers the last message from them, nudges when I wrote last, or opens a
// conversation with none logged yet; deterministic. Nothing is sent: the draft waits in the conversation.
import { z } from 'zod';
import type { BrandContext } from '../ai/brand-context.js';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { brandPromptLines, voiceInstructions } from '../ai/writing.js';
import { dmLimits, type DmSender } from './dm-conversation.js';

/** What the writer is asked to write: a reply to them, a follow-up after my last message, or an opener. */
export type DmDraftMode = 'reply' | 'follow_up' | 'opener';

export interface DmDraftInput {
  workspaceName: string;
  brand: BrandContext | null;
  handle: string;
  notes: string | null;
  guidance: string | null;
  /** The most recent messages, oldest first (at most `recentMessages`). */
  messages: { from: DmSender; text: string; at: string }[];
}

/** Messages of the log a prompt carries. */
export const recentMessages = 12;

export const dmDraftSchema = z.object({
  draftText: z.string().trim().min(1).max(dmLimits.textLength),
  draftReason: z.string().trim().min(1).max(500),
});
export type DmDraftOutput = z.infer<typeof dmDraftSchema>;

export function dmDraftModeOf(messages: DmDraftInput['messages']): DmDraftMode {
  const last = messages[messages.length - 1];
  return !last ? 'opener' : last.from === 'them' ? 'reply' : 'follow_up';
}

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
};

const tasks: Record<DmDraftMode, string> = {
  reply: 'Write my reply to their last message. Answer what they asked or said; end with one easy next step.',
  follow_up:
    'I wrote last and they have not answered. Write a short, friendly follow-up that adds something useful; no guilt.',
  opener:
    'No message yet. Write a short first message: why I am reaching out, one specific reason, one easy question.',
};

function prompt(input: DmDraftInput): AiPrompt {
  const mode = dmDraftModeOf(input.messages);
  return {
    system: [
      'You draft direct messages on X for the brand described below; a person reviews and sends them by hand.',
      voiceInstructions(input.brand),
      `A DM is private and conversational: plain sentences, no hashtags, no links unless asked, under 600 characters ` +
        `where possible and never over ${dmLimits.textLength}.`,
      'Answer with draftText (the message) and draftReason (one sentence: why this message now).',
    ].join(' '),
    prompt: [
      `Workspace: ${input.workspaceName}`,
      'Brand:',
      ...brandPromptLines(input.brand).map((l) => `- ${l}`),
      `Person: @${input.handle}`,
      `My notes about them: ${input.notes ? clip(input.notes, 1000) : '(none)'}`,
      'Conversation so far (oldest first):',
      ...(input.messages.length > 0
        ? input.messages.map((m) => `- ${m.from === 'me' ? 'Me' : 'Them'} (${m.at}): ${clip(m.text, 1500)}`)
        : ['- (no messages yet)']),
      `Task: ${tasks[mode]}`,
      `Guidance: ${input.guidance ? clip(input.guidance, 1000) : '(none)'}`,
    ].join('\n'),
  };
}

// ---- The offline writer ----

const quoted = (text: string) => `"${clip(text, 60)}"`;
const dateOf = (iso: string) => iso.slice(0, 10);

/** The message in the brand's name: a reply to their last message, a follow-up, or an opener. Deterministic. */
export function writeDmDraftOffline(input: DmDraftInput): DmDraftOutput {
  const mode = dmDraftModeOf(input.messages);
  const name = input.handle;
  const brand = input.brand?.name ?? null;
  const guidance = input.guidance ? ` Guidance to work in by hand: ${clip(input.guidance, 200)}` : '';
  const last = input.messages[input.messages.length - 1];
  if (mode === 'reply' && last) {
    const theirs = last.text.trim();
    const wroteBefore = input.messages.some((m) => m.from === 'me');
    const opening = wroteBefore
      ? `Thanks for getting back to me, ${name}!`
      : `Thanks for reaching out, ${name}!`;
    const body = /\?\s*$|\?["')\]]?\s*$/.test(theirs)
      ? `Good question on ${quoted(theirs)}: happy to go into it. What would be most useful for you to know first?`
      : /\b(thanks|thank you|appreciate|great|love)\b/i.test(theirs)
        ? 'Really glad to hear that. Is there anything you would like me to look at next?'
        : `Appreciate you sharing ${quoted(theirs)}. What are you hoping to get out of it?`;
    const offer = brand ? ` If it helps, happy to share how we handle this at ${brand}.` : '';
    return {
      draftText: `${opening} ${body}${offer}`,
      draftReason: `Replies to their last message of ${dateOf(last.at)}${/\?/.test(theirs) ? ' (a question)' : ''}.${guidance}`,
    };
  }
  if (mode === 'follow_up' && last) {
    return {
      draftText:
        `Hi ${name}, just following up on my message about ${quoted(last.text)}. ` +
        'No pressure at all; happy to pick this up whenever it suits you.',
      draftReason: `A gentle follow-up: no answer since my message of ${dateOf(last.at)}.${guidance}`,
    };
  }
  const about = brand
    ? ` I work on ${brand}` + (input.brand?.tagline ? ` (${clip(input.brand.tagline, 80)}).` : '.')
    : '';
  return {
    draftText:
      `Hi ${name}, I have been enjoying your posts and wanted to reach out directly.${about} ` +
      'Would you be open to a quick chat sometime?',
    draftReason: `Opens the conversation: no messages logged yet.${guidance}`,
  };
}

export const dmDraftJob: AiJob<DmDraftInput, DmDraftOutput> = {
  jobType: 'engagement.dm_draft',
  creditAction: 'ai_draft',
  output: dmDraftSchema,
  outputName: 'dm_draft',
  prompt,
  heuristic: writeDmDraftOffline,
};
