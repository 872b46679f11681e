// A small AI job for tests of the AI runtime (the real jobs belong to the strategy and brand-profile slices):
// a post headline and body about a topic. The prompt carries `scenario:<name>` for the local model server.
import { z } from 'zod';
import type { AiJob } from '../../domain/ai/job.js';

export const testOutput = z.object({
  headline: z.string().min(1).max(120),
  body: z.string().min(1),
});
export type TestOutput = z.infer<typeof testOutput>;

export interface TestInput {
  topic: string;
  scenario?: string;
}

export const testJob: AiJob<TestInput, TestOutput> = {
  jobType: 'test.write',
  creditAction: 'ai_text',
  output: testOutput,
  outputName: 'post',
  prompt: (input) => ({
    system: 'You write short social posts. Answer with the JSON object asked for.',
    prompt: `Write a post about ${input.topic}. scenario:${input.scenario ?? 'ok'}`,
  }),
  heuristic: (input) => ({
    headline: `Notes on ${input.topic}`,
    body: `Three things we learned about ${input.topic} this week.`,
  }),
};

export const validPost = (topic = 'testing'): string =>
  JSON.stringify({ headline: `All about ${topic}`, body: `A post on ${topic}.` });
