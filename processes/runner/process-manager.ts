// The contract every process manager implements, and deterministic outbox message ids.
// A process folds events into its own state and asks for side effects through the outbox, all in one transaction.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { RecordedEvent } from '../../infra/event-store/port.js';

/** Process state tables belong to each process; the runner hands out an untyped kysely handle. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDatabase = any;

export interface OutboxMessage {
  /** Deterministic (see outboxMessageId): the idempotency key downstream, so reprocessing never duplicates work. */
  id: string;
  destination: string;
  payload: unknown;
}

export interface ProcessContext {
  /** Writes the message to the outbox inside the batch's transaction. */
  enqueue(message: OutboxMessage): Promise<void>;
}

export interface ProcessManager {
  /** Checkpoint and lease key; lower case letters, digits, dashes and underscores. */
  name: string;
  eventTypes?: readonly string[];
  /** State tables, fixed names, no generations; must tolerate running again (`if not exists`). */
  createTables?(db: Kysely<AnyDatabase>): Promise<void>;
  handle(trx: Transaction<AnyDatabase>, event: RecordedEvent, ctx: ProcessContext): Promise<void>;
}

/** Signature of processes/outbox/enqueue-outbox.ts `enqueueOutbox`. */
export type EnqueueOutbox = (trx: Transaction<AnyDatabase>, message: OutboxMessage) => Promise<void>;

// Fixed namespace of the RFC 9562 version-5 ids below; changing it would change every id.
const NAMESPACE = Buffer.from('4d7c2b8e1f0a4c6b9e3d5a7f2c1b0e9d', 'hex');

/**
 * The outbox id for a side effect a process asks for while handling one event: a name-based UUID (v5) of the
 * process name, the event id and a discriminator for processes that enqueue several messages per event.
 */
export function outboxMessageId(processName: string, eventId: string, discriminator = ''): string {
  const hash = createHash('sha1')
    .update(NAMESPACE)
    .update(`${processName}\u0000${eventId}\u0000${discriminator}`)
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
