// The AI text jobs (issue 29; spec part 2, "AI and agent runs"): `ai.generate` writes the text a prompt asks for in
// the brand voice (POST ORG/ai/content/generate), `ai.summarize` summarises a text (POST ORG/ai/summarize). Both
// are priced `ai_text`. Generate's prompt is grounded in the public brand context only (BrandContext); summarize
// sends the caller's text and nothing of the workspace. The offline writers: a short brand-voiced text from the
// prompt's topic, and an extractive summary (the sentences that carry the text's most frequent words, in order).
import { z } from 'zod';
import type { BrandContext } from '../ai/brand-context.js';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { brandPromptLines, voiceInstructions } from '../ai/writing.js';
import {
  bare,
  lowerFirst,
  pronounsOf,
  sentencesOf,
  squeeze,
  stopwords,
  upperFirst,
  withoutBannedPhrases,
  wordsOf,
} from './offline-voice.js';

/** The longest prompt and text the endpoints take (docs/decisions.md, "AI text"). */
export const maxPromptChars = 4_000;
export const maxSummarizeChars = 20_000;
/** The longest result either job answers. */
export const maxGeneratedChars = 6_000;
export const maxSummaryChars = 4_000;

export interface GenerateTextInput {
  prompt: string;
  brand: BrandContext | null;
  workspaceName: string;
}

export interface SummarizeTextInput {
  text: string;
}

const resultOf = (max: number) => z.object({ result: z.string().trim().min(1).max(max) });
export type TextResult = { result: string };

// ---- ai.generate ----

function generatePrompt(input: GenerateTextInput): AiPrompt {
  return {
    system:
      'You are the writer of the brand described below. Write the text the request asks for, ready to use, with no ' +
      `preamble or notes. ${voiceInstructions(input.brand)} Answer with the text in \`result\`, at most ` +
      `${maxGeneratedChars} characters.`,
    prompt: [
      `Workspace: ${input.workspaceName}`,
      'Brand:',
      ...brandPromptLines(input.brand).map((l) => `- ${l}`),
      '',
      'Request:',
      input.prompt,
    ].join('\n'),
  };
}

/** "Write a short post about X for Y" → "X for Y": what the text is about, without the request's own words. */
const requestLead =
  /^(?:please\s+)?(?:(?:can|could) you\s+)?(?:(?:write|draft|create|compose|generate|give me|make|prepare)\s+(?:me\s+|us\s+)?|(?:announce|introduce|explain|describe|share|promote|celebrate)\s+)(?:(?:a|an|some|one|the|two|three)\s+)?(?:(?:short|quick|brief|long|friendly|punchy|linkedin|x|twitter|social|blog|email|launch|product)\s+)*(?:posts?|tweets?|threads?|paragraphs?|texts?|captions?|updates?|announcements?|intros?|introductions?|notes?|messages?|copy|summary|description)?\s*(?:about|on|for|regarding|explaining|that explains|introducing|announcing)?\s*/i;

const clipPhrase = (text: string, max: number) => {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).replace(/[,;:\s]+$/, '');
};

export function topicOfPrompt(prompt: string): string {
  const first = sentencesOf(squeeze(prompt))[0] ?? '';
  const topic = bare(first.replace(requestLead, ''));
  return clipPhrase(topic || bare(first) || 'what we do', 160);
}

/** The offline writer of ai.generate: a short brand-voiced text on the prompt's topic. */
export function generateTextOffline(input: GenerateTextInput): TextResult {
  const { brand } = input;
  const topic = topicOfPrompt(input.prompt);
  const { we, our } = pronounsOf(brand);
  const name = brand?.name ?? input.workspaceName;
  const outline = brand?.businessOutline;
  const audience = outline?.targetAudience.map(bare).find(Boolean);
  const value = outline?.valueProposition ? bare(outline.valueProposition) : '';
  const differentiator = outline?.differentiators.map(bare).find(Boolean);
  const product = outline?.productsOrServices.map(bare).find(Boolean);
  const expertise = brand?.expertise.map(bare).find(Boolean);

  const intro =
    brand?.brandType === 'personal'
      ? `I spend a lot of my time on ${lowerFirst(topic)}${expertise ? `, as part of ${our} work in ${lowerFirst(expertise)}` : ''}.`
      : brand?.mission
        ? `At ${name}, ${we} ${lowerFirst(bare(brand.mission))}, and ${lowerFirst(topic)} is a big part of that.`
        : `At ${name}, ${we} think about ${lowerFirst(topic)} every day.`;
  const point = value
    ? `${audience ? `For ${lowerFirst(audience)}, it` : 'It'} comes down to one thing: ${lowerFirst(value)}.`
    : `${audience ? `For ${lowerFirst(audience)}, it` : 'It'} comes down to doing the simple things well and being honest about what works.`;
  const proof = differentiator
    ? `What ${we} do differently: ${lowerFirst(differentiator)}.`
    : product
      ? `It is why ${we} built ${lowerFirst(product)}.`
      : `${upperFirst(our)} advice: start small, measure what changes and keep what helps.`;
  const close = `What is your experience with ${lowerFirst(topic)}?`;
  const text = [`${upperFirst(topic)}.`, intro, `${point} ${proof}`, close].join('\n\n');
  return { result: withoutBannedPhrases(text, brand).slice(0, maxGeneratedChars) };
}

export const generateTextJob: AiJob<GenerateTextInput, TextResult> = {
  jobType: 'ai.generate',
  creditAction: 'ai_text',
  output: resultOf(maxGeneratedChars),
  outputName: 'generated_text',
  prompt: generatePrompt,
  heuristic: generateTextOffline,
};

// ---- ai.summarize ----

function summarizePrompt(input: SummarizeTextInput): AiPrompt {
  return {
    system:
      'Summarise the text the user gives in a few plain sentences: keep its main points, facts and names as they ' +
      'are, add nothing that is not in it, no preamble. Write in the language of the text. Answer with the summary ' +
      `in \`result\`, at most ${maxSummaryChars} characters.`,
    prompt: ['Text to summarise:', input.text].join('\n'),
  };
}

/** A sentence cut at a word boundary to `max` characters, with an ellipsis. */
const cutSentence = (text: string, max: number) => `${clipPhrase(text, max - 1)}…`;

/**
 * The offline summary: the text's sentences scored by how often their words occur in the whole text (common
 * words left out; a long sentence is not favoured for its length alone), the best quarter of them (one to five)
 * kept in their original order, within `maxSummaryChars`.
 */
export function extractiveSummary(text: string): string {
  const sentences = sentencesOf(text);
  if (sentences.length === 0) return squeeze(text).slice(0, maxSummaryChars);
  if (sentences.length <= 2) {
    const both = sentences.join(' ');
    return both.length <= maxSummaryChars ? both : cutSentence(sentences[0]!, maxSummaryChars);
  }
  const counts = new Map<string, number>();
  for (const word of wordsOf(text))
    if (word.length > 1 && !stopwords.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const top = Math.max(1, ...counts.values());
  const scored = sentences.map((sentence, index) => {
    const words = wordsOf(sentence).filter((w) => counts.has(w));
    const sum = words.reduce((n, w) => n + counts.get(w)! / top, 0);
    return { index, sentence, score: words.length === 0 ? 0 : sum / Math.sqrt(words.length) };
  });
  const wanted = Math.min(5, Math.max(1, Math.ceil(sentences.length / 4)));
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  let kept = ranked.slice(0, wanted);
  const joined = () => [...kept].sort((a, b) => a.index - b.index).map((s) => s.sentence);
  while (kept.length > 1 && joined().join(' ').length > maxSummaryChars) kept = kept.slice(0, -1);
  const summary = joined().join(' ');
  return summary.length <= maxSummaryChars ? summary : cutSentence(summary, maxSummaryChars);
}

export const summarizeTextJob: AiJob<SummarizeTextInput, TextResult> = {
  jobType: 'ai.summarize',
  creditAction: 'ai_text',
  output: resultOf(maxSummaryChars),
  outputName: 'summary',
  prompt: summarizePrompt,
  heuristic: (input) => ({ result: extractiveSummary(input.text) }),
};
