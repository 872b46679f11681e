// The contract every process manager implements (`defineProcess`: the codecs it reads and a handler of the events
// they decode), and deterministic outbox message ids.
// A process folds events into its own state and asks for side effects through the outbox, all in one transaction.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DomainEvent } from '../../domain/shared/decider.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import type { ReadModels } from '../../projections/read-models.js';
import {
  eventReader,
  type Decoded,
  type EventOf,
  type EventSource,
} from '../../projections/engine/event-sources.js';

/**
 * The transaction a process handles an event in: typed for the read models it may consult; a process with state
 * tables of its own adds them with `withTables`.
 */
export type ProcessTransaction = Transaction<ReadModels>;

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

/**
 * What the runner runs. Feature processes are declared with `defineProcess` (typed events, decoded once by the
 * codecs they read); this is the form it compiles to, and the form of runner-level processes that handle stored
 * events as they are (the runner tests' notifier).
 */
export interface ProcessManager {
  /** Checkpoint and lease key; lower case letters, digits, dashes and underscores. */
  name: string;
  /** Only these event types reach `handle`; omitted = all events. */
  eventTypes?: readonly string[];
  /** State tables, fixed names, no generations; must tolerate running again (`if not exists`). */
  createTables?(db: Kysely<ReadModels>): Promise<void>;
  handle(trx: ProcessTransaction, event: RecordedEvent, ctx: ProcessContext): Promise<void>;
}

/** A process manager as a feature declares it: the codecs it reads, and a handler of events decoded by them. */
export interface ProcessDeclaration<S extends EventSource<DomainEvent>> {
  name: string;
  /** The event types it handles, by codec (`readsFrom(workspaceEventCodec, ['WorkspaceCreated'])`). */
  reads: readonly S[];
  createTables?(db: Kysely<ReadModels>): Promise<void>;
  handle(trx: ProcessTransaction, event: Decoded<EventOf<S>>, ctx: ProcessContext): Promise<void>;
}

/** The process the runner runs: each stored event decoded once with the declared codecs, other types skipped. */
export function defineProcess<S extends EventSource<DomainEvent>>(
  declaration: ProcessDeclaration<S>,
): ProcessManager {
  const reader = eventReader(declaration.reads);
  // An empty filter would mean "every event" to the runner.
  if (reader.types.length === 0) throw new Error(`Process ${declaration.name}: reads no event types`);
  return {
    name: declaration.name,
    eventTypes: reader.types,
    ...(declaration.createTables ? { createTables: declaration.createTables.bind(declaration) } : {}),
    async handle(trx, stored, ctx) {
      const event = reader.decode(stored);
      if (event !== undefined) await declaration.handle(trx, event, ctx);
    },
  };
}

/** Signature of processes/outbox/enqueue-outbox.ts `enqueueOutbox`. */
export type EnqueueOutbox = (trx: ProcessTransaction, message: OutboxMessage) => Promise<void>;

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
