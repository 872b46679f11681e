// Deterministic ids: a retried request with the same Idempotency-Key must create the same resources,
// so ids are derived from the key (UUID version 8, RFC 9562) instead of drawn at random.
import { createHash, randomUUID } from 'node:crypto';

export function deterministicUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A fresh id, or one derived from the idempotency key when the caller sent one. */
export function newId(seed?: string[]): string {
  return seed ? deterministicUuid(...seed) : randomUUID();
}
