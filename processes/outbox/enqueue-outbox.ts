// Writing to the outbox: process managers call enqueueOutbox inside their own state + checkpoint
// transaction, so a side effect exists exactly when the decision that caused it committed.
import type { Kysely, Transaction } from 'kysely';
import { assertQueueName } from '../../infra/bus/subjects.js';
import type { OutboxTables } from './migrations.js';

export interface OutboxMessage {
  /** Deterministic (derived from the causing event), so a replayed decision writes the same row. */
  id: string;
  /** The bus queue the dispatcher enqueues to. */
  destination: string;
  payload: unknown;
}

/** Inserts the message; an id already present is left as it is (first write wins). */
export async function enqueueOutbox(
  // Callers pass their own database type; only the outbox table is touched here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  trx: Kysely<any> | Transaction<any>,
  message: OutboxMessage,
): Promise<void> {
  if (message.id === '') throw new TypeError('Outbox message id must not be empty');
  // Refused at write time: a bad destination would otherwise fail on every dispatch, forever.
  assertQueueName(message.destination);
  const db = trx as Kysely<OutboxTables>;
  await db
    .insertInto('outbox')
    .values({
      id: message.id,
      destination: message.destination,
      // Serialised here: pg would turn a top-level array into a PostgreSQL array literal.
      payload: JSON.stringify(message.payload ?? null),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}
