// How the social account writes answer: `{ data }` with 200, and the command options that store that answer with
// the append (replayed for the same Idempotency-Key) and derive the new events' ids from the key.
import type { StoredResponse } from '../../commands/shared/idempotency.js';
import type { WriteContext } from '../shared/write.js';

export const okAnswer = (data: unknown): StoredResponse => ({ status: 200, body: { data } });

/** `data` picks what the answer shows of the command's result (all of it by default). */
export function keyedWriteOptions<Result>(
  { record, idempotencySeed }: WriteContext,
  data: (result: Result) => unknown = (result) => result,
): { sideWrite: (trx: unknown, result: Result) => Promise<void>; idempotencySeed?: string } {
  return {
    sideWrite: async (trx, result) => {
      await record?.(trx, okAnswer(data(result)));
    },
    ...(idempotencySeed ? { idempotencySeed } : {}),
  };
}
