// The render worker pool: piscina threads (one per core) running worker.ts. The worker is TypeScript, so each
// thread loads it through tsx (worker threads get neither vitest's transform nor a parent's loader hooks unless
// passed in execArgv); this works under `tsx` (npm start), under vitest, and on Node 20 to 24.

import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type {
  CarouselRenderRequest,
  ImageRenderRequest,
  RenderedPng,
  ScreenshotRenderRequest,
} from './contract.js';
import type { PdfPageImage } from './render.js';

export type RenderTask =
  | { kind: 'image'; request: ImageRenderRequest }
  | { kind: 'screenshot'; request: ScreenshotRenderRequest }
  /** Slides `from` to `to` of a carousel, with their PDF page images when it has a PDF. */
  | { kind: 'slides'; request: CarouselRenderRequest; from: number; to: number };

export type RenderTaskResult =
  | { kind: 'image'; image: RenderedPng }
  | { kind: 'screenshot'; image: RenderedPng }
  | { kind: 'slides'; slides: RenderedPng[]; pages: PdfPageImage[] | null; width: number; height: number };

export interface RenderPoolOptions {
  /** Worker threads; default: the machine's available parallelism (at least 1). */
  threads?: number;
  /** How long an idle thread lives before it is ended (ms); idle threads never keep the process alive. */
  idleTimeoutMs?: number;
}

const require = createRequire(import.meta.url);

/** execArgv for the worker threads: the parent's, plus tsx's loader unless it is already among them. */
function workerExecArgv(): string[] {
  const inherited = process.execArgv;
  const hasTsx = inherited.some((arg) => /[\\/]tsx[\\/]/.test(arg) || arg === 'tsx');
  if (hasTsx) return [...inherited];
  return [...inherited, '--import', pathToFileURL(require.resolve('tsx')).href];
}

export class RenderPool {
  private readonly piscina: Piscina;

  constructor(options: RenderPoolOptions = {}) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    this.piscina = new Piscina({
      filename: new URL('./worker.ts', import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: options.idleTimeoutMs ?? 60_000,
      execArgv: workerExecArgv(),
    });
  }

  get threads(): number {
    return this.piscina.maxThreads;
  }

  run(task: RenderTask): Promise<RenderTaskResult> {
    return this.piscina.run(task) as Promise<RenderTaskResult>;
  }

  async close(): Promise<void> {
    await this.piscina.close();
  }
}
