// The research slice's own tables (issue 31, part 3), not read models: the last read of each news feed a workspace
// configures (so a feed is fetched at most once per TTL whoever asks) and the last live trends a workspace
// researched (what get_trending_topics answers without spending anything).
import { sql, type Kysely, type Migration } from 'kysely';

export const researchMigrations: Record<string, Migration> = {
  '0048_research_caches': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table research_feed_reads (
          org_id uuid not null,
          url text not null,
          -- The last good read: when, the feed's title and its entries (null before any).
          fetched_at timestamptz,
          title text,
          entries jsonb,
          -- The last failed read since the last good one: when, and why in words a member may read.
          failed_at timestamptz,
          error text,
          primary key (org_id, url)
        )`.execute(db);
      await sql`
        create table research_trends (
          org_id uuid primary key,
          fetched_at timestamptz not null,
          -- {source, topics[]}: what find_trending_topics answered last.
          answer jsonb not null
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table research_trends`.execute(db);
      await sql`drop table research_feed_reads`.execute(db);
    },
  },
};
