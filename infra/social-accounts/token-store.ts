// Social account tokens at rest: one sealed TokenSet per account (AES-256-GCM bound to workspace and account),
// re-sealed with the current key on every write, plus a per-account lock that serialises refreshes.
import { sql, type Kysely, type Migration } from 'kysely';
import type { TokenSet } from '../connectors/port.js';
import type { TokenCipher } from '../crypto/token-cipher.js';

export const socialAccountTokenMigrations: Record<string, Migration> = {
  '0007_social_account_tokens': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table social_account_tokens (
          account_id uuid primary key,
          org_id uuid not null,
          -- TokenCipher output: v<key version>.<iv>.<tag>.<ciphertext>; never the plain tokens.
          sealed text not null,
          key_version integer not null,
          expires_at timestamptz,
          has_refresh_token boolean not null,
          updated_at timestamptz not null default now()
        )`.execute(db);
      // The token refresher looks for tokens expiring soon.
      await sql`create index social_account_tokens_expires_at on social_account_tokens (expires_at)
        where expires_at is not null`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table social_account_tokens`.execute(db);
    },
  },
};

export interface SocialAccountTokensTable {
  account_id: string;
  org_id: string;
  sealed: string;
  key_version: number;
  expires_at: string | null;
  has_refresh_token: boolean;
  updated_at: string;
}

/** A token row as the refresher sees it: no secrets, only what decides whether to refresh or warn. */
export interface TokenExpiry {
  accountId: string;
  orgId: string;
  expiresAt: string;
  hasRefreshToken: boolean;
}

export const tokenAssociatedData = (orgId: string, accountId: string) =>
  `socialAccount:${orgId}:${accountId}`;

// Advisory lock namespace for per-account token locks (arbitrary, fixed).
const lockNamespace = 0x50c1a1;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKysely = Kysely<any>;

export class TokenStore {
  /** Waiters inside this process queue here, so at most one per account holds a pooled connection waiting. */
  private readonly localLocks = new Map<string, Promise<void>>();

  constructor(
    private readonly db: AnyKysely,
    private readonly cipher: TokenCipher,
  ) {}

  /** Seals and stores (replacing) the account's tokens. */
  async save(orgId: string, accountId: string, tokens: TokenSet): Promise<void> {
    const sealed = this.cipher.encrypt(JSON.stringify(tokens), tokenAssociatedData(orgId, accountId));
    await sql`
      insert into social_account_tokens (account_id, org_id, sealed, key_version, expires_at, has_refresh_token, updated_at)
      values (${accountId}, ${orgId}, ${sealed}, ${this.cipher.currentVersion}, ${tokens.expiresAt},
              ${tokens.refreshToken !== null && tokens.refreshToken !== ''}, now())
      on conflict (account_id) do update set
        org_id = excluded.org_id, sealed = excluded.sealed, key_version = excluded.key_version,
        expires_at = excluded.expires_at, has_refresh_token = excluded.has_refresh_token, updated_at = now()`.execute(
      this.db,
    );
  }

  /**
   * The account's tokens, or null when none are stored. A value sealed with an older key is re-sealed with the
   * current one (only if it did not change meanwhile), so rotation completes as accounts are used.
   */
  async load(orgId: string, accountId: string): Promise<TokenSet | null> {
    const { rows } = await sql<{ sealed: string; org_id: string }>`
      select sealed, org_id from social_account_tokens where account_id = ${accountId}`.execute(this.db);
    const row = rows[0];
    if (!row || row.org_id !== orgId) return null;
    const ad = tokenAssociatedData(orgId, accountId);
    const tokens = JSON.parse(this.cipher.decrypt(row.sealed, ad)) as TokenSet;
    if (this.cipher.needsRotation(row.sealed)) {
      await sql`
        update social_account_tokens
        set sealed = ${this.cipher.encrypt(JSON.stringify(tokens), ad)}, key_version = ${this.cipher.currentVersion}
        where account_id = ${accountId} and sealed = ${row.sealed}`.execute(this.db);
    }
    return tokens;
  }

  async delete(orgId: string, accountId: string): Promise<void> {
    await sql`delete from social_account_tokens where account_id = ${accountId} and org_id = ${orgId}`.execute(
      this.db,
    );
  }

  /**
   * Accounts whose access token expires before `before`, earliest first, a page at a time (pass the last row
   * of a page as `after` for the next); no secrets are read.
   */
  async expiringBefore(
    before: Date,
    options: { after?: Pick<TokenExpiry, 'expiresAt' | 'accountId'>; limit?: number } = {},
  ): Promise<TokenExpiry[]> {
    const after = options.after;
    const { rows } = await sql<{
      account_id: string;
      org_id: string;
      expires_at: string;
      has_refresh_token: boolean;
    }>`
      select account_id, org_id, expires_at, has_refresh_token from social_account_tokens
      where expires_at is not null and expires_at < ${before.toISOString()}
        ${after ? sql`and (expires_at, account_id) > (${after.expiresAt}::timestamptz, ${after.accountId}::uuid)` : sql``}
      order by expires_at, account_id
      limit ${options.limit ?? 200}`.execute(this.db);
    return rows.map((r) => ({
      accountId: r.account_id,
      orgId: r.org_id,
      expiresAt: r.expires_at,
      hasRefreshToken: r.has_refresh_token,
    }));
  }

  /**
   * Runs `work` holding the account's token lock, across processes: a PostgreSQL session advisory lock on a
   * connection of its own. Not a row lock (`select … for update`): that would give the transaction an id for
   * as long as the platform call takes, and the event store's readers wait behind every open transaction id.
   * With `skipIfLocked`, answers `{ locked: false }` at once when another holder has it.
   */
  async withAccountLock<T>(
    accountId: string,
    work: () => Promise<T>,
    options: { skipIfLocked?: boolean } = {},
  ): Promise<{ locked: true; value: T } | { locked: false }> {
    if (options.skipIfLocked && this.localLocks.has(accountId)) return { locked: false };
    const previous = this.localLocks.get(accountId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    this.localLocks.set(accountId, chained);
    try {
      await previous;
      return await this.db.connection().execute(async (conn) => {
        const key = sql`${lockNamespace}::int4, hashtext(${accountId})`;
        if (options.skipIfLocked) {
          const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${key}) as ok`.execute(
            conn,
          );
          if (!rows[0]?.ok) return { locked: false } as const;
        } else {
          await sql`select pg_advisory_lock(${key})`.execute(conn);
        }
        try {
          return { locked: true, value: await work() } as const;
        } finally {
          await sql`select pg_advisory_unlock(${key})`.execute(conn);
        }
      });
    } finally {
      release();
      if (this.localLocks.get(accountId) === chained) this.localLocks.delete(accountId);
    }
  }
}
