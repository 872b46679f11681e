// The page-text parser pool: piscina threads running page-text-worker.ts, so HTML nobody vouches for is parsed
// (jsdom, Readability) off the request thread, each page under a deadline (the thread is ended on overrun) and
// memory limits. The same shape as the brand kit's website parser (infra/brand/website-parser.ts).
import type { Piscina } from 'piscina';
import { siblingModule, workerPool } from '../async/worker-pool.js';
import { runParse } from '../brand/website-parser.js';
import type { PageText, PageTextInput } from './page-text.js';

/** One page may take this long, waiting for a thread included (jsdom's first load in a new thread counts). */
export const pageTextDeadlineMs = 10_000;
/** A parser thread's heap (jsdom needs more than cheerio); a page that needs more ends the thread. */
export const pageTextHeapMb = 256;
export const pageTextMaxQueue = 16;

export interface PageTextParserOptions {
  threads?: number;
  deadlineMs?: number;
  heapMb?: number;
  idleTimeoutMs?: number;
}

export class PageTextParser {
  private readonly piscina: Piscina;
  readonly deadlineMs: number;

  constructor(options: PageTextParserOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? pageTextDeadlineMs;
    const heapMb = options.heapMb ?? pageTextHeapMb;
    this.piscina = workerPool({
      filename: siblingModule('page-text-worker', import.meta.url),
      minThreads: 0,
      maxThreads: Math.max(1, options.threads ?? 1),
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      maxQueue: pageTextMaxQueue,
      resourceLimits: {
        maxOldGenerationSizeMb: heapMb,
        maxYoungGenerationSizeMb: Math.max(16, Math.floor(heapMb / 8)),
        stackSizeMb: 4,
      },
    });
  }

  /** Pages read by a thread: every read ends up here, so a test can see that none ran on its own thread. */
  get completed(): number {
    return this.piscina.completed;
  }

  async run(input: PageTextInput): Promise<PageText & { threadId: number }> {
    return runParse<PageText & { threadId: number }>(this.piscina, input, this.deadlineMs);
  }

  async close(): Promise<void> {
    await this.piscina.close({ force: true });
  }
}

let shared: PageTextParser | undefined;

/** The process's page-text parser (threads start on first use and end when idle). */
export function sharedPageTextParser(): PageTextParser {
  shared ??= new PageTextParser();
  return shared;
}
