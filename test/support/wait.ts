// Bounded polling for asynchronous effects: resolves once `check` returns a truthy value and fails the test
// after a generous timeout, so a slow CI machine delays a test instead of failing it (no timed assertions).
export async function waitUntil<T>(
  check: () => Promise<T> | T,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${options.what ?? 'condition'}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 20));
  }
}
