// Queries over the scheduling read models: a workspace's scheduling state and resolved profile, the times of
// its scheduled posts (and live slot claims) that new slots must keep clear of, and the posts coverage counts.
import { sql, type Kysely } from 'kysely';
import { platforms, type Platform } from '../../domain/post-groups/post-content.js';
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
 * Times new slots must keep clear of, one per post: scheduled (or publishing) posts of the platform (every
 * platform for null) in the window, and live claims of posts being placed right now (a claim is newer than the
 * read model's time of its post). Posts in `exclude` are the ones being placed: they do not block themselves.
 */
export async function busyTimes(
  db: Kysely<ReadModels>,
  orgId: string,
  platform: string | null,
  window: TimeWindow,
  exclude: readonly string[] = [],
): Promise<string[]> {
  const byPlatform = await busyTimesByPlatform(
    db,
    orgId,
    platform === null ? null : [platform],
    window,
    exclude,
  );
  return [...byPlatform.values()].flat().sort();
}

/**
 * busyTimes of several platforms in one statement, by platform (null: every platform). The slot finder also clears
 * the workspace's expired claims in it (the read model holds those posts by now, or they never committed).
 */
export async function busyTimesByPlatform(
  db: Kysely<ReadModels>,
  orgId: string,
  platforms: readonly string[] | null,
  window: TimeWindow,
  exclude: readonly string[] = [],
): Promise<Map<string, string[]>> {
  const { rows } = await sql<BusyRow>`${busyRows(orgId, platforms, window, exclude)}`.execute(db);
  return byPlatform(rows);
}

/**
 * What the slot finder reads once it holds the locks, in one statement: the scheduling state, the version of the
 * workspace's history, and the busy times of the platforms in the window (also clearing expired claims when asked).
 */
export async function slotFinderInputs(
  db: Kysely<ReadModels>,
  orgId: string,
  platforms: readonly string[],
  window: TimeWindow,
  exclude: readonly string[],
  options: { sweepExpiredClaims: boolean },
): Promise<{ profile: SchedulingProfile; historyVersion: string; busy: Map<string, string[]> }> {
  const sweep = options.sweepExpiredClaims
    ? sql`with swept as (delete from slot_claims where org_id = ${orgId} and expires_at <= now() returning 1)`
    : sql``;
  const { rows } = await sql<{
    state: SchedulingState | null;
    version: string | null;
    busy: string[] | null;
  }>`
    ${sweep}
    select (select state from scheduling_profiles where org_id = ${orgId}) as state,
      (select version from post_metrics_versions where org_id = ${orgId})::text as version,
      (select array_agg(platform || ' ' || to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        from (${busyRows(orgId, platforms, window, exclude)}) b) as busy`.execute(db);
  const row = rows[0];
  const state = row?.state ?? initialSchedulingState;
  // `<platform> <ISO instant>` each, already in toISOString's form (to_char above): no Date round trip.
  const busy = new Map<string, string[]>();
  for (const entry of row?.busy ?? []) {
    const space = entry.indexOf(' ');
    const platform = entry.slice(0, space);
    const times = busy.get(platform) ?? [];
    times.push(entry.slice(space + 1));
    busy.set(platform, times);
  }
  for (const times of busy.values()) times.sort();
  return {
    profile: resolveProfile(state.settings, state.timezone),
    historyVersion: row?.version ?? '0',
    busy,
  };
}

interface BusyRow {
  platform: string;
  at: Date | string;
}

/**
 * One row per post that new slots must keep clear of: live claims, and scheduled posts without one (a claim is
 * newer than the read model's time of its post; a claim outside the window still leaves its post out, which at
 * worst frees its old time).
 */
function busyRows(
  orgId: string,
  platforms: readonly string[] | null,
  window: TimeWindow,
  exclude: readonly string[],
) {
  const platformFilter = platforms === null ? sql`` : sql`and platform = any(${[...platforms]}::text[])`;
  const excluded = exclude.length > 0 ? sql`and post_id <> all(${[...exclude]}::uuid[])` : sql``;
  // The workspace's live claims read once: listed themselves, and (hashed) to leave out their posts.
  return sql`
    with live as materialized (
      select post_id, platform, slot_start from slot_claims where org_id = ${orgId} and expires_at > now()
    )
    select platform, at from (
      select post_id, platform, slot_start as at from live
      where slot_start >= ${window.from} and slot_start < ${window.to} ${platformFilter}
      union all
      select id, platform, scheduled_for_utc from posts
      where org_id = ${orgId} ${platformFilter}
        and status in ('scheduled', 'publishing')
        and scheduled_for_utc >= ${window.from} and scheduled_for_utc < ${window.to}
        and id not in (select post_id from live)
    ) busy
    where true ${excluded}`;
}

function byPlatform(rows: readonly BusyRow[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const times = out.get(r.platform) ?? [];
    times.push(new Date(r.at).toISOString());
    out.set(r.platform, times);
  }
  for (const times of out.values()) times.sort();
  return out;
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
