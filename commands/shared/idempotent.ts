// Runs a write under an optional Idempotency-Key: replays the stored answer, or executes and stores it
// with the append (or alone when nothing was appended). A concurrent twin loses on the key and replays.
import type { SideWriteOf } from './command-handler.js';
import { type IdempotencyRequest, type IdempotencyStore, type StoredResponse } from './idempotency.js';

/** Stores the answer inside the append's transaction. */
export type RecordAnswer<Answer> = SideWriteOf<Answer>;

/** How an answer is kept in the idempotency record, and read back from it. */
export interface AnswerCodec<Answer> {
  store(answer: Answer): StoredResponse;
  /** A record `store` wrote. */
  load(stored: StoredResponse): Answer;
}

export async function runIdempotent<Answer>(
  store: IdempotencyStore,
  request: IdempotencyRequest | undefined,
  codec: AnswerCodec<Answer>,
  execute: (record: RecordAnswer<Answer> | undefined) => Promise<Answer>,
): Promise<{ answer: Answer; replayed: boolean }> {
  if (!request) return { answer: await execute(undefined), replayed: false };
  const stored = await store.replay(request);
  if (stored) return { answer: codec.load(stored), replayed: true };
  try {
    let recorded = false;
    const answer = await execute(async (trx, res) => {
      await store.record(trx, request, codec.store(res));
      recorded = true;
    });
    // Nothing was appended (a no-op command), so nothing recorded the answer yet.
    if (!recorded) await store.recordStandalone(request, codec.store(answer));
    return { answer, replayed: false };
  } catch (error) {
    // A concurrent twin with the same key may have won: it lost the key race, or its command was refused
    // because the winner already acted (a twin DELETE finds nothing to delete). Either way, the winner answers.
    const winner = await store.replay(request);
    if (!winner) throw error;
    return { answer: codec.load(winner), replayed: true };
  }
}
