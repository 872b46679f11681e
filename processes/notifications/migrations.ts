// The notification mailer's own records: one row per notification e-mail (keyed by the notification's stable id)
// and one per member's daily digest. Not read models: a projection rebuild leaves them as they are, so nothing
// already sent goes out again.
import { sql, type Kysely, type Migration } from 'kysely';

export const notificationMailMigrations: Record<string, Migration> = {
  '0028_notification_emails': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table notification_emails (
          notification_id uuid primary key,
          org_id text not null,
          user_id text not null,
          -- immediate: its own message; digest: one line of a daily digest.
          kind text not null check (kind in ('immediate', 'digest')),
          -- skipped: not sent on purpose (read, dismissed or no longer a member first; too old when found).
          status text not null check (status in ('pending', 'sent', 'failed', 'skipped')),
          attempts integer not null default 0,
          next_attempt_at timestamptz not null,
          last_error text,
          lease_owner text,
          lease_until timestamptz,
          sent_at timestamptz,
          digest_date date,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`.execute(db);
      await sql`
        create index notification_emails_due on notification_emails (next_attempt_at)
        where status = 'pending'`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table notification_emails`.execute(db);
    },
  },
  '0029_notification_digests': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table notification_digests (
          org_id text not null,
          user_id text not null,
          -- The member's day in the workspace's time zone.
          local_date date not null,
          status text not null check (status in ('pending', 'sent', 'failed', 'empty')),
          item_count integer not null default 0,
          attempts integer not null default 0,
          next_attempt_at timestamptz not null,
          last_error text,
          lease_owner text,
          lease_until timestamptz,
          sent_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null,
          primary key (org_id, user_id, local_date)
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table notification_digests`.execute(db);
    },
  },
  // The start line of notifications: events recorded before notifications came to this service (an existing
  // event log upgraded) notify nobody, so members do not find the whole history unread. One row, written once
  // when this migration runs; every build of the read model reads the same value, so rebuilds stay identical.
  // On a new service it precedes every event.
  '0030_notifications_start': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table notifications_start (
          only_row boolean primary key default true check (only_row),
          started_at timestamptz not null default now()
        )`.execute(db);
      await sql`insert into notifications_start default values`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table notifications_start`.execute(db);
    },
  },
};
