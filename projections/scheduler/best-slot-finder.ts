// The slot finder behind approve (`autoSchedule`) and schedule (`useBestSlot`): the best free slot of the
// workspace's scheduling profile and history (domain/scheduling/slots.ts), clear of every scheduled post of
// the platform by `minGapMinutes` and of full days.
//
// The read model shows a post only once its command has committed and been projected, so each chosen slot is
// also claimed in `slot_claims` for a few minutes. Choosing and claiming happen in one transaction under a
// lock of the workspace and platform: a concurrent approval waits, then sees the claim and keeps clear of it.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { SlotFinder } from '../../commands/post-groups/post-group-commands.js';
import type { SlotAssignment } from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/post-groups/post-content.js';
import { Conflict } from '../../domain/shared/errors.js';
import { rankSlots } from '../../domain/scheduling/slots.js';
import type { History, RankedSlot, SchedulingProfile } from '../../domain/scheduling/types.js';
import { HistoryCache } from '../analytics/queries.js';
import type { ReadModels } from '../read-models.js';
import { busyTimesByPlatform, schedulingInputsOf } from './queries.js';

/** How long a claim holds its slot: enough for the command to commit and the read model to show the post. */
const claimLifetime = '10 minutes';

/** Horizons tried in turn: the best slot within two weeks, else within a month, else within a quarter. */
const horizonsDays = [14, 30, 90] as const;

const dayMs = 86_400_000;

/** Expired claims of a workspace are cleared at most this often per process. */
const sweepEveryMs = 60_000;

export interface HistorySource {
  (
    orgId: string,
    query: { platform: Platform | null; timezone: string; since: string; contentType?: string | null },
    /** The workspace's history version, when already read (a cache need not read it again). */
    version?: string,
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
  return (orgId, query, version) => shared.history({ orgId, ...query }, version);
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
  /** When this process last cleared each workspace's expired claims (they are skipped by every read anyway). */
  private readonly swept = new Map<string, number>();

  constructor(private readonly options: BestSlotFinderOptions) {}

  private sweepDue(orgId: string): boolean {
    const now = Date.now();
    if (now - (this.swept.get(orgId) ?? 0) < sweepEveryMs) return false;
    if (this.swept.size >= 10_000) this.swept.clear();
    this.swept.set(orgId, now);
    return true;
  }

  async findSlots(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: Platform }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>> {
    const { db } = this.options;
    const { profile, historyVersion } = await schedulingInputsOf(db, orgId);
    const placing = requests.map((r) => r.postId);
    const byPlatform = new Map<Platform, string[]>();
    for (const r of requests) byPlatform.set(r.platform, [...(byPlatform.get(r.platform) ?? []), r.postId]);
    // Platforms in a fixed order, so two requests never wait on each other's locks in opposite orders.
    const platforms = [...byPlatform.keys()].sort();
    const since = historySince(now);
    const histories = await Promise.all(
      platforms.map((platform) =>
        this.options.history(orgId, { platform, timezone: profile.effectiveTimezone, since }, historyVersion),
      ),
    );
    // One connection, its statements queued back to back (the pg client sends each as the one before finishes,
    // without waiting for this request's turn on the event loop): the lock is held from `lock` to `commit` for the
    // busy-times read, the ranking and the insert only, however busy the process is.
    return db.connection().execute(async (conn) => {
      const within = (days: number) => ({
        from: now.toISOString(),
        to: new Date(now.getTime() + (days + 2) * dayMs).toISOString(),
      });
      // `begin` and the locks in one simple-protocol statement (the keys are numbers computed here), then the busy
      // times of the first horizon: it starts once the locks are granted, so a concurrent finder's claims are
      // committed and seen.
      const [, near] = await settled(conn, [
        sql
          .raw(
            `begin; select ${platforms.map((p) => `pg_advisory_xact_lock(${lockKey(orgId, p)})`).join(', ')}`,
          )
          .execute(conn),
        busyTimesByPlatform(conn, orgId, platforms, within(horizonsDays[0]), placing, {
          sweepExpiredClaims: this.sweepDue(orgId),
        }),
      ] as const);
      // Only when the first horizon is full: the busy times of the longest one.
      let far: Map<string, string[]> | undefined;
      const busyFor = async (platform: Platform, days: number) => {
        if (days === horizonsDays[0]) return near.get(platform) ?? [];
        far ??= await busyTimesByPlatform(
          conn,
          orgId,
          platforms,
          within(horizonsDays[horizonsDays.length - 1]!),
          placing,
        );
        return far.get(platform) ?? [];
      };
      const out: Record<string, SlotAssignment> = {};
      const claims: Array<{ platform: Platform; postId: string; at: string }> = [];
      try {
        for (const [i, platform] of platforms.entries()) {
          const postIds = byPlatform.get(platform)!;
          const slots = await bestOnPlatform(platform, postIds.length, busyFor, profile, histories[i]!, now);
          // Ranked best first; the posts take them in the order they were asked for.
          postIds.forEach((postId, n) => {
            out[postId] = {
              scheduledForUtc: slots[n]!.scheduledForUtc,
              scheduleReason: scheduleReasonOf(slots[n]!),
            };
            claims.push({ platform, postId, at: slots[n]!.scheduledForUtc });
          });
        }
      } catch (error) {
        await sql`rollback`.execute(conn);
        throw error;
      }
      await settled(conn, [
        sql`
          insert into slot_claims as c (org_id, platform, slot_start, post_id, expires_at)
          select ${orgId}, platform, slot_start, post_id, now() + ${claimLifetime}::interval
          from unnest(${claims.map((c) => c.platform)}::text[], ${claims.map((c) => c.at)}::timestamptz[],
            ${claims.map((c) => c.postId)}::uuid[]) as t(platform, slot_start, post_id)
          on conflict (org_id, post_id) do update
            set platform = excluded.platform, slot_start = excluded.slot_start, expires_at = excluded.expires_at`.execute(
          conn,
        ),
        sql`commit`.execute(conn),
      ] as const);
      return out;
    });
  }
}

/** The advisory lock of a workspace's slots on one platform: 64 bits of a SHA-256, as a literal. */
function lockKey(orgId: string, platform: Platform): string {
  return createHash('sha256').update(`slots:${orgId}:${platform}`).digest().readBigInt64BE(0).toString();
}

/**
 * Waits for statements queued on one connection inside a transaction; if one failed, rolls the transaction back
 * (after every queued statement has finished) and throws its error.
 */
async function settled<T extends readonly unknown[]>(
  conn: Kysely<ReadModels>,
  statements: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const results = await Promise.allSettled(statements);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await sql`rollback`.execute(conn).catch(() => undefined);
    throw failed.reason;
  }
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** The best `count` slots of the platform that fit together: within two weeks, else a month, else a quarter. */
async function bestOnPlatform(
  platform: Platform,
  count: number,
  busyFor: (platform: Platform, days: number) => Promise<readonly string[]>,
  profile: SchedulingProfile,
  history: History,
  now: Date,
): Promise<RankedSlot[]> {
  for (const days of horizonsDays) {
    const scheduled = await busyFor(platform, days);
    const slots = rankSlots({ profile, platform, now: now.toISOString(), days, count, scheduled, history });
    if (slots.length >= count) return slots;
  }
  throw new Conflict(
    `No free ${platform} slot in the next ${horizonsDays[horizonsDays.length - 1]} days: widen the posting ` +
      'windows, raise maxPostsPerDay, lower minGapMinutes or remove blackout dates, or give a time (scheduledForUtc)',
    'no_free_slot',
  );
}
