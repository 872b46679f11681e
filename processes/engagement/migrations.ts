// The reply inbox's refresh state, one row per workspace that refreshed its inbox: where each X source's last read
// ended (`cursors`: the newest post id seen per source, X's `since_id` for the next read), and the auto-refresh
// sweep's lease (one instance refreshes a workspace at a time; a crashed one's lease runs out), its last run and
// its failed tries.
import { sql, type Kysely, type Migration } from 'kysely';

export const engagementMigrations: Record<string, Migration> = {
  '0051_inbox_refresh_state': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table inbox_refresh_state (
          org_id uuid primary key,
          -- { "<source key>": "<newest post id seen>" }
          cursors jsonb not null default '{}'::jsonb,
          last_auto_refresh_at timestamptz,
          lease_owner text,
          lease_until timestamptz,
          attempts integer not null default 0,
          retry_at timestamptz,
          last_error text,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table inbox_refresh_state`.execute(db);
    },
  },
};

export interface InboxRefreshStateTable {
  org_id: string;
  cursors: Record<string, string>;
  last_auto_refresh_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  attempts: number;
  retry_at: string | null;
  last_error: string | null;
  updated_at: string;
}
