// Slot claims: a post being placed by the slot finder holds its time here for a few minutes, until its
// command has committed and the posts read model shows it. Concurrent approvals cannot take the same slot.
import { sql, type Kysely, type Migration } from 'kysely';

export const slotClaimMigrations: Record<string, Migration> = {
  '0006_slot_claims': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table slot_claims (
          org_id uuid not null,
          platform text not null,
          slot_start timestamptz not null,
          post_id uuid not null,
          expires_at timestamptz not null,
          primary key (org_id, platform, slot_start)
        )`.execute(db);
      await sql`create index slot_claims_expires_at on slot_claims (expires_at)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table slot_claims`.execute(db);
    },
  },
  // The best-slot finder keeps posts `minGapMinutes` apart rather than in distinct quarter hours, and takes its
  // slots under a lock of the workspace and platform: a claim is the post's (one live claim per post), and two
  // posts may share a start when the workspace allows no gap.
  '0023_slot_claims_per_post': {
    async up(db: Kysely<unknown>) {
      await sql`delete from slot_claims`.execute(db);
      await sql`alter table slot_claims drop constraint slot_claims_pkey`.execute(db);
      await sql`alter table slot_claims add primary key (org_id, post_id)`.execute(db);
      await sql`create index slot_claims_org_platform_start on slot_claims (org_id, platform, slot_start)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index slot_claims_org_platform_start`.execute(db);
      await sql`delete from slot_claims`.execute(db);
      await sql`alter table slot_claims drop constraint slot_claims_pkey`.execute(db);
      await sql`alter table slot_claims add primary key (org_id, platform, slot_start)`.execute(db);
    },
  },
  // Claims are hints that live ten minutes (the posts' times are in the event store): no WAL for them, so placing a
  // post costs no log flush. After a crash PostgreSQL empties the table; the read model holds the committed posts.
  '0025_slot_claims_unlogged': {
    async up(db: Kysely<unknown>) {
      await sql`alter table slot_claims set unlogged`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`alter table slot_claims set logged`.execute(db);
    },
  },
};

export interface SlotClaimsTable {
  org_id: string;
  platform: string;
  slot_start: string;
  post_id: string;
  expires_at: string;
}
