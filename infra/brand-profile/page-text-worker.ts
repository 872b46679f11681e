// The page-text worker thread's entry (piscina): reads a fetched page for the brand profile off the request thread
// (page-text-parser.ts runs it under a deadline and memory limits).
import { threadId } from 'node:worker_threads';
import { extractPageText, type PageText, type PageTextInput } from './page-text.js';

export default function run(input: PageTextInput): PageText & { threadId: number } {
  return { ...extractPageText(input), threadId };
}
