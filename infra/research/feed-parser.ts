// The feed parser pool: piscina threads running feed-worker.ts, so feed XML and JSON nobody vouches for are parsed
// off the request thread, each parse under a deadline (the thread is ended on overrun) and a heap limit — the
// website parser's pattern (infra/brand/website-parser.ts), its `runParse` reused.
import type { Piscina } from 'piscina';
import { siblingModule, workerPool } from '../async/worker-pool.js';
import { runParse } from '../brand/website-parser.js';
import type { FeedParseResult, FeedParseTask } from './feed-worker.js';

export const feedParseDeadlineMs = 5_000;
export const feedParseHeapMb = 96;
export const feedParseMaxQueue = 32;

export class FeedParser {
  private readonly piscina: Piscina;
  readonly deadlineMs: number;

  constructor(options: { deadlineMs?: number; heapMb?: number; idleTimeoutMs?: number } = {}) {
    this.deadlineMs = options.deadlineMs ?? feedParseDeadlineMs;
    const heapMb = options.heapMb ?? feedParseHeapMb;
    this.piscina = workerPool({
      filename: siblingModule('feed-worker', import.meta.url),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      maxQueue: feedParseMaxQueue,
      resourceLimits: {
        maxOldGenerationSizeMb: heapMb,
        maxYoungGenerationSizeMb: Math.max(8, Math.floor(heapMb / 8)),
        stackSizeMb: 4,
      },
    });
  }

  /** Parses counted by thread, so a test can see that none ran on its own thread. */
  get completed(): number {
    return this.piscina.completed;
  }

  /** Throws WebsiteParseFailed (deadline, memory, busy, error) when the parse did not finish. */
  async parse(task: FeedParseTask): Promise<FeedParseResult> {
    return runParse<FeedParseResult>(this.piscina, task, this.deadlineMs);
  }

  async close(): Promise<void> {
    await this.piscina.close({ force: true });
  }
}

let shared: FeedParser | undefined;

/** The process's feed parser (its thread starts on first use and ends when idle). */
export function sharedFeedParser(): FeedParser {
  shared ??= new FeedParser();
  return shared;
}
