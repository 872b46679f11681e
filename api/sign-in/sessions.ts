// Browser sessions of the sign-in pages: a random session id in an HttpOnly cookie, only its SHA-256 kept in
// `browser_sessions` (so a read of the table signs nobody in), 12 hours long, ended by signing out. CSRF tokens
// are an HMAC of the session id under a key derived from the service's token encryption key, so every instance
// sharing that key accepts the forms of the others. Other slices (the consent page) use `ctx.use(browserSessions)`.
import { secretDigest } from '../../infra/crypto/digests.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import { sql, type Kysely, type Migration } from 'kysely';
import type { PlatformEnv } from '../platform/settings.js';
import type { BrowserSessions, BrowserUser } from '../shared/assistant-auth.js';
import { service } from '../shared/service.js';
import type { SliceContext } from '../shared/slice.js';

export const browserSessionMigrations: Record<string, Migration> = {
  '0020_browser_sessions': {
    async up(db) {
      await sql`
        create table browser_sessions (
          id_hash text primary key,
          user_id text not null,
          email text not null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          revoked_at timestamptz null
        )`.execute(db);
      await sql`create index browser_sessions_user_id on browser_sessions (user_id)`.execute(db);
      await sql`create index browser_sessions_expires_at on browser_sessions (expires_at)`.execute(db);
    },
    async down(db) {
      await sql`drop table browser_sessions`.execute(db);
    },
  },
};

/** How long a browser stays signed in. */
export const browserSessionHours = 12;
/** Where a browser goes after signing in when it asked for nowhere (or for somewhere not on this service). */
export const defaultReturnTo = '/sign-in/done';

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A path of this service to go back to, or `defaultReturnTo`: only a relative path starting with a single `/`
 * (no `//host`, no `/\host`, no scheme, no control characters) stays, so a sign-in link never redirects away.
 * The check is on the path as resolved against an origin (dot segments removed): `/.//evil` or `/../..//evil`
 * resolve to `//evil`, which a browser reads as another host.
 */
export function safeReturnTo(value: string | undefined | null): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return defaultReturnTo;
  const controlOrBackslash = [...value].some(
    (ch) => ch === '\\' || ch.charCodeAt(0) < 0x20 || ch === '\u007f',
  );
  if (!value.startsWith('/') || value.startsWith('//') || controlOrBackslash) return defaultReturnTo;
  const base = 'http://return-to.invalid';
  const url = URL.canParse(value, base) ? new URL(value, base) : null;
  if (!url || url.origin !== base) return defaultReturnTo;
  const resolved = `${url.pathname}${url.search}${url.hash}`;
  if (!resolved.startsWith('/') || resolved.startsWith('//') || resolved.startsWith('/\\'))
    return defaultReturnTo;
  return resolved;
}

export function signInPathFor(returnTo: string): string {
  return `/sign-in?return_to=${encodeURIComponent(safeReturnTo(returnTo))}`;
}

/** Cookie names and attributes: `__Host-` and Secure when the service is served over https, plain names otherwise. */
export function cookieSettings(publicBaseUrl: string, maxAgeSeconds: number) {
  const secure = new URL(publicBaseUrl).protocol === 'https:';
  const options: CookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure,
    maxAge: maxAgeSeconds,
    ...(secure ? { prefix: 'host' as const } : {}),
  };
  return { options, prefix: secure ? ('host' as const) : undefined };
}

export const sessionCookieName = 'sign_in_session';
export const preSessionCookieName = 'sign_in_csrf';

/**
 * The key CSRF tokens are signed with: derived from TOKEN_ENCRYPTION_KEY, or from the key the token cipher
 * keeps under DATA_DIR/keys when that is not set (the runtime creates it before any route is built).
 */
export function csrfKeyFrom(env: Pick<PlatformEnv, 'TOKEN_ENCRYPTION_KEY' | 'DATA_DIR'>): Buffer {
  const secret = env.TOKEN_ENCRYPTION_KEY
    ? Buffer.from(env.TOKEN_ENCRYPTION_KEY, 'base64')
    : Buffer.from(
        readFileSync(path.resolve(env.DATA_DIR, 'keys', 'token-encryption-key'), 'utf8').trim(),
        'base64url',
      );
  return createHmac('sha256', secret).update('sign-in/browser-csrf/v1').digest();
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class SignInSessions implements BrowserSessions {
  private key: Buffer | undefined;

  constructor(
    private readonly deps: {
      db: Kysely<unknown>;
      env: Pick<PlatformEnv, 'TOKEN_ENCRYPTION_KEY' | 'DATA_DIR'>;
      publicBaseUrl: string;
    },
  ) {}

  private get csrfKey(): Buffer {
    this.key ??= csrfKeyFrom(this.deps.env);
    return this.key;
  }

  private sign(purpose: string, value: string): string {
    return createHmac('sha256', this.csrfKey).update(`${purpose}:${value}`).digest('base64url');
  }

  async current(c: Context): Promise<BrowserUser | null> {
    const { prefix } = cookieSettings(this.deps.publicBaseUrl, 0);
    const sessionId = getCookie(c, sessionCookieName, prefix);
    if (!sessionId || sessionId.length > 100) return null;
    const { rows } = await sql<{ user_id: string; email: string }>`
      select user_id, email from browser_sessions
      where id_hash = ${secretDigest(sessionId)} and revoked_at is null and expires_at > now()`.execute(
      this.deps.db,
    );
    const row = rows[0];
    return row ? { userId: row.user_id, email: row.email, sessionId } : null;
  }

  signInPath(returnTo: string): string {
    return signInPathFor(returnTo);
  }

  csrfToken(session: BrowserUser): string {
    return this.sign('session', session.sessionId);
  }

  verifyCsrf(session: BrowserUser, token: string | undefined): boolean {
    return typeof token === 'string' && sameToken(token, this.csrfToken(session));
  }

  /** Signs this browser in: a new session (a new id, whatever cookie it had; its old session ends) and its cookie. */
  async start(c: Context, user: { userId: string; email: string }): Promise<BrowserUser> {
    const previous = await this.current(c);
    if (previous) await this.revoke(previous);
    const sessionId = randomToken();
    await sql`
      insert into browser_sessions (id_hash, user_id, email, expires_at)
      values (${secretDigest(sessionId)}, ${user.userId}, ${user.email},
              now() + make_interval(hours => ${browserSessionHours}))`.execute(this.deps.db);
    const { options } = cookieSettings(this.deps.publicBaseUrl, browserSessionHours * 3600);
    setCookie(c, sessionCookieName, sessionId, options);
    return { ...user, sessionId };
  }

  /** Signs this browser out: the session ends for every instance, and the cookie goes. */
  async end(c: Context, session: BrowserUser): Promise<void> {
    await this.revoke(session);
    const { options } = cookieSettings(this.deps.publicBaseUrl, 0);
    deleteCookie(c, sessionCookieName, options);
  }

  private async revoke(session: BrowserUser): Promise<void> {
    await sql`
      update browser_sessions set revoked_at = now()
      where id_hash = ${secretDigest(session.sessionId)} and revoked_at is null`.execute(this.deps.db);
  }

  /**
   * A CSRF token for a form shown before anyone signed in (the sign-in form, the Continue button): a random value
   * in a cookie of this browser, and its HMAC in the form (a signed double-submit cookie).
   */
  preSessionToken(c: Context): string {
    const { options, prefix } = cookieSettings(this.deps.publicBaseUrl, 3600);
    let value = getCookie(c, preSessionCookieName, prefix);
    if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
      value = randomToken();
      setCookie(c, preSessionCookieName, value, options);
    }
    return this.sign('pre-session', value);
  }

  verifyPreSession(c: Context, token: string | undefined): boolean {
    const { prefix } = cookieSettings(this.deps.publicBaseUrl, 0);
    const value = getCookie(c, preSessionCookieName, prefix);
    return (
      typeof value === 'string' &&
      typeof token === 'string' &&
      sameToken(token, this.sign('pre-session', value))
    );
  }
}

/**
 * The browser sessions of this runtime, provided by the sign-in slice, for the sign-in pages and other slices'
 * pages behind a session (the consent page, the invitation page): `ctx.use(browserSessions)`.
 */
export const browserSessions = service<SignInSessions>()('browser sessions');

export function buildBrowserSessions(ctx: SliceContext<never>): SignInSessions {
  return new SignInSessions({
    db: ctx.database.db as Kysely<unknown>,
    env: ctx.env,
    publicBaseUrl: ctx.publicBaseUrl,
  });
}
