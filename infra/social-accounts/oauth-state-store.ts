// Pending OAuth authorizations (one per oauth/start, consumed once by its callback) and pending LinkedIn page
// choices, in PostgreSQL so any instance can answer the callback. Secrets are sealed; states are stored hashed.
import { createHash } from 'node:crypto';
import { sql, type Migration, type QueryExecutorProvider } from 'kysely';
import type { Platform } from '../../domain/post-groups/post-content.js';
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

/** The database keeps only this digest, so a leaked table row cannot be replayed as a state or choice. */
export function secretDigest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

// The associated data binds each sealed value to its row and owner: a sealed blob moved to another row fails.
const stateAad = (hash: string, orgId: string, userId: string, platform: string) =>
  `oauthState:${hash}:${orgId}:${userId}:${platform}`;
const choiceAad = (hash: string, orgId: string, userId: string) =>
  `linkedinPageChoice:${hash}:${orgId}:${userId}`;

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

  async saveAuthorization(state: string, pending: PendingAuthorization): Promise<void> {
    const hash = secretDigest(state);
    const sealed = this.cipher.encrypt(
      JSON.stringify({ codeVerifier: pending.codeVerifier, context: pending.context ?? null }),
      stateAad(hash, pending.orgId, pending.userId, pending.platform),
    );
    await sql`delete from oauth_pending_authorizations where expires_at < now()`.execute(this.db);
    await sql`
      insert into oauth_pending_authorizations
        (state_hash, org_id, user_id, platform, redirect_uri, linkedin_target, bluesky_handle, sealed_secrets, expires_at)
      values (${hash}, ${pending.orgId}, ${pending.userId}, ${pending.platform}, ${pending.redirectUri},
        ${pending.linkedinTarget}, ${pending.blueskyHandle}, ${sealed},
        now() + make_interval(mins => ${authorizationLifetimeMinutes}))`.execute(this.db);
  }

  /**
   * Marks the state used and returns what oauth/start stored, or null when it is unknown, expired, already
   * used or was started for another platform (or, for LinkedIn, another target: the member and the pages
   * callbacks are separate). One statement, so of two racing callbacks exactly one wins.
   */
  async consumeAuthorization(
    state: string,
    platform: Platform,
    linkedinTarget?: LinkedinTarget,
  ): Promise<PendingAuthorization | null> {
    const hash = secretDigest(state);
    const result = await sql<AuthorizationRow>`
      update oauth_pending_authorizations set used_at = now()
      where state_hash = ${hash} and platform = ${platform} and used_at is null and expires_at > now()
        and (${linkedinTarget ?? null}::text is null or linkedin_target = ${linkedinTarget ?? null})
      returning org_id, user_id, platform, redirect_uri, linkedin_target, bluesky_handle, sealed_secrets`.execute(
      this.db,
    );
    const row = result.rows[0];
    if (!row) return null;
    const secrets = JSON.parse(
      this.cipher.decrypt(row.sealed_secrets, stateAad(hash, row.org_id, row.user_id, row.platform)),
    ) as { codeVerifier: string; context: Record<string, unknown> | null };
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
