// Argument checks shared by every event store adapter, so both refuse the same malformed calls the same way.
// Checked before any I/O: a bad expectation or id is a programming error, not a conflict.
import { randomUUID } from 'node:crypto';
import { DuplicateEventId, type ExpectedRevision, type NewEvent, type ReadStreamOptions } from './port.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function assertNonNegativeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer`);
}

export function assertExpectedRevision(expected: ExpectedRevision): void {
  if (expected === 'any' || expected === 'no_stream' || expected === 'stream_exists') return;
  assertNonNegativeInteger('expectedRevision', expected);
}

/** Ids must be UUIDs (EventStoreDB demands it too) and unique within the append; the table keeps them unique overall. */
export function eventIds(events: readonly NewEvent[]): string[] {
  const ids = events.map((e) => (e.id ?? randomUUID()).toLowerCase());
  const seen = new Set<string>();
  for (const id of ids) {
    if (!UUID.test(id)) throw new TypeError(`Event id ${id} is not a UUID`);
    if (seen.has(id)) throw new DuplicateEventId(id);
    seen.add(id);
  }
  return ids;
}

/** The revisions a readStream call covers, or null when it covers none. */
export function streamWindow(options: ReadStreamOptions): { from: number; count: number } | null {
  const from = options.fromRevision ?? 0;
  const to = options.toRevision ?? Number.MAX_SAFE_INTEGER;
  const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
  assertNonNegativeInteger('fromRevision', from);
  assertNonNegativeInteger('toRevision', to);
  assertNonNegativeInteger('maxCount', maxCount);
  const count = Math.min(maxCount, to - from + 1);
  return count > 0 ? { from, count } : null;
}
