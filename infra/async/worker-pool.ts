// The one way the service starts a piscina pool for untrusted work (renders, logos, websites, media headers): the
// threads load TypeScript through tsx like the parent, and a thread lost between tasks is reported, never an
// unhandled 'error' event that would end the whole process.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';

const require = createRequire(import.meta.url);

/** execArgv for worker threads: the parent's, plus tsx's loader unless it is already among them. */
function workerExecArgv(): string[] {
  const inherited = process.execArgv;
  if (inherited.some((arg) => /[\\/]tsx[\\/]/.test(arg) || arg === 'tsx')) return [...inherited];
  return [...inherited, '--import', pathToFileURL(require.resolve('tsx')).href];
}

export type WorkerPoolOptions = Omit<NonNullable<ConstructorParameters<typeof Piscina>[0]>, 'execArgv'> & {
  /** Told of a thread lost between tasks (piscina's 'error'); the pool starts another on the next task. */
  onThreadError?: (error: unknown) => void;
};

export function workerPool({ onThreadError, ...options }: WorkerPoolOptions): Piscina {
  const pool = new Piscina({ ...options, execArgv: workerExecArgv() });
  pool.on('error', (error: unknown) => onThreadError?.(error));
  return pool;
}
