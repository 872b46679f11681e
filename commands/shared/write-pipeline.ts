// The one pipeline every write use case runs through, whichever entry point calls it (REST route, assistant
// tool): the Idempotency-Key (replay the first answer, or execute and record the answer with the append), the
// command metadata from the caller, then the use case's commands (decide, append, retries, read-your-writes).
import { actorOf, idempotencyScopeOf, type Caller } from '../../domain/shared/caller.js';
import type { CommandDeps, CommandMetadata } from './command-handler.js';
import {
  parseIdempotencyKey,
  type IdempotencyRequest,
  type IdempotencyStore,
  type StoredResponse,
} from './idempotency.js';
import { runIdempotent, type AnswerCodec, type RecordAnswer } from './idempotent.js';

/** What every write use case needs: the write path and the idempotency records. */
export interface WriteDeps {
  commands: CommandDeps;
  idempotency: IdempotencyStore;
}

/** What an entry point knows of the request besides its input: ids for tracing, the time, the key. */
export interface WriteRequest {
  correlationId: string;
  /** ISO 8601; every event of the write is stamped with it. */
  now: string;
  /** Present when the caller sent an Idempotency-Key. */
  idempotency?: KeyedRequest;
}

export interface KeyedRequest {
  /** As the caller sent it; its syntax is checked when the write runs, after the use case's own checks. */
  key: string;
  /** What must not change under the key: a hash of the request as the entry point received it. */
  requestHash: string;
  /**
   * The status the entry point answers with, kept with the answer: records keep the shape of the HTTP answer
   * (`{ status, body: { data } }`), so records written before use cases existed replay alike.
   */
  status: number;
}

/** What a use case's write step gets from the pipeline. */
export interface WriteStep<Output> {
  metadata: CommandMetadata;
  /** Stores the answer with the append; undefined without a key (the append then needs no transaction). */
  record: RecordAnswer<Output> | undefined;
  /** Seed for ids derived from the key, so a retried request creates the same resources. */
  idempotencySeed: string | undefined;
}

export interface Written<Output> {
  output: Output;
  /** True when this is the first answer to the key, replayed. */
  replayed: boolean;
}

export interface WriteOptions<Output> {
  /**
   * For writes that answer after a wait that follows the append (post-now answers the attempt's outcome): the
   * answer to give instead, or null to keep the first; with a key, it replaces the recorded answer.
   */
  settle?: (output: Output) => Promise<Output | null>;
}

/** The command metadata of a write by this caller. */
export function writeMetadata(caller: Caller, request: WriteRequest): CommandMetadata {
  return {
    orgId: caller.orgId,
    actor: actorOf(caller),
    userId: caller.userId,
    correlationId: request.correlationId,
    causationId: null,
    now: request.now,
    ...(caller.kind === 'assistant'
      ? {
          assistant: {
            clientId: caller.clientId,
            clientName: caller.clientName,
            connectionId: caller.connectionId,
            onBehalfOf: caller.userId,
          },
        }
      : {}),
  };
}

function codecFor<Output>(status: number): AnswerCodec<Output> {
  return {
    store: (output) => ({ status, body: { data: output } }),
    // The pipeline wrote this record from an Output (store above), so it reads back as one.
    load: (stored: StoredResponse) => (stored.body as { data: Output }).data,
  };
}

/**
 * Runs `execute` once per Idempotency-Key of the caller: a repeated key with the same request answers the first
 * answer (`replayed`), with another request 422 `idempotency_key_reused`. Call it after the use case's checks of
 * the caller and the input, so that a refused request is refused again rather than replayed.
 */
export async function runWrite<Output>(
  store: IdempotencyStore,
  caller: Caller,
  request: WriteRequest,
  execute: (step: WriteStep<Output>) => Promise<Output>,
  options: WriteOptions<Output> = {},
): Promise<Written<Output>> {
  const keyed = request.idempotency;
  const idempotency: IdempotencyRequest | undefined = keyed && {
    scope: idempotencyScopeOf(caller),
    key: parseIdempotencyKey(keyed.key) ?? keyed.key,
    requestHash: keyed.requestHash,
  };
  const codec = codecFor<Output>(keyed?.status ?? 200);
  const metadata = writeMetadata(caller, request);
  const { answer, replayed } = await runIdempotent(store, idempotency, codec, (record) =>
    execute({
      metadata,
      record,
      idempotencySeed: idempotency ? `${idempotency.scope}:${idempotency.key}` : undefined,
    }),
  );
  if (replayed || !options.settle) return { output: answer, replayed };
  const settled = await options.settle(answer);
  if (settled === null) return { output: answer, replayed: false };
  if (idempotency) await store.amend(idempotency, codec.store(settled));
  return { output: settled, replayed: false };
}
