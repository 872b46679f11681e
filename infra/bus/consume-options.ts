// Defaults and validation shared by both bus adapters, so a queue behaves the same in-process and on NATS.
// Also owns the redelivery backoff used after a handler throws.
import type { ConsumeOptions } from './port.js';

export interface ResolvedConsumeOptions {
  ackWaitMs: number;
  maxDeliver: number;
  concurrency: number;
}

export const defaultConsumeOptions: ResolvedConsumeOptions = {
  ackWaitMs: 30_000,
  // Bounded so a poison message stops; the sweep re-derives work from the event store if it mattered.
  maxDeliver: 5,
  concurrency: 1,
};

export function resolveConsumeOptions(options: ConsumeOptions = {}): ResolvedConsumeOptions {
  const resolved = { ...defaultConsumeOptions };
  if (options.ackWaitMs !== undefined) resolved.ackWaitMs = options.ackWaitMs;
  if (options.maxDeliver !== undefined) resolved.maxDeliver = options.maxDeliver;
  if (options.concurrency !== undefined) resolved.concurrency = options.concurrency;
  if (!Number.isInteger(resolved.ackWaitMs) || resolved.ackWaitMs < 1)
    throw new RangeError(`ackWaitMs must be a positive integer, got ${resolved.ackWaitMs}`);
  if (!Number.isInteger(resolved.maxDeliver) || resolved.maxDeliver < 1)
    throw new RangeError(`maxDeliver must be a positive integer, got ${resolved.maxDeliver}`);
  if (!Number.isInteger(resolved.concurrency) || resolved.concurrency < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${resolved.concurrency}`);
  return resolved;
}

/** Delay before redelivering a message whose handler threw on its `deliveryCount`-th delivery. */
export type RedeliveryDelay = (deliveryCount: number) => number;

/** Exponential from 1 s, capped at 1 min: gives a failing dependency time without parking work for long. */
export const defaultRedeliveryDelay: RedeliveryDelay = (deliveryCount) =>
  Math.min(60_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));
