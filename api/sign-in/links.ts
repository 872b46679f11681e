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

/**
 * Links asked for per hour: to one address from anyone (bounds the mail one inbox gets), to one address from
 * one client (so one client alone cannot spend an address's allowance and lock its owner out), and from one
 * client to any address. A client is its address (behind TRUSTED_PROXIES, the forwarded one; IPv6 by /64).
 */
export const linkRateLimits = {
  perRecipient: 10,
  perRecipientFromOneClient: 3,
  perClient: 30,
  windowMinutes: 60,
} as const;

export function verifyUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/sign-in/verify?token=${encodeURIComponent(token)}`;
}

export class SignInLinks {
  constructor(private readonly db: Kysely<unknown>) {}

  /** A new link token for this address; `from` is the requesting client's limit key (rate limits). */
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

  /**
   * Whether one more link may be sent to this address, asked for by this client (`from`: its limit key; null
   * when unknown), now; when not, the seconds until the oldest link that spent the allowance leaves the window.
   */
  async allowed(
    email: string,
    from: string | null,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    const recipient = email.toLowerCase();
    const window = sql`created_at > now() - make_interval(mins => ${linkRateLimits.windowMinutes})`;
    // Per limit: how many links it counts, and when the oldest of them leaves the window (seconds from now).
    const { rows } = await sql<{ limit_name: string; n: string; frees_in: number | string | null }>`
      with counted as (
        select 'recipient' as limit_name, created_at from sign_in_links
          where requested_for = ${recipient} and ${window}
        union all
        select 'recipient_client', created_at from sign_in_links
          where ${from}::text is not null and requested_for = ${recipient} and requested_from = ${from} and ${window}
        union all
        select 'client', created_at from sign_in_links
          where ${from}::text is not null and requested_from = ${from} and ${window})
      select limit_name, count(*) as n,
        extract(epoch from min(created_at) + make_interval(mins => ${linkRateLimits.windowMinutes}) - now())
          as frees_in
      from counted group by limit_name`.execute(this.db);
    const caps: Record<string, number> = {
      recipient: linkRateLimits.perRecipient,
      recipient_client: linkRateLimits.perRecipientFromOneClient,
      client: linkRateLimits.perClient,
    };
    let waitSeconds = 0;
    for (const row of rows)
      if (Number(row.n) >= (caps[row.limit_name] ?? 0))
        waitSeconds = Math.max(waitSeconds, Math.max(1, Math.ceil(Number(row.frees_in ?? 0))));
    return waitSeconds === 0 ? { allowed: true } : { allowed: false, retryAfterSeconds: waitSeconds };
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
