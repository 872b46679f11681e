// The website parser pool: piscina threads running website-worker.ts, so HTML and CSS nobody vouches for are
// parsed off the request thread, each task under a deadline (the thread is ended on overrun) and memory limits.
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { siblingModule, workerPool } from '../async/worker-pool.js';
import type { WebsiteParseResult, WebsiteParseTask } from './website-worker.js';

/** One parse (the page, or its stylesheets) may take this long, waiting for a thread included. */
export const websiteParseDeadlineMs = 5_000;
/** A parser thread's heap; a page that needs more ends the thread, not the process. */
export const websiteParseHeapMb = 128;
/** At most this many parses wait for a thread; more are refused at once rather than piling up. */
export const websiteParseMaxQueue = 32;

/** The parse did not finish: past its deadline, out of its memory, or the queue was full. */
export class WebsiteParseFailed extends Error {
  constructor(
    readonly reason: 'deadline' | 'memory' | 'busy' | 'error',
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'WebsiteParseFailed';
  }
}

/**
 * Runs one task on a parser pool under its deadline, turning the pool's failures into WebsiteParseFailed (the
 * brand kit's website parser and the brand profile's page-text parser share it).
 */
export async function runParse<Result>(piscina: Piscina, task: unknown, deadlineMs: number): Promise<Result> {
  try {
    return (await piscina.run(task, { signal: AbortSignal.timeout(deadlineMs) })) as Result;
  } catch (error) {
    const name = (error as { name?: string }).name;
    const code = (error as { code?: string }).code;
    if (name === 'AbortError')
      throw new WebsiteParseFailed(
        'deadline',
        `The page could not be read within ${deadlineMs / 1000} s; it is too large or too complex`,
        error,
      );
    if (code === 'ERR_WORKER_OUT_OF_MEMORY')
      throw new WebsiteParseFailed('memory', 'The page is too large or too complex to read', error);
    if ((error as Error).message === 'Task queue is at limit')
      throw new WebsiteParseFailed(
        'busy',
        'Too many websites are being read right now; try again shortly',
        error,
      );
    throw new WebsiteParseFailed('error', 'The page could not be read', error);
  }
}

export interface WebsiteParserOptions {
  threads?: number;
  deadlineMs?: number;
  heapMb?: number;
  idleTimeoutMs?: number;
  /** A thread that died outside a task (out of heap while starting): the task waiting for it meets its deadline. */
  onThreadError?: (error: unknown) => void;
}

export class WebsiteParser {
  private readonly piscina: Piscina;
  readonly deadlineMs: number;

  constructor(options: WebsiteParserOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? websiteParseDeadlineMs;
    const heapMb = options.heapMb ?? websiteParseHeapMb;
    this.piscina = workerPool({
      filename: siblingModule('website-worker', import.meta.url),
      minThreads: 0,
      maxThreads: Math.max(1, options.threads ?? Math.min(2, availableParallelism())),
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      maxQueue: websiteParseMaxQueue,
      resourceLimits: {
        maxOldGenerationSizeMb: heapMb,
        maxYoungGenerationSizeMb: Math.max(8, Math.floor(heapMb / 8)),
        stackSizeMb: 4,
      },
      ...(options.onThreadError ? { onThreadError: options.onThreadError } : {}),
    });
  }

  /** Parses counted by thread: every parse ends up here, so a test can see that none ran on its own thread. */
  get completed(): number {
    return this.piscina.completed;
  }

  async run<K extends WebsiteParseTask['kind']>(
    task: Extract<WebsiteParseTask, { kind: K }>,
  ): Promise<Extract<WebsiteParseResult, { kind: K }>> {
    return runParse<Extract<WebsiteParseResult, { kind: K }>>(this.piscina, task, this.deadlineMs);
  }

  async close(): Promise<void> {
    await this.piscina.close({ force: true });
  }
}

let shared: WebsiteParser | undefined;

/** The process's parser (threads start on first use and end when idle; they never keep the process alive). */
export function sharedWebsiteParser(): WebsiteParser {
  shared ??= new WebsiteParser();
  return shared;
}
