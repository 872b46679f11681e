// PostgreSQL stores for the AT Protocol OAuth client: pending authorizations (by state) and sessions (by DID),
// sealed with the token cipher, plus a cross-process lock so two workers never refresh one session at once.
import { createHash } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import type {
  InternalStateData,
  Jwk,
  Key,
  RuntimeLock,
  Session,
  SessionStore,
  StateStore,
} from '@atproto/oauth-client';
import type { TokenCipher } from '../../crypto/token-cipher.js';

/** Any database with these tables (the runtime's read-model database). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKysely = Kysely<any>;

export const blueskyOAuthMigrations: Record<string, Migration> = {
  '0015_bluesky_oauth': {
    async up(db: Kysely<unknown>) {
      // Keys are hashed: a state or a DID read from the table alone leads nowhere without the cipher key.
      await sql`
        create table if not exists bluesky_oauth_states (
          key_hash text primary key,
          sealed text not null,
          expires_at timestamptz not null
        )`.execute(db);
      await sql`
        create table if not exists bluesky_oauth_sessions (
          key_hash text primary key,
          sealed text not null,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists bluesky_oauth_sessions`.execute(db);
      await sql`drop table if exists bluesky_oauth_states`.execute(db);
    },
  },
};

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Pending authorizations live as long as the service's own OAuth state (10 minutes), then are purged. */
const stateLifetime = '10 minutes';

/** The DPoP key is kept as its private JWK, sealed with everything else. */
type Sealable<V extends { dpopKey: Key }> = Omit<V, 'dpopKey'> & { dpopJwk: Jwk };

function seal<V extends { dpopKey: Key }>(value: V, cipher: TokenCipher, aad: string): string {
  const { dpopKey, ...rest } = value;
  const dpopJwk = dpopKey.privateJwk;
  if (!dpopJwk) throw new Error('The DPoP key has no private part');
  return cipher.encrypt(JSON.stringify({ ...rest, dpopJwk }), aad);
}

async function unseal<V extends { dpopKey: Key }>(
  sealed: string,
  cipher: TokenCipher,
  aad: string,
): Promise<V> {
  const { dpopJwk, ...rest } = JSON.parse(cipher.decrypt(sealed, aad)) as Sealable<V>;
  // @atproto/jwk-jose is loaded by the first Bluesky session read, not by the start.
  const { JoseKey } = await import('@atproto/jwk-jose');
  return { ...rest, dpopKey: await JoseKey.fromJWK(dpopJwk) } as unknown as V;
}

export function blueskyStateStore(db: AnyKysely, cipher: TokenCipher): StateStore {
  const aad = (hash: string) => `blueskyOAuthState:${hash}`;
  return {
    async set(key: string, value: InternalStateData) {
      const hash = hashKey(key);
      const sealed = seal(value, cipher, aad(hash));
      await sql`delete from bluesky_oauth_states where expires_at < now()`.execute(db);
      await sql`
        insert into bluesky_oauth_states (key_hash, sealed, expires_at)
        values (${hash}, ${sealed}, now() + ${stateLifetime}::interval)
        on conflict (key_hash) do update set sealed = excluded.sealed, expires_at = excluded.expires_at`.execute(
        db,
      );
    },
    async get(key: string) {
      const hash = hashKey(key);
      const { rows } = await sql<{ sealed: string }>`
        select sealed from bluesky_oauth_states where key_hash = ${hash} and expires_at > now()`.execute(db);
      const row = rows[0];
      return row ? unseal<InternalStateData>(row.sealed, cipher, aad(hash)) : undefined;
    },
    async del(key: string) {
      await sql`delete from bluesky_oauth_states where key_hash = ${hashKey(key)}`.execute(db);
    },
  };
}

/**
 * Takes a pending authorization exactly once: of two racing callbacks with the same state, one gets it.
 * (The library's own callback reads then deletes, which two processes could both pass.)
 */
export async function takeBlueskyState(
  db: AnyKysely,
  cipher: TokenCipher,
  key: string,
): Promise<InternalStateData | undefined> {
  const hash = hashKey(key);
  const { rows } = await sql<{ sealed: string }>`
    delete from bluesky_oauth_states where key_hash = ${hash} and expires_at > now() returning sealed`.execute(
    db,
  );
  const row = rows[0];
  return row ? unseal<InternalStateData>(row.sealed, cipher, `blueskyOAuthState:${hash}`) : undefined;
}

export function blueskySessionStore(db: AnyKysely, cipher: TokenCipher): SessionStore {
  const aad = (hash: string) => `blueskyOAuthSession:${hash}`;
  return {
    async set(key: string, value: Session) {
      const hash = hashKey(key);
      const sealed = seal(value, cipher, aad(hash));
      await sql`
        insert into bluesky_oauth_sessions (key_hash, sealed, updated_at) values (${hash}, ${sealed}, now())
        on conflict (key_hash) do update set sealed = excluded.sealed, updated_at = now()`.execute(db);
    },
    async get(key: string) {
      const hash = hashKey(key);
      const { rows } = await sql<{ sealed: string }>`
        select sealed from bluesky_oauth_sessions where key_hash = ${hash}`.execute(db);
      const row = rows[0];
      return row ? unseal<Session>(row.sealed, cipher, aad(hash)) : undefined;
    },
    async del(key: string) {
      await sql`delete from bluesky_oauth_sessions where key_hash = ${hashKey(key)}`.execute(db);
    },
  };
}

/**
 * A refresh token is single use: two processes refreshing one session would revoke it. A transaction-scoped
 * advisory lock serialises them across every process sharing the database.
 */
export function postgresLock(db: AnyKysely): RuntimeLock {
  return async <T>(name: string, fn: () => T | PromiseLike<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`bluesky-oauth:${name}`}, 0))`.execute(trx);
      return await fn();
    });
}
