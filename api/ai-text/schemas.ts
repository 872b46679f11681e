// The ai-text slice's request and answer shapes: the spec's AI text endpoints (part 2, "AI and agent runs") and the
// bodies and answers of rewrite_post and create_x_thread, whose paths the spec does not show (docs/decisions.md,
// "AI text, rewrite_post and create_x_thread").
import { z } from '@hono/zod-openapi';
import { maxGuidanceChars } from '../../domain/ai-text/rewrite-job.js';
import { maxGeneratedChars, maxPromptChars, maxSummarizeChars } from '../../domain/ai-text/text-jobs.js';
import { maxThreadParts, maxTopicChars, minThreadParts } from '../../domain/ai-text/x-thread-job.js';
import { groupWithPostsSchema, postSchema } from '../post-groups/schemas.js';

/** Text that must say something: at least one character that is not white space. */
const someText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((t) => t.trim().length > 0, { message: 'must not be empty' });

export const generateTextBody = z
  .object({
    prompt: someText(maxPromptChars).openapi({
      description: `What to write (at most ${maxPromptChars} characters); written in the brand voice`,
      example: 'Write a short LinkedIn post about closing the books faster',
    }),
  })
  .strict()
  .openapi('GenerateText');

export const summarizeBody = z
  .object({
    text: someText(maxSummarizeChars).openapi({
      description: `The text to summarise (at most ${maxSummarizeChars} characters)`,
    }),
  })
  .strict()
  .openapi('SummarizeText');

const creditsUsed = z
  .number()
  .min(0)
  .openapi({ description: 'Credits this run charged (0 for the offline writer)' });
const remainingCredits = z
  .number()
  .openapi({ description: 'Credits left to the workspace after it (monthly and purchased)' });
const providerModel = z.string().openapi({
  example: 'openai:gpt-4o-mini',
  description: '`provider:model`, or `offline` for the offline writer',
});

export const aiTextResultSchema = z
  .object({
    result: z.string().max(maxGeneratedChars),
    creditsUsed,
    remainingCredits,
  })
  .openapi('AiTextResult');

export const rewritePostBody = z
  .object({
    guidance: someText(maxGuidanceChars).openapi({
      description: 'How to rewrite the post, e.g. "shorter, and end with a question"',
      example: 'More formal, and remove the emoji',
    }),
    keepLength: z
      .boolean()
      .optional()
      .openapi({ description: 'Keep about the current length (default false)' }),
  })
  .strict()
  .openapi('RewritePost');

export const rewrittenPostSchema = z
  .object({ post: postSchema, providerModel, creditsUsed, remainingCredits })
  .openapi('RewrittenPost');

export const createXThreadBody = z
  .object({
    topic: someText(maxTopicChars).openapi({
      description: 'What the thread is about',
      example: 'How we close the books in three days',
    }),
    guidance: z
      .string()
      .max(maxGuidanceChars)
      .optional()
      .openapi({ description: 'How to write it, e.g. "practical, end with a question"' }),
    parts: z
      .number()
      .int()
      .min(minThreadParts)
      .max(maxThreadParts)
      .optional()
      .openapi({ description: 'How many posts to aim for (default 5)' }),
    socialAccountId: z
      .uuid()
      .optional()
      .openapi({ description: 'The X account the draft will publish from' }),
  })
  .strict()
  .openapi('CreateXThread');

export const xThreadDraftSchema = z
  .object({ ...groupWithPostsSchema.shape, providerModel, creditsUsed, remainingCredits })
  .openapi('XThreadDraft');
