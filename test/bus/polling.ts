// Bounded polling for asynchronous delivery in bus and outbox tests: waits until a condition holds or fails
// with a message after a generous timeout, so slow CI machines delay a test instead of failing it.
import { randomBytes } from 'node:crypto';
import { waitUntil } from '../support/wait.js';

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  await waitUntil(condition, { ...options, what });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Names unique per test run, so parallel runs against one NATS server never share a subject or id. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

export interface Gate {
  promise: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
