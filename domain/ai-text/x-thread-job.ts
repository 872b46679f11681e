// The `posts.x_thread` AI job (issue 29, tool create_x_thread): an X thread on a topic, grounded in the writing
// context (public brand context, strategy pillars and priorities, active thoughts, recent top posts), priced
// `ai_draft`. Every part must fit X's limit: the output schema refuses a part over it, so a model that writes too
// long is asked again. The first part becomes the draft's contentText, the others its platformPayload.thread.
// The offline writer numbers the parts (1/n) and builds them from the topic and the brand's own material.
import { z } from 'zod';
import type { AiJob, AiPrompt } from '../ai/job.js';
import {
  fitsPlatform,
  fitToPlatform,
  groundingPromptLines,
  voiceInstructions,
  type WritingContext,
} from '../ai/writing.js';
import { bare, lowerFirst, pronounsOf, upperFirst, withoutBannedPhrases } from './offline-voice.js';

/** A thread has a first post and at most 24 replies here (the content rules allow 25 after the main text). */
export const minThreadParts = 2;
export const maxThreadParts = 25;
export const defaultThreadParts = 5;
export const maxTopicChars = 500;

export interface XThreadInput {
  topic: string;
  guidance: string | null;
  /** How many posts to aim for. */
  parts: number;
  context: WritingContext;
}

export type XThread = { parts: string[] };

export const xThreadSchema: z.ZodType<XThread> = z.object({
  parts: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .refine((text) => fitsPlatform('x', text), {
          message: "the part is over X's 280 weighted characters",
        }),
    )
    .min(minThreadParts)
    .max(maxThreadParts),
});

function threadPrompt(input: XThreadInput): AiPrompt {
  return {
    system:
      'You write an X (Twitter) thread for the brand described below. ' +
      `${voiceInstructions(input.context.brand)} Every part is one X post of at most 280 weighted characters (a ` +
      'link counts 23, an emoji 2). Start each part with its number, "1/n", "2/n", …; the first part is the hook, ' +
      'the last one closes the thread. Answer with the parts in order in `parts`.',
    prompt: [
      ...groundingPromptLines(input.context),
      `Topic: ${input.topic}`,
      `Guidance: ${input.guidance ?? '(none)'}`,
      `Parts: about ${input.parts} (between ${minThreadParts} and ${maxThreadParts})`,
    ].join('\n'),
  };
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;

/** What the offline writer can say between the hook and the close, best first. */
function material(input: XThreadInput, topic: string): string[] {
  const { context } = input;
  const brand = context.brand;
  const { we } = pronounsOf(brand);
  const outline = brand?.businessOutline;
  const sentence = (text: string) => `${upperFirst(bare(text))}.`;
  const lines: string[] = [];
  if (outline?.valueProposition)
    lines.push(`The short version: ${lowerFirst(bare(outline.valueProposition))}.`);
  const audience = outline?.targetAudience.map(bare).filter(Boolean) ?? [];
  if (audience.length > 0) lines.push(`Who this is for: ${audience.slice(0, 3).join(', ')}.`);
  for (const p of context.pillars.slice(0, 3))
    lines.push(
      p.description ? `${bare(p.name)}: ${lowerFirst(clip(bare(p.description), 200))}.` : sentence(p.name),
    );
  for (const p of context.priorities.slice(0, 2))
    lines.push(`What ${we} are focused on now: ${lowerFirst(bare(p))}.`);
  for (const d of outline?.differentiators.slice(0, 2) ?? [])
    lines.push(`What ${we} do differently: ${lowerFirst(bare(d))}.`);
  for (const k of brand?.knowledge.filter((k) => k.kind === 'fact').slice(0, 2) ?? [])
    lines.push(sentence(k.text));
  for (const o of brand?.opinions.slice(0, 2) ?? [])
    lines.push(`An opinion ${we} hold: ${lowerFirst(bare(o))}.`);
  for (const t of context.thoughts.slice(0, 2)) lines.push(sentence(clip(t.text, 240)));
  lines.push(
    `Start with the problem, not the tool: what does ${lowerFirst(topic)} fix for the people you serve?`,
    'Change one thing at a time, so you can tell what worked.',
    'Write down what you expect before you start, and compare a month later.',
    'Share what did not work too. It saves someone else a month.',
    'Keep the routine boring and repeatable: clever does not scale.',
  );
  return lines;
}

/** The offline writer: a numbered thread (1/n) of the hook, the brand's material on the topic and a question. */
export function xThreadOffline(input: XThreadInput): XThread {
  const brand = input.context.brand;
  const topic = clip(bare(input.topic), 120) || 'What we do';
  const { we } = pronounsOf(brand);
  const where = brand?.brandType === 'personal' ? '' : ` at ${brand?.name ?? input.context.workspaceName}`;
  const wanted = Math.min(maxThreadParts, Math.max(minThreadParts, input.parts));
  const middle = material(input, topic).slice(0, wanted - 2);
  const total = middle.length + 2;
  const hook = `${upperFirst(topic)}: what ${we} have learned${where}, in ${total} short posts.`;
  const close = `That is the thread. What would you add about ${lowerFirst(topic)}?`;
  const parts = [hook, ...middle, close].map((text, index) =>
    fitToPlatform('x', `${index + 1}/${total} ${withoutBannedPhrases(text, brand)}`),
  );
  return { parts };
}

export const xThreadJob: AiJob<XThreadInput, XThread> = {
  jobType: 'posts.x_thread',
  creditAction: 'ai_draft',
  output: xThreadSchema,
  outputName: 'x_thread',
  prompt: threadPrompt,
  heuristic: xThreadOffline,
};
