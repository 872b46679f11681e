// The metrics fetch schedule: one row per published post, written by the post-metrics-schedule process manager
// when the post is published, swept by the metrics fetcher (processes/analytics/metrics-fetcher.ts) under a
// per-row lease, so several instances never read the same post at once and a crashed one's rows are taken over.
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
};

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
}

export type PostMetricsFetchTables = { post_metrics_fetches: PostMetricsFetchesTable };
