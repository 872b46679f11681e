// The sandbox platform's own tables: its accounts, authorization codes, publications and settings.
// State lives in PostgreSQL because every worker process talks to the same simulated platform.
import { sql, type Generated, type Kysely, type Migration } from 'kysely';

export const sandboxMigrations: Record<string, Migration> = {
  '0007_sandbox': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table sandbox_accounts (
          platform text not null,
          external_id text not null,
          handle text not null,
          name text not null,
          revoked_at timestamptz null,
          created_at timestamptz not null default now(),
          primary key (platform, external_id)
        )`.execute(db);
      // Codes are stored hashed: the table never holds a usable grant.
      await sql`
        create table sandbox_authorization_codes (
          code_hash text primary key,
          platform text not null,
          account_handle text not null,
          code_challenge text not null,
          redirect_uri text not null,
          expires_at timestamptz not null,
          used_at timestamptz null
        )`.execute(db);
      // One row per publish the "platform" accepted; duplicates are kept on purpose (tests count them).
      await sql`
        create table sandbox_publications (
          id bigint generated always as identity primary key,
          platform text not null,
          account_external_id text not null,
          post_id text not null,
          idempotency_key text not null,
          external_id text not null,
          url text not null,
          text text not null,
          status text not null check (status in ('published', 'pending', 'deleted')),
          ready_at timestamptz not null,
          created_at timestamptz not null,
          deleted_at timestamptz null
        )`.execute(db);
      await sql`create index sandbox_publications_key on sandbox_publications (platform, idempotency_key)`.execute(
        db,
      );
      await sql`create index sandbox_publications_external on sandbox_publications (platform, external_id)`.execute(
        db,
      );
      await sql`create index sandbox_publications_post on sandbox_publications (post_id)`.execute(db);
      await sql`
        create table sandbox_settings (
          key text primary key,
          value text not null,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'sandbox_settings',
        'sandbox_publications',
        'sandbox_authorization_codes',
        'sandbox_accounts',
      ])
        await sql`drop table ${sql.table(table)}`.execute(db);
    },
  },
  // The X sandbox's conversations: a post's place in a conversation (its author's thread or a reply), recorded
  // when the conversation is first read, so reading one of its posts by id later tells the same story.
  '0036_sandbox_x_posts': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table sandbox_x_posts (
          id text primary key,
          conversation_id text not null,
          role text not null check (role in ('thread', 'reply')),
          position integer not null,
          created_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table sandbox_x_posts`.execute(db);
    },
  },
};

export interface SandboxAccountsTable {
  platform: string;
  external_id: string;
  handle: string;
  name: string;
  revoked_at: string | null;
  created_at: Generated<string>;
}

export interface SandboxAuthorizationCodesTable {
  code_hash: string;
  platform: string;
  account_handle: string;
  code_challenge: string;
  redirect_uri: string;
  expires_at: string;
  used_at: string | null;
}

export type SandboxPublicationStatus = 'published' | 'pending' | 'deleted';

export interface SandboxPublicationsTable {
  id: Generated<string>;
  platform: string;
  account_external_id: string;
  post_id: string;
  idempotency_key: string;
  external_id: string;
  url: string;
  text: string;
  status: SandboxPublicationStatus;
  /** When a pending publication counts as published. */
  ready_at: string;
  created_at: string;
  deleted_at: string | null;
}

export interface SandboxSettingsTable {
  key: string;
  value: string;
  updated_at: Generated<string>;
}

export interface SandboxXPostsTable {
  id: string;
  conversation_id: string;
  role: 'thread' | 'reply';
  position: number;
  created_at: Generated<string>;
}

export interface SandboxTables {
  sandbox_x_posts: SandboxXPostsTable;
  sandbox_accounts: SandboxAccountsTable;
  sandbox_authorization_codes: SandboxAuthorizationCodesTable;
  sandbox_publications: SandboxPublicationsTable;
  sandbox_settings: SandboxSettingsTable;
}
