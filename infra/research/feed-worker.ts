// The feed parser thread's entry (piscina): parses one fetched news feed off the request thread (feed-reader.ts
// runs it under a deadline and memory limits). A document that is not a feed answers its reason, not a throw.
import { threadId } from 'node:worker_threads';
import { FeedFormatError, parseNewsFeed, type ParsedFeed } from './feed-parse.js';

export interface FeedParseTask {
  /** The document, decoded as UTF-8 (feeds in other encodings declare it; UTF-8 covers nearly all). */
  document: string;
}

export type FeedParseResult =
  { ok: true; feed: ParsedFeed; threadId: number } | { ok: false; reason: string; threadId: number };

export default function run(task: FeedParseTask): FeedParseResult {
  try {
    return { ok: true, feed: parseNewsFeed(task.document), threadId };
  } catch (error) {
    if (error instanceof FeedFormatError) return { ok: false, reason: error.message, threadId };
    throw error;
  }
}
