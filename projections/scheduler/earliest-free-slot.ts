// The slot finder until scheduling intelligence replaces it: the earliest quarter hour at least 15 minutes
// ahead that no scheduled post of the workspace on the same platform holds. The read model shows a post only
// once its command has committed and been projected, so each chosen slot is also claimed in `slot_claims` for a
// few minutes: concurrent approvals then take different slots (projections/scheduler/migrations.ts).
import { sql, type Kysely } from 'kysely';
import type { SlotFinder } from '../../commands/post-groups/post-group-commands.js';
import type { SlotAssignment } from '../../domain/post-groups/post-group.js';
import type { ReadModels } from '../read-models.js';
import { scheduledTimes } from '../post-groups/queries.js';

const quarter = 15 * 60_000;

/** How long a claim holds its slot: enough for the command to commit and the read model to show the post. */
const claimLifetime = '10 minutes';

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

interface PlatformSlots {
  /** Slots held by scheduled posts in the read model, and slots given out or found taken during this call. */
  held: Set<number>;
  /** Live claims from `from` on: slot → the post holding it. */
  claims: Map<number, string>;
}

export class EarliestFreeSlotFinder implements SlotFinder {
  constructor(private readonly db: Kysely<ReadModels>) {}

  async findSlots(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: string }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>> {
    const from = firstCandidate(now);
    const placing = requests.map((r) => r.postId);
    // Expired claims are dead weight: the read model holds those posts by now (or they never committed).
    await sql`delete from slot_claims where org_id = ${orgId} and expires_at <= now()`.execute(this.db);
    const byPlatform = new Map<string, PlatformSlots>();
    const out: Record<string, SlotAssignment> = {};
    for (const request of requests) {
      let slots = byPlatform.get(request.platform);
      if (!slots) {
        // The posts being (re)scheduled must not block their own slots.
        const times = await scheduledTimes(this.db, orgId, request.platform, new Date(from).toISOString(), [
          ...placing,
        ]);
        slots = { held: heldSlots(times), claims: await this.liveClaims(orgId, request.platform, from) };
        byPlatform.set(request.platform, slots);
      }
      // A post placed again (a retried command) may take its own claim again; anyone else's claim blocks.
      const blocked = new Set(slots.held);
      for (const [slot, postId] of slots.claims) if (postId !== request.postId) blocked.add(slot);
      let slot = earliestFree(blocked, from);
      while (!(await this.claim(orgId, request.platform, slot, request.postId))) {
        // Claimed by a concurrent request since we read the claims.
        slots.held.add(slot);
        blocked.add(slot);
        slot = earliestFree(blocked, slot);
      }
      // Two posts of one request on the same platform get different slots.
      slots.held.add(slot);
      out[request.postId] = {
        scheduledForUtc: new Date(slot).toISOString(),
        scheduleReason: 'Earliest free quarter hour on this platform (at least 15 minutes ahead)',
      };
    }
    return out;
  }

  private async liveClaims(orgId: string, platform: string, from: number): Promise<Map<number, string>> {
    const { rows } = await sql<{ slot_start: string; post_id: string }>`
      select slot_start, post_id from slot_claims
      where org_id = ${orgId} and platform = ${platform}
        and slot_start >= ${new Date(from).toISOString()} and expires_at > now()`.execute(this.db);
    return new Map(rows.map((r) => [Date.parse(r.slot_start), r.post_id]));
  }

  /** Takes the slot for the post unless another post holds a live claim on it (database clock). */
  private async claim(orgId: string, platform: string, slot: number, postId: string): Promise<boolean> {
    const { rows } = await sql<{ post_id: string }>`
      insert into slot_claims as c (org_id, platform, slot_start, post_id, expires_at)
      values (${orgId}, ${platform}, ${new Date(slot).toISOString()}, ${postId}, now() + ${claimLifetime}::interval)
      on conflict (org_id, platform, slot_start) do update
        set post_id = excluded.post_id, expires_at = excluded.expires_at
        where c.expires_at <= now() or c.post_id = excluded.post_id
      returning post_id`.execute(this.db);
    return rows.length > 0;
  }
}
