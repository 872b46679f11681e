// Every piscina pool of untrusted work (renders, websites, media headers) is made by workerPool: a thread lost
// between tasks is reported to the pool's owner, never an unhandled 'error' event that ends the process.
import { expect, test } from 'vitest';
import { workerPool } from '../../infra/async/worker-pool.js';

test('a thread lost between tasks is reported, not thrown', async () => {
  const lost: unknown[] = [];
  const pool = workerPool({
    filename: new URL('../../infra/media-probe/worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    onThreadError: (error) => lost.push(error),
  });
  try {
    expect(() => pool.emit('error', new Error('thread lost'))).not.toThrow();
    expect(lost).toHaveLength(1);
  } finally {
    await pool.destroy();
  }
});
