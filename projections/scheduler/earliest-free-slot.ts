// The slot finder until scheduling intelligence replaces it: the earliest quarter hour at least 15 minutes
// ahead that no scheduled post of the workspace on the same platform holds.
import type { Kysely } from 'kysely';
import type { SlotFinder } from '../../commands/post-groups/post-group-commands.js';
import type { SlotAssignment } from '../../domain/post-groups/post-group.js';
import type { ReadModels } from '../read-models.js';
import { scheduledTimes } from '../post-groups/queries.js';

const quarter = 15 * 60_000;

/** First quarter-hour boundary at least 15 minutes after `now`. */
export function firstCandidate(now: Date): number {
  return Math.ceil((now.getTime() + quarter) / quarter) * quarter;
}

/** Quarter hours held by the given times: a post at 10:07 holds the 10:00–10:15 slot. */
export function heldSlots(times: readonly string[]): Set<number> {
  return new Set(times.map((t) => Math.floor(Date.parse(t) / quarter) * quarter));
}

export function earliestFree(held: Set<number>, from: number): number {
  let slot = from;
  while (held.has(slot)) slot += quarter;
  return slot;
}

export class EarliestFreeSlotFinder implements SlotFinder {
  constructor(private readonly db: Kysely<ReadModels>) {}

  async findSlots(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: string }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>> {
    const from = firstCandidate(now);
    const heldByPlatform = new Map<string, Set<number>>();
    const out: Record<string, SlotAssignment> = {};
    for (const request of requests) {
      let held = heldByPlatform.get(request.platform);
      if (!held) {
        // The post being (re)scheduled must not block its own slot.
        const times = await scheduledTimes(this.db, orgId, request.platform, new Date(from).toISOString(), [
          ...requests.map((r) => r.postId),
        ]);
        held = heldSlots(times);
        heldByPlatform.set(request.platform, held);
      }
      const slot = earliestFree(held, from);
      // Two posts of one request on the same platform get different slots.
      held.add(slot);
      out[request.postId] = {
        scheduledForUtc: new Date(slot).toISOString(),
        scheduleReason: 'Earliest free quarter hour on this platform (at least 15 minutes ahead)',
      };
    }
    return out;
  }
}
