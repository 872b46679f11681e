// The render worker pool: piscina threads (one per core) running worker.ts. The worker is TypeScript, so each
// thread loads it through tsx (worker threads get neither vitest's transform nor a parent's loader hooks unless
// passed in execArgv); this works under `tsx` (npm start), under vitest, and on Node 20 to 24.
// Tasks wait here (a bounded line) until a thread is free, and each runs under a deadline counted from when a
// thread takes it: past it the task is aborted, piscina ends its thread, and the pool starts a fresh one.

import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { siblingModule, workerPool } from '../async/worker-pool.js';
import type {
  CarouselRenderRequest,
  ImageRenderRequest,
  RenderedPng,
  ScreenshotRenderRequest,
} from './contract.js';
import type { LogoFile, RenderableLogo } from '../brand/logo-image.js';
import { defaultRenderTaskDeadlineMs, RenderDeadlineExceeded, RenderQueueFull } from './queue.js';
import type { PdfPageImage } from './render.js';

export type RenderTask =
  | { kind: 'image'; request: ImageRenderRequest }
  | { kind: 'screenshot'; request: ScreenshotRenderRequest }
  /** Slides `from` to `to` of a carousel, with their PDF page images when it has a PDF. */
  | { kind: 'slides'; request: CarouselRenderRequest; from: number; to: number }
  /** A logo file read (and an SVG sanitised and rasterised): infra/brand/logo-image.ts `readLogoFile`. */
  | { kind: 'logo'; bytes: Uint8Array }
  /** A logo as the renderer takes it: `renderableLogo`. */
  | { kind: 'renderable-logo'; bytes: Uint8Array };

export type RenderTaskResult =
  | { kind: 'image'; image: RenderedPng }
  | { kind: 'screenshot'; image: RenderedPng }
  | { kind: 'slides'; slides: RenderedPng[]; pages: PdfPageImage[] | null; width: number; height: number }
  | { kind: 'logo'; file: LogoFile }
  | { kind: 'renderable-logo'; logo: RenderableLogo }
  /** The file is not a usable logo (NotALogo's message: errors lose their class between threads). */
  | { kind: 'not-a-logo'; message: string };

export interface RenderPoolOptions {
  /** Worker threads; default: the machine's available parallelism (at least 1). */
  threads?: number;
  /** How long an idle thread lives before it is ended (ms); idle threads never keep the process alive. */
  idleTimeoutMs?: number;
  /**
   * How long one task may run once a thread has taken it (ms; a carousel's task gets this per slide). Default
   * defaultRenderTaskDeadlineMs.
   */
  taskDeadlineMs?: number;
  /** Tasks waiting for a thread at most; past it `run` refuses with RenderQueueFull (503). Default 512. */
  maxWaitingTasks?: number;
  /** Told of a thread lost between tasks (piscina's 'error'); the pool starts another on the next task. */
  onThreadError?: (error: unknown) => void;
}

interface Waiting {
  task: RenderTask;
  deadlineMs: number;
  resolve: (result: RenderTaskResult) => void;
  reject: (error: unknown) => void;
}

/** A task's share of the deadline: one per slide of a carousel's part, one otherwise. */
function weightOf(task: RenderTask): number {
  return task.kind === 'slides' ? Math.max(1, task.to - task.from) : 1;
}

export class RenderPool {
  private readonly piscina: Piscina;
  private readonly deadlineMs: number;
  private readonly maxWaiting: number;
  private readonly waiting: Waiting[] = [];
  private running = 0;

  constructor(options: RenderPoolOptions = {}) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    this.deadlineMs = options.taskDeadlineMs ?? defaultRenderTaskDeadlineMs;
    this.maxWaiting = options.maxWaitingTasks ?? 512;
    this.piscina = workerPool({
      filename: siblingModule('worker', import.meta.url),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: options.idleTimeoutMs ?? 60_000,
      ...(options.onThreadError ? { onThreadError: options.onThreadError } : {}),
    });
  }

  get threads(): number {
    return this.piscina.maxThreads;
  }

  /** Tasks waiting for a thread (not yet running). */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `task` on a thread once one is free. Rejects with RenderDeadlineExceeded when it runs past its
   * deadline (`deadlineMs`, default the pool's, times its weight), RenderQueueFull when the line is full.
   */
  run(task: RenderTask, options: { deadlineMs?: number } = {}): Promise<RenderTaskResult> {
    if (this.waiting.length >= this.maxWaiting)
      return Promise.reject(
        new RenderQueueFull(`The renderer is busy (${this.waiting.length} tasks waiting); retry shortly`),
      );
    const deadlineMs = (options.deadlineMs ?? this.deadlineMs) * weightOf(task);
    return new Promise<RenderTaskResult>((resolve, reject) => {
      this.waiting.push({ task, deadlineMs, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.threads && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.running++;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), job.deadlineMs);
      timer.unref();
      (this.piscina.run(job.task, { signal: abort.signal }) as Promise<RenderTaskResult>)
        .then(
          (result) => job.resolve(result),
          (error: unknown) =>
            job.reject(abort.signal.aborted ? new RenderDeadlineExceeded(job.deadlineMs) : error),
        )
        .finally(() => {
          clearTimeout(timer);
          this.running--;
          this.next();
        });
    }
  }

  async close(): Promise<void> {
    for (const job of this.waiting.splice(0))
      job.reject(new RenderQueueFull('The renderer is shutting down'));
    await this.piscina.close();
  }
}
