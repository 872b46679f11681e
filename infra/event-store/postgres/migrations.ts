// Tables of the PostgreSQL event store. tx_id (xid8) + position order the global log; see postgres-event-store.ts.
import { sql, type Kysely, type Migration } from 'kysely';

export const eventStoreMigrations: Record<string, Migration> = {
  '0001_event_store': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table es_streams (
          stream_name text primary key,
          revision bigint not null
        )`.execute(db);
      await sql`
        create table es_events (
          position bigint generated always as identity primary key,
          tx_id xid8 not null default pg_current_xact_id(),
          event_id uuid not null unique,
          stream_name text not null,
          revision bigint not null,
          type text not null,
          data jsonb not null,
          metadata jsonb not null,
          recorded_at timestamptz not null default now(),
          unique (stream_name, revision)
        )`.execute(db);
      await sql`create index es_events_global_order on es_events (tx_id, position)`.execute(db);
    },
  },
};

export interface EventStoreTables {
  es_streams: { stream_name: string; revision: string };
  es_events: {
    position: string;
    tx_id: string;
    event_id: string;
    stream_name: string;
    revision: string;
    type: string;
    data: unknown;
    metadata: unknown;
    recorded_at: string;
  };
}
