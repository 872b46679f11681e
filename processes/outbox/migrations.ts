// The outbox table: side effects a process decided on, written in the same transaction as its state and
// checkpoint, waiting to be handed to the bus. Row ids are deterministic and become the bus message ids.
import { sql, type Generated, type Kysely, type Migration } from 'kysely';

export const outboxMigrations: Record<string, Migration> = {
  '0003_outbox': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table outbox (
          id text primary key,
          destination text not null,
          payload jsonb not null,
          created_at timestamptz not null default now(),
          available_at timestamptz not null default now(),
          attempts int not null default 0,
          dispatched_at timestamptz null,
          last_error text null
        )`.execute(db);
      // Dispatchers only ever look for due, undispatched rows; dispatched ones stay out of the index.
      await sql`create index outbox_undispatched on outbox (available_at) where dispatched_at is null`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table outbox`.execute(db);
    },
  },
};

export interface OutboxTable {
  id: string;
  /** A bus queue name. */
  destination: string;
  payload: unknown;
  created_at: Generated<string>;
  available_at: Generated<string>;
  attempts: Generated<number>;
  dispatched_at: string | null;
  last_error: string | null;
}

export interface OutboxTables {
  outbox: OutboxTable;
}
