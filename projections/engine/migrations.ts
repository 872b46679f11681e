// The projection catalog: one row per generation (build) of each projection, with its checkpoint and lease.
// At most one serving and one building generation per projection, enforced by partial unique indexes.
import { sql, type Kysely, type Migration } from 'kysely';

export const projectionEngineMigrations: Record<string, Migration> = {
  '0002_projections': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table projections (
          name text not null,
          generation integer not null,
          version integer not null,
          schema_name text not null unique,
          status text not null check (status in ('building', 'serving', 'retired')),
          -- the logical tables of this generation, so a switch knows which public views to replace or drop
          tables text[] not null,
          checkpoint text not null,
          events_processed bigint not null default 0,
          lease_owner text,
          lease_expires_at timestamptz,
          started_at timestamptz not null default now(),
          updated_at timestamptz not null default now(),
          caught_up_at timestamptz,
          primary key (name, generation)
        )`.execute(db);
      await sql`create unique index projections_one_serving on projections (name) where status = 'serving'`.execute(
        db,
      );
      await sql`create unique index projections_one_building on projections (name) where status = 'building'`.execute(
        db,
      );
    },
  },
};

export interface ProjectionsTable {
  projections: {
    name: string;
    generation: number;
    version: number;
    schema_name: string;
    status: 'building' | 'serving' | 'retired';
    tables: string[];
    checkpoint: string;
    events_processed: string;
    lease_owner: string | null;
    lease_expires_at: string | null;
    started_at: string;
    updated_at: string;
    caught_up_at: string | null;
  };
}
