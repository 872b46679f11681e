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
  // Versions of a workspace's busy times, so the slot finder can keep them in the instance between approvals
  // (projections/scheduling/busy-times.ts): 'claims' moves with every slot finder's claims, 'posts' when the posts
  // read model changes a post's time in a way no live claim foresaw. Unlogged like the claims: a version starts
  // at a random number, so a table emptied by a crash never repeats a version an instance may still hold.
  //
  // slot_finder_read is what the finder does once its transaction has begun: take the locks, then read with a
  // snapshot taken after they were granted (a volatile function's statements each take their own), so a
  // concurrent finder's claims are seen. A function because PL/pgSQL keeps its statements' plans for the session:
  // the same reads as one statement spent four times their execution in planning, on every approval.
  '0034_slot_versions': {
    async up(db: Kysely<unknown>) {
      await sql`
        create unlogged table slot_versions (
          org_id uuid not null,
          source text not null check (source in ('claims', 'posts')),
          version bigint not null,
          primary key (org_id, source)
        )`.execute(db);
      // What new slots keep clear of, once per (post, time): live claims, and scheduled or publishing posts (a
      // post being placed again keeps its older time busy too until the read model shows the new one). PL/pgSQL
      // too: its plan is kept, and its tables (the posts read model's view) need not exist yet.
      await sql`
        create function slot_busy_entries(p_org uuid, p_from timestamptz, p_to timestamptz)
        returns table (post_id uuid, platform text, at timestamptz)
        language plpgsql stable as $fn$
        begin
          return query
            select c.post_id, c.platform, c.slot_start from slot_claims c
            where c.org_id = p_org and c.expires_at > now() and c.slot_start >= p_from and c.slot_start < p_to
            union
            select o.id, o.platform, o.scheduled_for_utc from posts o
            where o.org_id = p_org and o.status in ('scheduled', 'publishing')
              and o.scheduled_for_utc >= p_from and o.scheduled_for_utc < p_to;
        end
        $fn$`.execute(db);
      await sql`
        create function slot_finder_read(
          p_org uuid, p_locks bigint[], p_snapshot_key text, p_from timestamptz, p_to timestamptz,
          p_sweep boolean, p_version_start bigint)
        returns table (found_key text, claimed_key text, profile_state text, history_version text, busy_times text)
        language plpgsql volatile as $fn$
        declare
          v_lock bigint;
          v_claims bigint;
          v_rest text;
        begin
          -- In the order given (the caller sorts them), so two finders never wait on each other crosswise.
          foreach v_lock in array p_locks loop
            perform pg_advisory_xact_lock(v_lock);
          end loop;
          -- Held until the caller's claims commit: nobody else's claims come in between.
          insert into slot_versions as v (org_id, source, version) values (p_org, 'claims', p_version_start)
            on conflict (org_id, source) do update set version = v.version + 1
            returning v.version into v_claims;
          if p_sweep then
            delete from slot_claims c where c.org_id = p_org and c.expires_at <= now();
          end if;
          v_rest := coalesce((select s.version from slot_versions s where s.org_id = p_org and s.source = 'posts')::text, '-')
            || ':' || coalesce((select p.generation from projections p
                                where p.name = 'post_groups' and p.status = 'serving')::text, '-');
          found_key := (v_claims - 1)::text || ':' || v_rest;
          claimed_key := v_claims::text || ':' || v_rest;
          profile_state := (select sp.state::text from scheduling_profiles sp where sp.org_id = p_org);
          history_version := (select mv.version from post_metrics_versions mv where mv.org_id = p_org)::text;
          -- Busy times only for a caller without a snapshot at these versions: '<platform> <post> <epoch ms>', …
          if found_key is distinct from p_snapshot_key then
            busy_times := coalesce((
              select string_agg(b.platform || ' ' || b.post_id || ' ' || (extract(epoch from b.at) * 1000)::bigint, ',')
              from slot_busy_entries(p_org, p_from, p_to) b), '');
          end if;
          return next;
        end
        $fn$`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop function slot_finder_read`.execute(db);
      await sql`drop function slot_busy_entries`.execute(db);
      await sql`drop table slot_versions`.execute(db);
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
