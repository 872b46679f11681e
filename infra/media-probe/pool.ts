// The media probe pool: one piscina thread (started on demand, ended when idle) that reads untrusted image and
// movie headers with a heap cap and a deadline, so no file can block the request thread or exhaust the process.
import type { Piscina } from 'piscina';
import { siblingModule, workerPool } from '../async/worker-pool.js';
import type { ProbeResult, ProbeTask } from './worker.js';

/** Heap of the probe thread: a movie header is at most MAX_MOVIE_HEADER_BYTES, an image at most 20 MiB. */
export const PROBE_HEAP_MB = 256;
/** How long one probe may run before its thread is terminated. */
export const PROBE_DEADLINE_MS = 10_000;
/** Probes waiting for the thread; more is refused as busy (503) rather than queued without bound. */
export const PROBE_MAX_QUEUE = 64;

/** Why a probe gave no answer: over its deadline, over its memory, or too many waiting. */
export class ProbeFailed extends Error {
  constructor(
    readonly reason: 'timeout' | 'out_of_memory' | 'busy',
    message: string,
  ) {
    super(message);
    this.name = 'ProbeFailed';
  }
}

let pool: Piscina | undefined;

function probePool(): Piscina {
  pool ??= workerPool({
    filename: siblingModule('worker', import.meta.url),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 30_000,
    maxQueue: PROBE_MAX_QUEUE,
    resourceLimits: { maxOldGenerationSizeMb: PROBE_HEAP_MB, maxYoungGenerationSizeMb: 32 },
  });
  return pool;
}

/** Runs one probe in the thread; the thread is terminated when the deadline passes. */
export async function runProbe(task: ProbeTask, deadlineMs = PROBE_DEADLINE_MS): Promise<ProbeResult> {
  const signal = AbortSignal.timeout(deadlineMs);
  try {
    return (await probePool().run(task, { signal })) as ProbeResult;
  } catch (error) {
    if (signal.aborted)
      throw new ProbeFailed('timeout', `Reading the file took longer than ${deadlineMs / 1000} s`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_WORKER_OUT_OF_MEMORY')
      throw new ProbeFailed('out_of_memory', 'Reading the file needed more memory than a file may use');
    if (error instanceof Error && /queue is at limit/i.test(error.message))
      throw new ProbeFailed('busy', 'Too many files are being read just now');
    throw error;
  }
}

/** Ends the thread (service shutdown, tests). */
export async function closeProbePool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}
