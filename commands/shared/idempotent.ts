// Runs a write under an optional Idempotency-Key: replays the stored response, or executes and stores it
// with the append (or alone when nothing was appended). A concurrent twin loses on the key and replays.
import { type IdempotencyRequest, type IdempotencyStore, type StoredResponse } from './idempotency.js';

export type RecordResponse = (trx: unknown, response: StoredResponse) => Promise<void>;

export async function runIdempotent(
  store: IdempotencyStore,
  request: IdempotencyRequest | undefined,
  execute: (record: RecordResponse | undefined) => Promise<{ response: StoredResponse; appended: boolean }>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (!request) return { ...(await execute(undefined)).response, replayed: false };
  const stored = await store.replay(request);
  if (stored) return { ...stored, replayed: true };
  try {
    let recorded = false;
    const { response } = await execute(async (trx, res) => {
      await store.record(trx, request, res);
      recorded = true;
    });
    // Nothing was appended (a no-op command), so nothing recorded the response yet.
    if (!recorded) await store.recordStandalone(request, response);
    return { ...response, replayed: false };
  } catch (error) {
    // A concurrent twin with the same key may have won: it lost the key race, or its command was refused
    // because the winner already acted (a twin DELETE finds nothing to delete). Either way, the winner answers.
    const winner = await store.replay(request);
    if (!winner) throw error;
    return { ...winner, replayed: true };
  }
}
