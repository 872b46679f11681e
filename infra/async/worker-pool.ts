// The one way the service starts a piscina pool for untrusted work (renders, logos, websites, media headers): the
// threads run the build's JavaScript like the parent (`npm start` runs dist/), or the TypeScript through tsx when the
// parent runs the sources (tests, `tsx api/main.ts`); a thread lost between tasks is reported, never an unhandled
// 'error' event that would end the whole process.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';

/**
 * The URL of a worker module beside the calling module (`base`, its import.meta.url): `name.ts` when the caller
 * runs from the sources, `name.js` when it runs from the build in dist/.
 */
export function siblingModule(name: string, base: string): string {
  return new URL(`./${name}${path.extname(fileURLToPath(base))}`, base).href;
}

/** execArgv for worker threads: the parent's, plus tsx's loader for a TypeScript module unless already there. */
function workerExecArgv(filename: string | null | undefined): string[] {
  const inherited = process.execArgv;
  if (!filename?.endsWith('.ts')) return [...inherited];
  if (inherited.some((arg) => /[\\/]tsx[\\/]/.test(arg) || arg === 'tsx')) return [...inherited];
  // tsx is a development dependency: only the sources' workers (tests, `tsx api/main.ts`) need it.
  const require = createRequire(import.meta.url);
  return [...inherited, '--import', pathToFileURL(require.resolve('tsx')).href];
}

export type WorkerPoolOptions = Omit<NonNullable<ConstructorParameters<typeof Piscina>[0]>, 'execArgv'> & {
  /** Told of a thread lost between tasks (piscina's 'error'); the pool starts another on the next task. */
  onThreadError?: (error: unknown) => void;
};

export function workerPool({ onThreadError, ...options }: WorkerPoolOptions): Piscina {
  const pool = new Piscina({ ...options, execArgv: workerExecArgv(options.filename) });
  pool.on('error', (error: unknown) => onThreadError?.(error));
  return pool;
}
