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
import { HistoryCache } from '../analytics/queries.js';
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
  let cache = historyCaches.get(db);
  if (!cache) historyCaches.set(db, (cache = new HistoryCache(db)));
  const shared = cache;
  return (orgId, query) => shared.history({ orgId, ...query });
}

/** One history cache per database handle (per process), shared by the routes, the tools and the finder. */
const historyCaches = new WeakMap<Kysely<ReadModels>, HistoryCache>();

/** The service's slot finder over these read models. */
export function bestSlotFinder(db: Kysely<ReadModels>): BestSlotFinder {
  return new BestSlotFinder({ db, history: historySourceOf(db) });
}

/** How far back results count. */
export const historyWindowDays = 365;

/** The start of the UTC day a year back: the same for a whole day, so cached histories stay usable. */
export function historySince(now: Date): string {
  const dayStart = Math.floor(now.getTime() / dayMs) * dayMs;
  return new Date(dayStart - historyWindowDays * dayMs).toISOString();
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
    // Platforms in a fixed order, so two requests never wait on each other's locks in opposite orders.
    const platforms = [...byPlatform.keys()].sort();
    const histories = await Promise.all(
      platforms.map((platform) =>
        this.options.history(orgId, {
          platform,
          timezone: profile.effectiveTimezone,
          since: historySince(now),
        }),
      ),
    );
    return db.transaction().execute(async (trx) => {
      await sql`select ${sql.join(
        platforms.map((p) => sql`pg_advisory_xact_lock(hashtextextended(${`slots:${orgId}:${p}`}, 0))`),
      )}`.execute(trx);
      const out: Record<string, SlotAssignment> = {};
      const claims: Array<{ platform: Platform; postId: string; at: string }> = [];
      for (const [i, platform] of platforms.entries()) {
        const postIds = byPlatform.get(platform)!;
        const slots = await this.bestOnPlatform(
          trx,
          orgId,
          platform,
          postIds.length,
          placing,
          profile,
          histories[i]!,
          now,
        );
        // Ranked best first; the posts take them in the order they were asked for.
        postIds.forEach((postId, n) => {
          out[postId] = {
            scheduledForUtc: slots[n]!.scheduledForUtc,
            scheduleReason: scheduleReasonOf(slots[n]!),
          };
          claims.push({ platform, postId, at: slots[n]!.scheduledForUtc });
        });
      }
      await sql`
        insert into slot_claims as c (org_id, platform, slot_start, post_id, expires_at)
        select ${orgId}, platform, slot_start, post_id, now() + ${claimLifetime}::interval
        from unnest(${claims.map((c) => c.platform)}::text[], ${claims.map((c) => c.at)}::timestamptz[],
          ${claims.map((c) => c.postId)}::uuid[]) as t(platform, slot_start, post_id)
        on conflict (org_id, post_id) do update
          set platform = excluded.platform, slot_start = excluded.slot_start, expires_at = excluded.expires_at`.execute(
        trx,
      );
      return out;
    });
  }

  /** The best `count` slots of the platform that fit together, within a month, else within a quarter. */
  private async bestOnPlatform(
    trx: Kysely<ReadModels>,
    orgId: string,
    platform: Platform,
    count: number,
    placing: readonly string[],
    profile: SchedulingProfile,
    history: History,
    now: Date,
  ): Promise<RankedSlot[]> {
    for (const days of horizonsDays) {
      const window = {
        from: now.toISOString(),
        to: new Date(now.getTime() + (days + 2) * dayMs).toISOString(),
      };
      const scheduled = await busyTimes(trx, orgId, platform, window, placing, { sweepExpiredClaims: true });
      const slots = rankSlots({ profile, platform, now: now.toISOString(), days, count, scheduled, history });
      if (slots.length >= count) return slots;
    }
    throw new Conflict(
      `No free ${platform} slot in the next ${horizonsDays[horizonsDays.length - 1]} days: widen the posting ` +
        'windows, raise maxPostsPerDay, lower minGapMinutes or remove blackout dates, or give a time (scheduledForUtc)',
      'no_free_slot',
    );
  }
}
