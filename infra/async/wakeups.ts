// Waiters that one signal wakes all at once (an append, a checkpoint), each bounded by its own timeout and
// AbortSignal: the sleeping half of "wait for the next thing to happen, or poll".
export class Wakeups {
  private readonly waiters = new Set<() => void>();

  /** Resolves on the next wakeAll(), after timeoutMs, or when the signal aborts, whichever is first. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(finish);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.waiters.add(finish);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }

  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
