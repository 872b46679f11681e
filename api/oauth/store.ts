// The authorization server's tables: clients (registered, or fetched from a client ID metadata document),
// pending authorization codes, assistant connections and their tokens. Codes, tokens and client secrets are
// stored only as SHA-256 hashes of random values; nobody can read one back.
import { secretDigest } from '../../infra/crypto/digests.js';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { AssistantScope } from '../../domain/shared/caller.js';

export const oauthMigrations: Record<string, Migration> = {
  '0017_oauth_clients': {
    async up(db) {
      await sql`
        create table oauth_clients (
          client_id text primary key,
          client_name text not null,
          redirect_uris text[] not null,
          token_endpoint_auth_method text not null
            check (token_endpoint_auth_method in ('none', 'client_secret_post', 'client_secret_basic')),
          -- SHA-256 of the client secret (hex); null for public clients
          secret_hash text null,
          kind text not null check (kind in ('registered', 'metadata_document')),
          metadata jsonb not null,
          created_at timestamptz not null default now(),
          -- when a metadata document was last fetched (its cache age); null for registered clients
          fetched_at timestamptz null
        )`.execute(db);
    },
    async down(db) {
      await sql`drop table oauth_clients`.execute(db);
    },
  },
  '0018_assistant_connections': {
    async up(db) {
      await sql`
        create table assistant_connections (
          id uuid primary key,
          client_id text not null,
          client_name text not null,
          user_id text not null,
          org_id uuid not null,
          scopes text[] not null,
          created_at timestamptz not null default now(),
          last_used_at timestamptz null,
          revoked_at timestamptz null
        )`.execute(db);
      await sql`create index assistant_connections_user on assistant_connections (user_id) where revoked_at is null`.execute(
        db,
      );
      await sql`
        create table oauth_codes (
          code_hash text primary key,
          client_id text not null,
          user_id text not null,
          org_id uuid not null,
          scopes text[] not null,
          redirect_uri text not null,
          code_challenge text not null,
          resource text null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          used_at timestamptz null,
          -- the connection the exchange created; a second exchange of the code ends it
          connection_id uuid null references assistant_connections (id)
        )`.execute(db);
      await sql`create index oauth_codes_expires_at on oauth_codes (expires_at)`.execute(db);
    },
    async down(db) {
      await sql`drop table oauth_codes`.execute(db);
      await sql`drop table assistant_connections`.execute(db);
    },
  },
  '0019_oauth_tokens': {
    async up(db) {
      await sql`
        create table oauth_tokens (
          hash text primary key,
          kind text not null check (kind in ('access', 'refresh')),
          connection_id uuid not null references assistant_connections (id),
          -- what this token allows: the connection's scopes, or fewer (a refresh asking for less)
          scopes text[] not null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          -- refresh tokens: set when it was exchanged for a new one (presenting it again ends the connection)
          used_at timestamptz null,
          revoked_at timestamptz null
        )`.execute(db);
      await sql`create index oauth_tokens_connection on oauth_tokens (connection_id)`.execute(db);
      await sql`create index oauth_tokens_expires_at on oauth_tokens (expires_at)`.execute(db);
    },
    async down(db) {
      await sql`drop table oauth_tokens`.execute(db);
    },
  },
};

export type TokenEndpointAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';
export type ClientKind = 'registered' | 'metadata_document';

/** Timestamps are ISO strings: the runtime's pg parses timestamptz that way (infra/db/database.ts). */
export type OAuthTables = {
  oauth_clients: {
    client_id: string;
    client_name: string;
    redirect_uris: string[];
    token_endpoint_auth_method: TokenEndpointAuthMethod;
    secret_hash: string | null;
    kind: ClientKind;
    metadata: unknown;
    created_at: Generated<string>;
    fetched_at: string | null;
  };
  oauth_codes: {
    code_hash: string;
    client_id: string;
    user_id: string;
    org_id: string;
    scopes: string[];
    redirect_uri: string;
    code_challenge: string;
    resource: string | null;
    created_at: Generated<string>;
    expires_at: string;
    used_at: string | null;
    connection_id: string | null;
  };
  assistant_connections: {
    id: string;
    client_id: string;
    client_name: string;
    user_id: string;
    org_id: string;
    scopes: string[];
    created_at: Generated<string>;
    last_used_at: string | null;
    revoked_at: string | null;
  };
  oauth_tokens: {
    hash: string;
    kind: 'access' | 'refresh';
    connection_id: string;
    scopes: string[];
    created_at: Generated<string>;
    expires_at: string;
    used_at: string | null;
    revoked_at: string | null;
  };
};

export type OAuthDb = Kysely<OAuthTables>;

/** Lifetimes (the spec's "Token lifetimes"). */
export const codeLifetimeSeconds = 5 * 60;
export const accessTokenLifetimeSeconds = 60 * 60;
export const refreshTokenLifetimeSeconds = 30 * 24 * 60 * 60;

/** A random secret of 32 bytes, base64url; the prefix says what it is when one turns up in a log or a leak. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** What is stored of a secret: its SHA-256, hex. */

/** Compares a presented secret with a stored hash in constant time. */
export function matchesHash(secret: string, hash: string): boolean {
  const a = Buffer.from(secretDigest(secret), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Ends a connection and every token issued for it, at once. */
export async function revokeConnection(db: OAuthDb, connectionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('assistant_connections')
      .set({ revoked_at: sql<string>`now()` })
      .where('id', '=', connectionId)
      .where('revoked_at', 'is', null)
      .execute();
    await trx
      .updateTable('oauth_tokens')
      .set({ revoked_at: sql<string>`now()` })
      .where('connection_id', '=', connectionId)
      .where('revoked_at', 'is', null)
      .execute();
  });
}

/**
 * Ends one user's assistant connections of a workspace granted before `grantedBefore`, with every token issued
 * for them, and expires their codes not yet exchanged: what a member removed from the workspace (or one that
 * left) had granted must not work again should they rejoin. Connections granted later (after rejoining) stay.
 * Idempotent; answers the connections it ended.
 */
export async function endConnectionsOf(
  db: OAuthDb,
  who: { orgId: string; userId: string; grantedBefore: string },
): Promise<string[]> {
  const ended = await db
    .updateTable('assistant_connections')
    .set({ revoked_at: sql<string>`now()` })
    .where('org_id', '=', who.orgId)
    .where('user_id', '=', who.userId)
    .where('created_at', '<=', who.grantedBefore)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  const ids = ended.map((r) => r.id);
  // Tokens of connections ended earlier were revoked with them; these are the ones just ended.
  if (ids.length > 0)
    await db
      .updateTable('oauth_tokens')
      .set({ revoked_at: sql<string>`now()` })
      .where('connection_id', 'in', ids)
      .where('revoked_at', 'is', null)
      .execute();
  await db
    .updateTable('oauth_codes')
    .set({ expires_at: sql<string>`now()` })
    .where('org_id', '=', who.orgId)
    .where('user_id', '=', who.userId)
    .where('created_at', '<=', who.grantedBefore)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<string>`now()`)
    .execute();
  return ids;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
}

/** A new access token (scoped to `accessScopes`) and refresh token (the connection's scopes) for a connection. */
export async function issueTokens(
  db: Kysely<OAuthTables>,
  connectionId: string,
  scopes: { access: readonly AssistantScope[]; refresh: readonly AssistantScope[] },
): Promise<IssuedTokens> {
  const accessToken = newSecret('spa_');
  const refreshToken = newSecret('spr_');
  await db
    .insertInto('oauth_tokens')
    .values([
      {
        hash: secretDigest(accessToken),
        kind: 'access',
        connection_id: connectionId,
        scopes: [...scopes.access],
        expires_at: sql<string>`now() + make_interval(secs => ${accessTokenLifetimeSeconds})`,
      },
      {
        hash: secretDigest(refreshToken),
        kind: 'refresh',
        connection_id: connectionId,
        scopes: [...scopes.refresh],
        expires_at: sql<string>`now() + make_interval(secs => ${refreshTokenLifetimeSeconds})`,
      },
    ])
    .execute();
  return { accessToken, refreshToken };
}
