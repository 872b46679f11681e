// One-time sign-in links: a random 32-byte token mailed (or printed by the CLI), only its SHA-256 kept in
// `sign_in_links`, valid 15 minutes and consumed once (an atomic update, so two clicks sign in once).
import { sql, type Kysely, type Migration } from 'kysely';
import { secretDigest } from '../../infra/crypto/digests.js';
import { randomToken, safeReturnTo } from './sessions.js';

export const signInLinkMigrations: Record<string, Migration> = {
  '0022_sign_in_links': {
    async up(db) {
      await sql`
        create table sign_in_links (
          token_hash text primary key,
          email text not null,
          return_to text not null,
          -- who asked (lower-cased address, peer address), for the rate limits; null when made by the CLI
          requested_for text null,
          requested_from text null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          used_at timestamptz null
        )`.execute(db);
      await sql`create index sign_in_links_requested_for on sign_in_links (requested_for, created_at)`.execute(
        db,
      );
      await sql`create index sign_in_links_requested_from on sign_in_links (requested_from, created_at)`.execute(
        db,
      );
      await sql`create index sign_in_links_expires_at on sign_in_links (expires_at)`.execute(db);
    },
    async down(db) {
      await sql`drop table sign_in_links`.execute(db);
    },
  },
};

export const signInLinkMinutes = 15;
/** Links one address may be sent, and links one peer address may ask for, per window. */
export const linkRateLimits = { perAddress: 5, perPeer: 50, windowMinutes: 15 } as const;

export function verifyUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/sign-in/verify?token=${encodeURIComponent(token)}`;
}

export class SignInLinks {
  constructor(private readonly db: Kysely<unknown>) {}

  /** A new link token for this address; `from` is the requester's peer address (rate limits). */
  async issue(
    email: string,
    returnTo: string,
    requester?: { from: string | null },
  ): Promise<{ token: string; expiresAt: Date }> {
    const token = randomToken();
    const { rows } = await sql<{ expires_at: Date | string }>`
      insert into sign_in_links (token_hash, email, return_to, requested_for, requested_from, expires_at)
      values (${secretDigest(token)}, ${email}, ${safeReturnTo(returnTo)},
              ${requester ? email.toLowerCase() : null}, ${requester?.from ?? null},
              now() + make_interval(mins => ${signInLinkMinutes}))
      returning expires_at`.execute(this.db);
    return { token, expiresAt: new Date(rows[0]!.expires_at) };
  }

  /** Whether more links may be sent to this address (and asked for from this peer) now. */
  async allowed(email: string, from: string | null): Promise<boolean> {
    const { rows } = await sql<{ address: string; peer: string }>`
      select
        (select count(*) from sign_in_links where requested_for = ${email.toLowerCase()}
           and created_at > now() - make_interval(mins => ${linkRateLimits.windowMinutes})) as address,
        (select count(*) from sign_in_links where ${from}::text is not null and requested_from = ${from}
           and created_at > now() - make_interval(mins => ${linkRateLimits.windowMinutes})) as peer`.execute(
      this.db,
    );
    const row = rows[0]!;
    return Number(row.address) < linkRateLimits.perAddress && Number(row.peer) < linkRateLimits.perPeer;
  }

  /** The link's address and destination while it can still be used (unknown, expired and used: null). */
  async peek(token: string): Promise<{ email: string; returnTo: string } | null> {
    const { rows } = await sql<{ email: string; return_to: string }>`
      select email, return_to from sign_in_links
      where token_hash = ${secretDigest(token)} and used_at is null and expires_at > now()`.execute(this.db);
    const row = rows[0];
    return row ? { email: row.email, returnTo: row.return_to } : null;
  }

  /** Uses the link up: its address and destination, or null when it was unknown, expired or used already. */
  async consume(token: string): Promise<{ email: string; returnTo: string } | null> {
    const { rows } = await sql<{ email: string; return_to: string }>`
      update sign_in_links set used_at = now()
      where token_hash = ${secretDigest(token)} and used_at is null and expires_at > now()
      returning email, return_to`.execute(this.db);
    const row = rows[0];
    return row ? { email: row.email, returnTo: row.return_to } : null;
  }

  /** Removes links expired a day ago or more. */
  async purge(): Promise<void> {
    await sql`delete from sign_in_links where expires_at < now() - interval '1 day'`.execute(this.db);
    await sql`delete from browser_sessions where expires_at < now() - interval '1 day'`.execute(this.db);
  }
}
