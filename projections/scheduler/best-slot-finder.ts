// The slot finder behind approve (`autoSchedule`) and schedule (`useBestSlot`): the best free slot of the
// workspace's scheduling profile and history (domain/scheduling/slots.ts), clear of every scheduled post of
// the platform by `minGapMinutes` and of full days.
//
// The read model shows a post only once its command has committed and been projected, so each chosen slot is
// also claimed in `slot_claims` for a few minutes. Choosing and claiming happen in one transaction under a
// lock of the workspace and platform: a concurrent approval waits, then sees the claim and keeps clear of it.
import { sql, type Kysely } from 'kysely';
import type { SlotFinder } from '../../commands/post-groups/post-group-commands.js';
import type { SlotAssignment } from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/post-groups/post-content.js';
import { Conflict } from '../../domain/shared/errors.js';
import { rankSlots } from '../../domain/scheduling/slots.js';
import type { History, RankedSlot, SchedulingProfile } from '../../domain/scheduling/types.js';
import { engagementHistory } from '../analytics/queries.js';
import type { ReadModels } from '../read-models.js';
import { busyTimes, schedulingProfileOf } from './queries.js';

/** How long a claim holds its slot: enough for the command to commit and the read model to show the post. */
const claimLifetime = '10 minutes';

/** Horizons tried in turn: the best slot within a month, else anything free within a quarter. */
const horizonsDays = [30, 90] as const;

const dayMs = 86_400_000;

export interface HistorySource {
  (
    orgId: string,
    query: { platform: Platform | null; timezone: string; since: string; contentType?: string | null },
  ): Promise<History>;
}

export interface BestSlotFinderOptions {
  db: Kysely<ReadModels>;
  /** The workspace's results by local weekday and hour (the analytics slice's post metrics). */
  history: HistorySource;
}

/** The workspace's results by local weekday and hour, from the analytics slice's post metrics. */
export function historySourceOf(db: Kysely<ReadModels>): HistorySource {
  return (orgId, query) => engagementHistory(db, { orgId, ...query });
}

/** The service's slot finder over these read models. */
export function bestSlotFinder(db: Kysely<ReadModels>): BestSlotFinder {
  return new BestSlotFinder({ db, history: historySourceOf(db) });
}

/** How far back results count. */
export const historyWindowDays = 365;

export function historySince(now: Date): string {
  return new Date(now.getTime() - historyWindowDays * dayMs).toISOString();
}

/** The text kept with the post: what chose the time, so an auditor can replay it (basis, window, score). */
export function scheduleReasonOf(slot: RankedSlot): string {
  return `Best free slot (basis: ${slot.basis}, score ${slot.score}): ${slot.reason}`;
}

export class BestSlotFinder implements SlotFinder {
  constructor(private readonly options: BestSlotFinderOptions) {}

  async findSlots(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: Platform }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>> {
    const { db } = this.options;
    const profile = await schedulingProfileOf(db, orgId);
    const placing = requests.map((r) => r.postId);
    const byPlatform = new Map<Platform, string[]>();
    for (const r of requests) byPlatform.set(r.platform, [...(byPlatform.get(r.platform) ?? []), r.postId]);
    const out: Record<string, SlotAssignment> = {};
    // Platforms in a fixed order, so two requests never wait on each other's locks in opposite orders.
    for (const platform of [...byPlatform.keys()].sort()) {
      const postIds = byPlatform.get(platform)!;
      const history = await this.options.history(orgId, {
        platform,
        timezone: profile.effectiveTimezone,
        since: historySince(now),
      });
      const slots = await this.placeOnPlatform(orgId, platform, postIds, placing, profile, history, now);
      postIds.forEach((postId, i) => {
        out[postId] = {
          scheduledForUtc: slots[i]!.scheduledForUtc,
          scheduleReason: scheduleReasonOf(slots[i]!),
        };
      });
    }
    return out;
  }

  private async placeOnPlatform(
    orgId: string,
    platform: Platform,
    postIds: readonly string[],
    placing: readonly string[],
    profile: SchedulingProfile,
    history: History,
    now: Date,
  ): Promise<RankedSlot[]> {
    return this.options.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`slots:${orgId}:${platform}`}, 0))`.execute(
        trx,
      );
      // Expired claims are dead weight: the read model holds those posts by now (or they never committed).
      await sql`delete from slot_claims where org_id = ${orgId} and platform = ${platform} and expires_at <= now()`.execute(
        trx,
      );
      for (const days of horizonsDays) {
        const window = {
          from: now.toISOString(),
          to: new Date(now.getTime() + (days + 2) * dayMs).toISOString(),
        };
        const scheduled = await busyTimes(trx, orgId, platform, window, placing);
        const slots = rankSlots({
          profile,
          platform,
          now: now.toISOString(),
          days,
          count: postIds.length,
          scheduled,
          history,
        });
        if (slots.length < postIds.length) continue;
        // Ranked best first; the first post takes the best. Times are then claimed for the posts in that order.
        for (const [i, postId] of postIds.entries()) {
          await sql`
            insert into slot_claims as c (org_id, platform, slot_start, post_id, expires_at)
            values (${orgId}, ${platform}, ${slots[i]!.scheduledForUtc}, ${postId}, now() + ${claimLifetime}::interval)
            on conflict (org_id, post_id) do update
              set platform = excluded.platform, slot_start = excluded.slot_start, expires_at = excluded.expires_at`.execute(
            trx,
          );
        }
        return slots;
      }
      throw new Conflict(
        `No free ${platform} slot in the next ${horizonsDays[horizonsDays.length - 1]} days: widen the posting ` +
          'windows, raise maxPostsPerDay, lower minGapMinutes or remove blackout dates, or give a time (scheduledForUtc)',
        'no_free_slot',
      );
    });
  }
}
