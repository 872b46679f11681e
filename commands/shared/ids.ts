// Deterministic ids: a retried request with the same Idempotency-Key must create the same resources,
// so ids are derived from the key (UUID version 8, RFC 9562) instead of drawn at random.
import { randomUUID } from 'node:crypto';
import { deterministicUuid } from '../../domain/shared/ids.js';

export { deterministicUuid };

/** A fresh id, or one derived from the idempotency key when the caller sent one. */
export function newId(seed?: string[]): string {
  return seed ? deterministicUuid(...seed) : randomUUID();
}

/**
 * Event ids derived from an idempotency seed (and a scope), so a retried append after a crash is recognised
 * as the same events; undefined (random ids) without a seed.
 */
export function deterministicEventIds(seed: string | undefined, ...scope: string[]) {
  if (!seed) return undefined;
  return (_event: unknown, index: number, revision: number) =>
    deterministicUuid(seed, ...scope, String(revision), String(index));
}
