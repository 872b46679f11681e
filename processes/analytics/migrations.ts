// The metrics fetch schedule: one row per published post, written by the post-metrics-schedule process manager
// when the post is published, swept by the metrics fetcher (processes/analytics/metrics-fetcher.ts) under a
// per-row lease, so several instances never read the same post at once and a crashed one's rows are taken over;
// the platforms' request budgets, the refresh's fair use, and the daily follower-count reads per account.
import { sql, type Kysely, type Migration } from 'kysely';

export const analyticsMigrations: Record<string, Migration> = {
  '0024_post_metrics_fetches': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table post_metrics_fetches (
          post_id uuid primary key,
          org_id uuid not null,
          group_id uuid not null,
          external_id text not null,
          url text,
          published_at timestamptz not null,
          -- active: readings still to take; done: the last one is taken; stopped: the post or account is gone.
          status text not null default 'active' check (status in ('active', 'done', 'stopped')),
          next_fetch_at timestamptz,
          fetches integer not null default 0,
          -- Failed tries of the reading now due (reset by a reading).
          attempts integer not null default 0,
          last_error text,
          stopped_reason text,
          lease_owner text,
          lease_until timestamptz,
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`
        create index post_metrics_fetches_due on post_metrics_fetches (next_fetch_at)
        where status = 'active'`.execute(db);
      await sql`create index post_metrics_fetches_org on post_metrics_fetches (org_id, published_at)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table post_metrics_fetches`.execute(db);
    },
  },
  // Issue 28: the cadence slows with age up to 30 days. The reading time is kept on the row (a refresh decides
  // against it without reading the post's stream), and rows the old schedule finished (after its 7-day reading)
  // within 30 days of publication are taken up again at their next reading of the new one.
  '0038_post_metrics_cadence': {
    async up(db: Kysely<unknown>) {
      await sql`alter table post_metrics_fetches add column last_fetched_at timestamptz`.execute(db);
      await resumeFinishedReadings(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`alter table post_metrics_fetches drop column last_fetched_at`.execute(db);
    },
  },
  // The platforms' request budgets (processes/analytics/read-budget.ts): one row per platform, limit and scope.
  '0039_metrics_read_budgets': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table metrics_read_budgets (
          platform text not null,
          -- 'app', or the social account's id for a per-account limit.
          scope text not null,
          window_ms bigint not null,
          window_start timestamptz not null,
          used integer not null,
          -- What the last take granted (read back by the take itself).
          granted integer not null,
          primary key (platform, scope, window_ms)
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table metrics_read_budgets`.execute(db);
    },
  },
  // The analytics refresh's fair use per workspace and hour (commands/analytics/refresh-analytics.ts).
  '0040_analytics_refresh_windows': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table analytics_refresh_windows (
          org_id uuid primary key,
          window_start timestamptz not null,
          calls integer not null,
          posts integer not null,
          -- What the last reservation granted (read back by the reservation itself).
          granted integer not null default 0
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table analytics_refresh_windows`.execute(db);
    },
  },
  // Follower counts are read daily per connected account (processes/analytics/account-stats-reader.ts), under a
  // lease per row like the post metrics.
  '0041_account_stats_reads': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table account_stats_reads (
          social_account_id uuid primary key,
          org_id uuid not null,
          platform text not null,
          -- active: read daily; stopped: the account was removed.
          status text not null default 'active' check (status in ('active', 'stopped')),
          next_read_at timestamptz,
          last_read_at timestamptz,
          attempts integer not null default 0,
          last_error text,
          lease_owner text,
          lease_until timestamptz,
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`
        create index account_stats_reads_due on account_stats_reads (next_read_at)
        where status = 'active'`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table account_stats_reads`.execute(db);
    },
  },
};

/**
 * Rows the schedule before issue 28 finished (after its 7-day reading) that the 30-day cadence still has readings
 * for: active again, due at their next reading of the cadence after `now` (migration 0036). The cadence's offsets
 * as it was introduced, in hours after publication, are frozen here.
 */
export async function resumeFinishedReadings(db: Kysely<unknown>, now: Date = new Date()): Promise<number> {
  const at = now.toISOString();
  const result = await sql`
    update post_metrics_fetches f set status = 'active', next_fetch_at = due.at, updated_at = ${at}
    from (
      select post_id, (
        select min(published_at + make_interval(hours => h))
        from unnest(array[1, 6, 24, 168, 336, 504, 672, 720]) as h
        where published_at + make_interval(hours => h) > ${at}) as at
      from post_metrics_fetches where status = 'done') as due
    where f.post_id = due.post_id and due.at is not null`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface PostMetricsFetchesTable {
  post_id: string;
  org_id: string;
  group_id: string;
  external_id: string;
  url: string | null;
  published_at: string;
  status: 'active' | 'done' | 'stopped';
  next_fetch_at: string | null;
  fetches: number;
  attempts: number;
  last_error: string | null;
  stopped_reason: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  /** When the last reading was taken; null before one (and on rows read before issue 28). */
  last_fetched_at: string | null;
}

export interface AccountStatsReadsTable {
  social_account_id: string;
  org_id: string;
  platform: string;
  status: 'active' | 'stopped';
  next_read_at: string | null;
  last_read_at: string | null;
  attempts: number;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  updated_at: string;
}

export type PostMetricsFetchTables = {
  post_metrics_fetches: PostMetricsFetchesTable;
  account_stats_reads: AccountStatsReadsTable;
};
