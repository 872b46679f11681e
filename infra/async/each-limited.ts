// Runs an async function over items with at most `width` calls under way at once; answers in the items' order.
// The first failure is thrown once every started call has settled (nothing is left running behind the caller).

export async function mapLimited<T, R>(
  items: readonly T[],
  width: number,
  run: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lanes = Array.from({ length: Math.max(1, Math.min(width, items.length)) }, async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await run(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  });
  await Promise.all(lanes);
  if (failure) throw failure.error;
  return results;
}

/** A gate of `width` places: `run(fn)` waits for a place, calls fn, and frees the place when it settles. */
export function limiter(width: number): <R>(fn: () => Promise<R>) => Promise<R> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <R>(fn: () => Promise<R>): Promise<R> => {
    if (running >= width) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
