// Queries over the scheduling read models: a workspace's scheduling state and resolved profile, the times of
// its scheduled posts (and live slot claims) that new slots must keep clear of, and the posts coverage counts.
import { sql, type Kysely } from 'kysely';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import type { CoveragePost } from '../../domain/scheduling/coverage.js';
import { resolveProfile } from '../../domain/scheduling/profile.js';
import { initialSchedulingState, type SchedulingState } from '../../domain/scheduling/scheduling.js';
import type { SchedulingProfile } from '../../domain/scheduling/types.js';
import type { ReadModels } from '../read-models.js';
import type { SchedulingProfilesTable } from './scheduling-profiles-projection.js';

type Tables = ReadModels & { scheduling_profiles: SchedulingProfilesTable };

const tables = (db: Kysely<ReadModels>) => db as unknown as Kysely<Tables>;

/** The workspace's scheduling state as projected; the initial state (nothing set) for a workspace without one. */
export async function schedulingStateOf(db: Kysely<ReadModels>, orgId: string): Promise<SchedulingState> {
  const row = await tables(db)
    .selectFrom('scheduling_profiles')
    .select('state')
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return row ? row.state : initialSchedulingState;
}

/** The workspace's time zone (ORG/timezone), UTC until one is set: what a new post group is planned in. */
export async function workspaceTimezoneOf(db: Kysely<ReadModels>, orgId: string): Promise<string> {
  return (await schedulingStateOf(db, orgId)).timezone ?? 'UTC';
}

/**
 * The profile and the version of the workspace's history (projections/analytics: how many readings it took in),
 * in one statement: the slot finder needs both on every approval.
 */
export async function schedulingInputsOf(
  db: Kysely<ReadModels>,
  orgId: string,
): Promise<{ profile: SchedulingProfile; historyVersion: string }> {
  const { rows } = await sql<{ state: SchedulingState | null; version: string | null }>`
    select (select state from scheduling_profiles where org_id = ${orgId}) as state,
      (select version from post_metrics_versions where org_id = ${orgId})::text as version`.execute(db);
  const state = rows[0]?.state ?? initialSchedulingState;
  return { profile: resolveProfile(state.settings, state.timezone), historyVersion: rows[0]?.version ?? '0' };
}

export async function schedulingProfileOf(db: Kysely<ReadModels>, orgId: string): Promise<SchedulingProfile> {
  const state = await schedulingStateOf(db, orgId);
  return resolveProfile(state.settings, state.timezone);
}

/** The workspace's effective time zone (audience, else workspace, else UTC). */
export async function effectiveTimezoneOf(db: Kysely<ReadModels>, orgId: string): Promise<string> {
  return (await schedulingProfileOf(db, orgId)).effectiveTimezone;
}

export interface TimeWindow {
  /** ISO, inclusive. */
  from: string;
  /** ISO, exclusive. */
  to: string;
}

/**
 * Times new slots must keep clear of, as epoch milliseconds in order: scheduled (or publishing) posts of the
 * platform (every platform for null) in the window, and live claims of posts being placed right now
 * (`slot_busy_entries`, migration 0034).
 */
export async function busyTimes(
  db: Kysely<ReadModels>,
  orgId: string,
  platform: string | null,
  window: TimeWindow,
): Promise<number[]> {
  const { rows } = await sql<{ times: string | null }>`
    select string_agg((extract(epoch from b.at) * 1000)::bigint::text, ',' order by b.at) as times
    from slot_busy_entries(${orgId}, ${window.from}::timestamptz, ${window.to}::timestamptz) b
    where true
      ${platform === null ? sql`` : sql`and b.platform = ${platform}`}`.execute(db);
  const times = rows[0]?.times;
  return times ? times.split(',').map(Number) : [];
}

/** What the slot finder reads once it holds its locks (projections/scheduling/busy-times.ts). */
export interface SlotFinderRead {
  /** The scheduling state as stored (null: nothing set), for the finder to resolve the profile from. */
  stateText: string | null;
  historyVersion: string;
  /** The busy-times versions as this finder found them: `claims:posts:generation`. */
  key: string;
  /** The same once this finder's claims commit (its claims version moved on). */
  claimedKey: string;
  /**
   * The workspace's busy times in the window (`<platform> <postId> <epoch ms>`, comma-separated; '' for none) when
   * the snapshot the finder asked with is not at `key`; undefined when it is.
   */
  busy: string | undefined;
}

/**
 * Once the finder's transaction has begun: takes the locks (`slot_finder_read`, migration 0034), moves the
 * workspace's claims version (held until the claims commit), and reads the scheduling state, the history version,
 * the busy-times versions, and the busy times in the window unless the caller's snapshot is at those versions.
 * Also clears expired claims when asked.
 */
export async function slotFinderRead(
  db: Kysely<ReadModels>,
  orgId: string,
  options: {
    locks: readonly string[];
    snapshotKey: string | null;
    window: TimeWindow;
    sweepExpiredClaims: boolean;
    versionStart: number;
  },
): Promise<SlotFinderRead> {
  const { window } = options;
  const { rows } = await sql<{
    found_key: string;
    claimed_key: string;
    profile_state: string | null;
    history_version: string | null;
    busy_times: string | null;
  }>`
    select * from slot_finder_read(${orgId}, ${[...options.locks]}::bigint[], ${options.snapshotKey}::text,
      ${window.from}::timestamptz, ${window.to}::timestamptz, ${options.sweepExpiredClaims}::boolean,
      ${options.versionStart}::bigint)`.execute(db);
  const row = rows[0]!;
  return {
    stateText: row.profile_state,
    historyVersion: row.history_version ?? '0',
    key: row.found_key,
    claimedKey: row.claimed_key,
    busy: row.found_key === options.snapshotKey ? undefined : (row.busy_times ?? ''),
  };
}

/**
 * Per channel, the posts schedule coverage counts: dated posts in the window (scheduled or being published at
 * their time, published at theirs) and posts waiting for approval (planned in the window, or not planned).
 * Channels are the platforms of the workspace's connected accounts and of any post counted.
 */
export async function coveragePosts(
  db: Kysely<ReadModels>,
  orgId: string,
  window: TimeWindow,
): Promise<Array<{ platform: Platform; posts: CoveragePost[] }>> {
  const [{ rows }, accounts] = await Promise.all([
    sql<{ platform: Platform; status: string; at: Date | string | null }>`
      select platform, status,
        case when status = 'published'
          then coalesce((body->>'lastAttemptAt')::timestamptz, scheduled_for_utc, updated_at)
          else scheduled_for_utc end as at
      from posts
      where org_id = ${orgId}
        and (
          (status in ('scheduled', 'publishing', 'awaiting_platform')
            and scheduled_for_utc >= ${window.from} and scheduled_for_utc < ${window.to})
          or (status = 'published' and coalesce((body->>'lastAttemptAt')::timestamptz, scheduled_for_utc, updated_at)
            between ${window.from} and ${window.to})
          or (status = 'pending_approval'
            and (scheduled_for_utc is null or (scheduled_for_utc >= ${window.from} and scheduled_for_utc < ${window.to})))
        )`.execute(db),
    db
      .selectFrom('social_accounts')
      .select('platform')
      .distinct()
      .where('org_id', '=', orgId)
      .where('deleted', '=', false)
      .execute(),
  ]);
  const byPlatform = new Map<Platform, CoveragePost[]>();
  for (const a of accounts) byPlatform.set(a.platform as Platform, []);
  for (const r of rows) {
    const posts = byPlatform.get(r.platform) ?? [];
    byPlatform.set(r.platform, posts);
    posts.push({
      status:
        r.status === 'published'
          ? 'published'
          : r.status === 'pending_approval'
            ? 'pending_approval'
            : 'scheduled',
      at: r.at === null ? null : new Date(r.at).toISOString(),
    });
  }
  return platforms
    .filter((p) => byPlatform.has(p))
    .map((platform) => ({ platform, posts: byPlatform.get(platform)! }));
}
