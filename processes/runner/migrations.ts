// Checkpoints and leases of process managers: one row per process, written in each batch's transaction
// together with the process state and its outbox rows.
import { sql, type Kysely, type Migration } from 'kysely';

export const processRunnerMigrations: Record<string, Migration> = {
  '0004_processes': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table process_checkpoints (
          name text primary key,
          checkpoint text not null,
          events_processed bigint not null default 0,
          lease_owner text,
          lease_expires_at timestamptz,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
  },
};
