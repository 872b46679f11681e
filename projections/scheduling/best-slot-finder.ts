// The slot finder behind approve (`autoSchedule`) and schedule (`useBestSlot`): the best free slot of the
// workspace's scheduling profile and history (domain/scheduling/slots.ts), clear of every scheduled post of
// the platform by `minGapMinutes` and of full days.
//
// The read model shows a post only once its command has committed and been projected, so each chosen slot is
// also claimed in `slot_claims` for a few minutes. Choosing and claiming happen in one transaction under a
// lock of the workspace and platform: a concurrent approval waits, then sees the claim and keeps clear of it.
// The busy times themselves are kept in the instance between approvals and read again only when the workspace's
// versions moved (busy-times.ts): an approval usually reads a few versions, not the workspace's schedule.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { SlotFinder } from '../../commands/post-groups/post-group-commands.js';
import type { SlotAssignment } from '../../domain/post-groups/post-group.js';
import { platforms as platformValues, type Platform } from '../../domain/shared/platforms.js';
import { Conflict } from '../../domain/shared/errors.js';
import { rankSlots } from '../../domain/scheduling/slots.js';
import type { History, RankedSlot, SchedulingProfile } from '../../domain/scheduling/types.js';
import { HistoryCache } from '../analytics/queries.js';
import type { SlotFinderMetrics } from '../../infra/metrics/metrics.js';
import type { ReadModels } from '../read-models.js';
import { resolveProfile } from '../../domain/scheduling/profile.js';
import { initialSchedulingState, type SchedulingState } from '../../domain/scheduling/scheduling.js';
import { PerKeyQueue } from '../../infra/async/per-key-queue.js';
import { BusySnapshot, Lru, versionStart } from './busy-times.js';
import { slotFinderRead } from './queries.js';

/** How long a claim holds its slot: enough for the command to commit and the read model to show the post. */
const claimLifetime = '10 minutes';

/** Horizons tried in turn: the best slot within two weeks, else within a month, else within a quarter. */
const horizonsDays = [14, 30, 90] as const;
const longestHorizon = horizonsDays[horizonsDays.length - 1]!;

const dayMs = 86_400_000;

/**
 * A workspace's busy times are read anew at least this often, though the versions still match: a snapshot may hold
 * claims that expired since (busy-times.ts), never too little. Expired claims are cleared with each such read.
 */
const snapshotLifetimeMs = 60_000;

export interface HistorySource {
  (
    orgId: string,
    query: { platform: Platform | null; timezone: string; since: string; contentType?: string | null },
    /** The workspace's history version (read with the profile): a cached history is used while it holds. */
    version: string,
    /** The connection to read through (the slot finder's, which holds the locks). */
    db?: Kysely<ReadModels>,
  ): Promise<History>;
}

export interface BestSlotFinderOptions {
  db: Kysely<ReadModels>;
  /** The workspace's results by local weekday and hour (the analytics slice's post metrics). */
  history: HistorySource;
  metrics?: SlotFinderMetrics;
}

/** The workspace's results by local weekday and hour, from the analytics slice's post metrics. */
export function historySourceOf(db: Kysely<ReadModels>): HistorySource {
  let cache = historyCaches.get(db);
  if (!cache) historyCaches.set(db, (cache = new HistoryCache(db)));
  const shared = cache;
  return (orgId, query, version, through) => shared.history({ orgId, ...query }, version, through);
}

/** One history cache per database handle (per process), shared by the routes, the tools and the finder. */
const historyCaches = new WeakMap<Kysely<ReadModels>, HistoryCache>();

/** The service's slot finder over these read models. */
export function bestSlotFinder(
  db: Kysely<ReadModels>,
  options: { metrics?: SlotFinderMetrics } = {},
): BestSlotFinder {
  return new BestSlotFinder({ db, history: historySourceOf(db), ...options });
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
  /** Each workspace's busy times as this process last read them (busy-times.ts). */
  private readonly snapshots = new Lru<BusySnapshot>();
  /** Each workspace's profile, resolved from the stored state it was read as. */
  private readonly profiles = new Lru<{ stateText: string | null; profile: SchedulingProfile }>();
  /** Finders of one workspace one after another in this process (across processes, the advisory locks). */
  private readonly queue = new PerKeyQueue();

  constructor(private readonly options: BestSlotFinderOptions) {}

  private profileOf(orgId: string, stateText: string | null): SchedulingProfile {
    const held = this.profiles.get(orgId);
    if (held && held.stateText === stateText) return held.profile;
    const state = stateText === null ? initialSchedulingState : (JSON.parse(stateText) as SchedulingState);
    const profile = resolveProfile(state.settings, state.timezone);
    this.profiles.set(orgId, { stateText, profile });
    return profile;
  }

  findSlots(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: Platform }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>> {
    return this.queue.run(orgId, () => this.findSlotsNow(orgId, requests, now));
  }

  private async findSlotsNow(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: Platform }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>> {
    const placing = new Set(requests.map((r) => r.postId));
    const byPlatform = new Map<Platform, string[]>();
    for (const r of requests) byPlatform.set(r.platform, [...(byPlatform.get(r.platform) ?? []), r.postId]);
    // Platforms in a fixed order, so two requests never wait on each other's locks in opposite orders.
    const platforms = [...byPlatform.keys()].sort();
    const nowMs = now.getTime();
    const held = this.snapshots.get(orgId);
    const usable =
      held &&
      nowMs >= held.readAt &&
      nowMs - held.readAt < snapshotLifetimeMs &&
      held.coversTo >= nowMs + (longestHorizon + 2) * dayMs;
    // From a day back, as the slots endpoint reads: a post due a moment ago still keeps the next slots away.
    const readFrom = nowMs - dayMs;
    const readTo = nowMs + (longestHorizon + 3) * dayMs;
    // One connection and three statements: `begin`; the locks, then the versions, profile and history version
    // (and the busy times unless this process's snapshot is current), read once the locks are granted so a
    // concurrent finder's claims are committed and seen; the claims with `commit`. The pg client sends each
    // queued statement as the one before finishes, so the locks are held for the ranking in between, however
    // busy the process is.
    return this.options.db.connection().execute(async (conn) => {
      const [, read] = await settled(conn, [
        sql.raw('begin').execute(conn),
        slotFinderRead(conn, orgId, {
          locks: platforms.map((p) => lockKey(orgId, p)),
          snapshotKey: usable ? held.key : null,
          window: { from: new Date(readFrom).toISOString(), to: new Date(readTo).toISOString() },
          // Expired claims (skipped by every read anyway) cleared whenever the busy times are read again: at least
          // once a minute for a workspace that is approving.
          sweepExpiredClaims: !usable,
          versionStart: versionStart(),
        }),
      ] as const);
      const out: Record<string, SlotAssignment> = {};
      const claims: Array<{ platform: Platform; postId: string; at: string }> = [];
      let snapshot: BusySnapshot;
      try {
        snapshot =
          read.busy === undefined && usable
            ? held
            : BusySnapshot.parse(read.key, read.busy ?? '', nowMs, readTo);
        const profile = this.profileOf(orgId, read.stateText);
        this.options.metrics?.slotFinderBusyTimes(snapshot === held ? 'snapshot' : 'database');
        const since = historySince(now);
        // Cached until a reading of the workspace is projected: a query only when something changed.
        const histories = await Promise.all(
          platforms.map((platform) =>
            this.options.history(
              orgId,
              { platform, timezone: profile.effectiveTimezone, since },
              read.historyVersion,
              // Through this connection: waiting for another from the pool while holding the locks could wait on
              // requests that wait for these locks.
              conn,
            ),
          ),
        );
        for (const [i, platform] of platforms.entries()) {
          const postIds = byPlatform.get(platform)!;
          const busyFor = (days: number) =>
            snapshot.times(platform, readFrom, nowMs + (days + 2) * dayMs, placing);
          const slots = bestOnPlatform(platform, postIds.length, busyFor, profile, histories[i]!, now);
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
        this.snapshots.delete(orgId);
        await sql`rollback`.execute(conn);
        throw error;
      }
      try {
        await settled(conn, [sql.raw(`${claimsInsert(orgId, claims)}; commit`).execute(conn)] as const);
      } catch (error) {
        this.snapshots.delete(orgId);
        throw error;
      }
      // Committed: the snapshot holds this finder's claims at the claims version it moved to.
      snapshot.claimed(read.claimedKey, claims);
      this.snapshots.set(orgId, snapshot);
      return out;
    });
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The claims as one statement with literal values, so it goes with `commit` in one simple-protocol round trip.
 * Every value is checked against its exact shape first (ids are canonical UUIDs, platforms the enum, times our
 * own ISO strings): nothing else can reach the text.
 */
function claimsInsert(
  orgId: string,
  claims: ReadonlyArray<{ platform: Platform; postId: string; at: string }>,
) {
  const literal = (value: string, ok: boolean) => {
    if (!ok) throw new Error(`Refusing to write ${JSON.stringify(value)} into a slot claim`);
    return `'${value}'`;
  };
  const rows = claims.map(
    (c) =>
      `(${literal(orgId, uuidPattern.test(orgId))}::uuid, ${literal(c.platform, (platformValues as readonly string[]).includes(c.platform))}, ` +
      `${literal(c.at, instantPattern.test(c.at))}::timestamptz, ${literal(c.postId, uuidPattern.test(c.postId))}::uuid, ` +
      `now() + interval '${claimLifetime}')`,
  );
  return (
    `insert into slot_claims as c (org_id, platform, slot_start, post_id, expires_at) values ${rows.join(', ')} ` +
    'on conflict (org_id, post_id) do update ' +
    'set platform = excluded.platform, slot_start = excluded.slot_start, expires_at = excluded.expires_at'
  );
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
function bestOnPlatform(
  platform: Platform,
  count: number,
  busyFor: (days: number) => readonly number[],
  profile: SchedulingProfile,
  history: History,
  now: Date,
): RankedSlot[] {
  for (const days of horizonsDays) {
    const scheduled = busyFor(days);
    const slots = rankSlots({ profile, platform, now: now.toISOString(), days, count, scheduled, history });
    if (slots.length >= count) return slots;
  }
  throw new Conflict(
    `No free ${platform} slot in the next ${longestHorizon} days: widen the posting ` +
      'windows, raise maxPostsPerDay, lower minGapMinutes or remove blackout dates, or give a time (scheduledForUtc)',
    'no_free_slot',
  );
}
