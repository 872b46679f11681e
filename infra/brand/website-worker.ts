// The website worker thread's entry (piscina): parses a fetched page, then its stylesheets, off the request
// thread (website-parser.ts runs it under a deadline and memory limits).
import { threadId } from 'node:worker_threads';
import {
  finishPage,
  parsePage,
  type PageParse,
  type PageParseInput,
  type PageState,
  type WebsiteCandidates,
} from './website-parse.js';

export type WebsiteParseTask =
  { kind: 'page'; input: PageParseInput } | { kind: 'sheets'; state: PageState; sheets: (string | null)[] };

export type WebsiteParseResult =
  | { kind: 'page'; parse: PageParse; threadId: number }
  | { kind: 'sheets'; candidates: WebsiteCandidates; threadId: number };

export default function run(task: WebsiteParseTask): WebsiteParseResult {
  switch (task.kind) {
    case 'page':
      return { kind: 'page', parse: parsePage(task.input), threadId };
    case 'sheets':
      return { kind: 'sheets', candidates: finishPage(task.state, task.sheets), threadId };
    default: {
      const never: never = task;
      throw new Error(`Unknown task ${JSON.stringify(never)}`);
    }
  }
}
