// The daily X account reader's leases: one row per workspace it has read, held while an instance reads it (so two
// instances never read one workspace at once, and a crashed one's hold runs out), with the failed tries of the
// reading now due and when to try again.
import { sql, type Kysely, type Migration } from 'kysely';

export const xAccountReaderMigrations: Record<string, Migration> = {
  '0037_x_account_read_leases': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table x_account_read_leases (
          org_id uuid primary key,
          lease_owner text,
          lease_until timestamptz,
          -- Failed tries of the reading now due (reset by a reading), and when the next may start.
          attempts integer not null default 0,
          retry_at timestamptz,
          last_error text,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table x_account_read_leases`.execute(db);
    },
  },
};

export interface XAccountReadLeasesTable {
  org_id: string;
  lease_owner: string | null;
  lease_until: string | null;
  attempts: number;
  retry_at: string | null;
  last_error: string | null;
  updated_at: string;
}
