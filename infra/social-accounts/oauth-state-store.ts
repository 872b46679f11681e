// Pending OAuth authorizations (one per oauth/start, bound to the first browser that opens it, consumed once by
// its callback from that browser) and pending LinkedIn page choices, in PostgreSQL so any instance can answer.
// Secrets are sealed; states and browser nonces are stored hashed.
import { secretDigest } from '../crypto/digests.js';
import { sql, type Migration, type QueryExecutorProvider } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import type { TokenSet } from '../connectors/port.js';
import type { TokenCipher } from '../crypto/token-cipher.js';

export const oauthStateMigrations: Record<string, Migration> = {
  '0009_oauth_pending_authorizations': {
    async up(db) {
      await sql`
        create table oauth_pending_authorizations (
          state_hash text primary key,
          org_id uuid not null,
          user_id text not null,
          platform text not null,
          redirect_uri text not null,
          linkedin_target text null,
          bluesky_handle text null,
          -- code verifier and connector context, sealed with the token cipher
          sealed_secrets text not null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          used_at timestamptz null
        )`.execute(db);
      await sql`create index oauth_pending_authorizations_expires_at on oauth_pending_authorizations (expires_at)`.execute(
        db,
      );
      await sql`
        create table oauth_linkedin_page_choices (
          choice_hash text primary key,
          org_id uuid not null,
          user_id text not null,
          options jsonb not null,
          sealed_tokens text not null,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null,
          used_at timestamptz null
        )`.execute(db);
      await sql`create index oauth_linkedin_page_choices_expires_at on oauth_linkedin_page_choices (expires_at)`.execute(
        db,
      );
    },
    async down(db) {
      await sql`drop table oauth_linkedin_page_choices`.execute(db);
      await sql`drop table oauth_pending_authorizations`.execute(db);
    },
  },
  '0016_oauth_browser_binding': {
    async up(db) {
      // SHA-256 of the nonce in the cookie of the browser that opened the authorization first; null until then.
      await sql`alter table oauth_pending_authorizations add column browser_hash text null`.execute(db);
    },
    async down(db) {
      await sql`alter table oauth_pending_authorizations drop column browser_hash`.execute(db);
    },
  },
};

/** How long a user has between oauth/start and the platform's callback. */
export const authorizationLifetimeMinutes = 10;
/** How long a LinkedIn page choice waits for the user to pick pages. */
export const pageChoiceLifetimeMinutes = 30;

export type LinkedinTarget = 'profile' | 'page';

export interface PendingAuthorization {
  orgId: string;
  userId: string;
  platform: Platform;
  redirectUri: string;
  linkedinTarget: LinkedinTarget | null;
  blueskyHandle: string | null;
  codeVerifier: string;
  context: Record<string, unknown> | undefined;
}

/** What oauth/start keeps: the authorization, and the platform's URL our begin URL sends the browser on to. */
export interface NewAuthorization extends PendingAuthorization {
  /** Carries the raw state, so it is sealed with the verifier. */
  platformAuthorizationUrl: string;
  /** The nonce of the starter's browser cookie; only its digest is kept. */
  browserNonce: string;
}

/** An open authorization, opened by the browser that started it. */
export interface BegunAuthorization {
  platform: Platform;
  linkedinTarget: LinkedinTarget | null;
  platformAuthorizationUrl: string;
}

export interface PageOption {
  id: string;
  name: string;
  vanityName: string | null;
}

export interface PendingPageChoice {
  orgId: string;
  userId: string;
  options: PageOption[];
  tokens: TokenSet;
}

export { secretDigest };

// The associated data binds each sealed value to its row and owner: a sealed blob moved to another row fails.
const stateAad = (hash: string, orgId: string, userId: string, platform: string) =>
  `oauthState:${hash}:${orgId}:${userId}:${platform}`;
const choiceAad = (hash: string, orgId: string, userId: string) =>
  `linkedinPageChoice:${hash}:${orgId}:${userId}`;

interface SealedSecrets {
  codeVerifier: string;
  context: Record<string, unknown> | null;
  /** Absent in rows saved before browser binding (they cannot be begun, and expire within 10 minutes). */
  platformAuthorizationUrl?: string;
}

interface AuthorizationRow {
  org_id: string;
  user_id: string;
  platform: string;
  redirect_uri: string;
  linkedin_target: string | null;
  bluesky_handle: string | null;
  sealed_secrets: string;
}

interface ChoiceRow {
  org_id: string;
  user_id: string;
  options: PageOption[];
  sealed_tokens: string;
}

/**
 * Lifetimes run on the database clock, like slot claims, so instances with skewed clocks agree on expiry.
 * Expired rows are purged on every write: they are never read again.
 */
export class OAuthStateStore {
  constructor(
    private readonly db: QueryExecutorProvider,
    private readonly cipher: TokenCipher,
  ) {}

  async saveAuthorization(state: string, pending: NewAuthorization): Promise<void> {
    const hash = secretDigest(state);
    const secrets: SealedSecrets = {
      codeVerifier: pending.codeVerifier,
      context: pending.context ?? null,
      platformAuthorizationUrl: pending.platformAuthorizationUrl,
    };
    const sealed = this.cipher.encrypt(
      JSON.stringify(secrets),
      stateAad(hash, pending.orgId, pending.userId, pending.platform),
    );
    await sql`delete from oauth_pending_authorizations where expires_at < now()`.execute(this.db);
    await sql`
      insert into oauth_pending_authorizations
        (state_hash, org_id, user_id, platform, redirect_uri, linkedin_target, bluesky_handle, sealed_secrets,
         browser_hash, expires_at)
      values (${hash}, ${pending.orgId}, ${pending.userId}, ${pending.platform}, ${pending.redirectUri},
        ${pending.linkedinTarget}, ${pending.blueskyHandle}, ${sealed}, ${secretDigest(pending.browserNonce)},
        now() + make_interval(mins => ${authorizationLifetimeMinutes}))`.execute(this.db);
  }

  /**
   * The platform's authorization URL of an open authorization, for the browser that started it only (it
   * presents the nonce of the cookie oauth/start set). Null when the state is unknown, expired, used, for
   * another callback, or started in another browser (see `isOpen`). Reading does not consume: the same browser
   * may open it again (the back button).
   */
  async beginAuthorization(
    state: string,
    where: { platform: Platform; linkedinTarget?: LinkedinTarget },
    browserNonce: string | undefined,
  ): Promise<BegunAuthorization | null> {
    if (browserNonce === undefined) return null;
    const hash = secretDigest(state);
    const result = await sql<
      Pick<AuthorizationRow, 'org_id' | 'user_id' | 'platform' | 'linkedin_target' | 'sealed_secrets'>
    >`
      select org_id, user_id, platform, linkedin_target, sealed_secrets from oauth_pending_authorizations
      where state_hash = ${hash} and platform = ${where.platform} and used_at is null and expires_at > now()
        and (${where.linkedinTarget ?? null}::text is null or linkedin_target = ${where.linkedinTarget ?? null})
        and browser_hash = ${secretDigest(browserNonce)}`.execute(this.db);
    const row = result.rows[0];
    if (!row) return null;
    const secrets = this.unseal(hash, row);
    if (!secrets.platformAuthorizationUrl) return null;
    return {
      platform: row.platform as Platform,
      linkedinTarget: row.linkedin_target as LinkedinTarget | null,
      platformAuthorizationUrl: secrets.platformAuthorizationUrl,
    };
  }

  /** Whether the state is open (unused, unexpired) for this callback, whichever browser it is bound to. */
  async isOpen(
    state: string,
    where: { platform: Platform; linkedinTarget?: LinkedinTarget },
  ): Promise<boolean> {
    return (await this.openRedirectUri(state, where)) !== null;
  }

  /**
   * The redirectUri oauth/start stored for an open state (unused, unexpired, for this callback), whichever
   * browser it is bound to; null otherwise. Reading does not consume. It is one of our own origins (checked at
   * start), so a callback that is refused can still name where the app wants the user back.
   */
  async openRedirectUri(
    state: string,
    where: { platform: Platform; linkedinTarget?: LinkedinTarget },
  ): Promise<string | null> {
    const result = await sql<Pick<AuthorizationRow, 'redirect_uri'>>`
      select redirect_uri from oauth_pending_authorizations
      where state_hash = ${secretDigest(state)} and platform = ${where.platform}
        and used_at is null and expires_at > now()
        and (${where.linkedinTarget ?? null}::text is null or linkedin_target = ${where.linkedinTarget ?? null})`.execute(
      this.db,
    );
    return result.rows[0]?.redirect_uri ?? null;
  }

  /**
   * Marks the state used and returns what oauth/start stored, or null when it is unknown, expired, already
   * used, was started for another platform (or, for LinkedIn, another target: the member and the pages
   * callbacks are separate), or the browser's nonce is missing or not the one that opened it. One statement,
   * so of two racing callbacks exactly one wins.
   */
  async consumeAuthorization(
    state: string,
    platform: Platform,
    linkedinTarget: LinkedinTarget | undefined,
    browserNonce: string | undefined,
  ): Promise<PendingAuthorization | null> {
    if (browserNonce === undefined) return null;
    const hash = secretDigest(state);
    const result = await sql<AuthorizationRow>`
      update oauth_pending_authorizations set used_at = now()
      where state_hash = ${hash} and platform = ${platform} and used_at is null and expires_at > now()
        and (${linkedinTarget ?? null}::text is null or linkedin_target = ${linkedinTarget ?? null})
        and browser_hash = ${secretDigest(browserNonce)}
      returning org_id, user_id, platform, redirect_uri, linkedin_target, bluesky_handle, sealed_secrets`.execute(
      this.db,
    );
    const row = result.rows[0];
    if (!row) return null;
    const secrets = this.unseal(hash, row);
    return {
      orgId: row.org_id,
      userId: row.user_id,
      platform: row.platform as Platform,
      redirectUri: row.redirect_uri,
      linkedinTarget: row.linkedin_target as LinkedinTarget | null,
      blueskyHandle: row.bluesky_handle,
      codeVerifier: secrets.codeVerifier,
      context: secrets.context ?? undefined,
    };
  }

  private unseal(
    hash: string,
    row: Pick<AuthorizationRow, 'org_id' | 'user_id' | 'platform' | 'sealed_secrets'>,
  ): SealedSecrets {
    return JSON.parse(
      this.cipher.decrypt(row.sealed_secrets, stateAad(hash, row.org_id, row.user_id, row.platform)),
    ) as SealedSecrets;
  }

  async savePageChoice(choice: string, pending: PendingPageChoice): Promise<void> {
    const hash = secretDigest(choice);
    const sealed = this.cipher.encrypt(
      JSON.stringify(pending.tokens),
      choiceAad(hash, pending.orgId, pending.userId),
    );
    await sql`delete from oauth_linkedin_page_choices where expires_at < now()`.execute(this.db);
    await sql`
      insert into oauth_linkedin_page_choices (choice_hash, org_id, user_id, options, sealed_tokens, expires_at)
      values (${hash}, ${pending.orgId}, ${pending.userId}, ${JSON.stringify(pending.options)}::jsonb, ${sealed},
        now() + make_interval(mins => ${pageChoiceLifetimeMinutes}))`.execute(this.db);
  }

  /** The open choice if it belongs to this workspace and user; null otherwise (the caller answers 404). */
  async findPageChoice(
    choice: string,
    owner: { orgId: string; userId: string },
  ): Promise<PendingPageChoice | null> {
    const hash = secretDigest(choice);
    const result = await sql<ChoiceRow>`
      select org_id, user_id, options, sealed_tokens from oauth_linkedin_page_choices
      where choice_hash = ${hash} and org_id = ${owner.orgId} and user_id = ${owner.userId}
        and used_at is null and expires_at > now()`.execute(this.db);
    const row = result.rows[0];
    if (!row) return null;
    return {
      orgId: row.org_id,
      userId: row.user_id,
      options: row.options,
      tokens: JSON.parse(
        this.cipher.decrypt(row.sealed_tokens, choiceAad(hash, row.org_id, row.user_id)),
      ) as TokenSet,
    };
  }

  /** Closes a choice once its pages are connected; false when another request closed it first. */
  async closePageChoice(choice: string, owner: { orgId: string; userId: string }): Promise<boolean> {
    const result = await sql`
      update oauth_linkedin_page_choices set used_at = now()
      where choice_hash = ${secretDigest(choice)} and org_id = ${owner.orgId} and user_id = ${owner.userId}
        and used_at is null`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }
}
