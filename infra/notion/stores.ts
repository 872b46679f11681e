// What the context library keeps outside events (issue 31): each source's Notion access token, sealed with the
// token cipher (AES-256-GCM bound to the workspace and source, as social account tokens are), and the pending
// Notion authorizations between oauth/start and the callback (the state stored hashed, single use, 10 minutes,
// on the database clock so instances agree).
import { sql, type Kysely, type Migration } from 'kysely';
import { secretDigest } from '../crypto/digests.js';
import type { TokenCipher } from '../crypto/token-cipher.js';

export const contextStoreMigrations: Record<string, Migration> = {
  '0042_context_source_tokens': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table context_source_tokens (
          source_id uuid primary key,
          org_id uuid not null,
          -- TokenCipher output; never the plain token.
          sealed text not null,
          key_version integer not null,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table context_source_tokens`.execute(db);
    },
  },
  '0043_context_oauth_states': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table context_oauth_states (
          state_hash text primary key,
          org_id uuid not null,
          user_id text not null,
          source_type text not null,
          redirect_uri text not null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          used_at timestamptz null
        )`.execute(db);
      await sql`create index context_oauth_states_expires_at on context_oauth_states (expires_at)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table context_oauth_states`.execute(db);
    },
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKysely = Kysely<any>;

export const contextTokenAssociatedData = (orgId: string, sourceId: string) =>
  `contextSource:${orgId}:${sourceId}`;

/** Sources' access tokens at rest, sealed; re-sealed with the current key when read under an older one. */
export class ContextTokenStore {
  constructor(
    private readonly db: AnyKysely,
    private readonly cipher: TokenCipher,
  ) {}

  async save(orgId: string, sourceId: string, accessToken: string): Promise<void> {
    const sealed = this.cipher.encrypt(accessToken, contextTokenAssociatedData(orgId, sourceId));
    await sql`
      insert into context_source_tokens (source_id, org_id, sealed, key_version, updated_at)
      values (${sourceId}, ${orgId}, ${sealed}, ${this.cipher.currentVersion}, now())
      on conflict (source_id) do update set
        org_id = excluded.org_id, sealed = excluded.sealed, key_version = excluded.key_version, updated_at = now()`.execute(
      this.db,
    );
  }

  async load(orgId: string, sourceId: string): Promise<string | null> {
    const { rows } = await sql<{ sealed: string; org_id: string }>`
      select sealed, org_id from context_source_tokens where source_id = ${sourceId}`.execute(this.db);
    const row = rows[0];
    if (!row || row.org_id !== orgId) return null;
    const ad = contextTokenAssociatedData(orgId, sourceId);
    const token = this.cipher.decrypt(row.sealed, ad);
    if (this.cipher.needsRotation(row.sealed))
      await sql`
        update context_source_tokens
        set sealed = ${this.cipher.encrypt(token, ad)}, key_version = ${this.cipher.currentVersion}
        where source_id = ${sourceId} and sealed = ${row.sealed}`.execute(this.db);
    return token;
  }

  async delete(orgId: string, sourceId: string): Promise<void> {
    await sql`delete from context_source_tokens where source_id = ${sourceId} and org_id = ${orgId}`.execute(
      this.db,
    );
  }
}

/** How long a user has between oauth/start and Notion's callback. */
export const contextAuthorizationMinutes = 10;

export interface PendingContextAuthorization {
  orgId: string;
  userId: string;
  sourceType: 'notion';
  redirectUri: string;
}

export class ContextOAuthStates {
  constructor(private readonly db: AnyKysely) {}

  async save(state: string, pending: PendingContextAuthorization): Promise<void> {
    await sql`delete from context_oauth_states where expires_at < now()`.execute(this.db);
    await sql`
      insert into context_oauth_states (state_hash, org_id, user_id, source_type, redirect_uri, expires_at)
      values (${secretDigest(state)}, ${pending.orgId}, ${pending.userId}, ${pending.sourceType},
        ${pending.redirectUri}, now() + make_interval(mins => ${contextAuthorizationMinutes}))`.execute(
      this.db,
    );
  }

  /** Where the app wants the user back, while the state is open (unknown, expired or used: null). */
  async openRedirectUri(state: string): Promise<string | null> {
    const { rows } = await sql<{ redirect_uri: string }>`
      select redirect_uri from context_oauth_states
      where state_hash = ${secretDigest(state)} and used_at is null and expires_at > now()`.execute(this.db);
    return rows[0]?.redirect_uri ?? null;
  }

  /** The open authorization of this state, used up by this call; null when unknown, expired or used. */
  async consume(state: string): Promise<PendingContextAuthorization | null> {
    const { rows } = await sql<{
      org_id: string;
      user_id: string;
      source_type: string;
      redirect_uri: string;
    }>`
      update context_oauth_states set used_at = now()
      where state_hash = ${secretDigest(state)} and used_at is null and expires_at > now()
      returning org_id, user_id, source_type, redirect_uri`.execute(this.db);
    const row = rows[0];
    if (!row) return null;
    return { orgId: row.org_id, userId: row.user_id, sourceType: 'notion', redirectUri: row.redirect_uri };
  }
}
