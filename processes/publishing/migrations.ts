// The publishing sweep's lease: one instance at a time turns due posts into jobs (any instance runs the jobs).
import { sql, type Kysely, type Migration } from 'kysely';

export const publishingMigrations: Record<string, Migration> = {
  '0010_publishing_lease': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table if not exists publishing_leases (
          name text primary key,
          owner text not null,
          expires_at timestamptz not null
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table publishing_leases`.execute(db);
    },
  },
};
