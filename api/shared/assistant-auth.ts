// Contracts between the three slices that let AI assistants in: the sign-in pages (api/sign-in: a person signs
// in at the service in a browser), the OAuth 2.1 authorization server (api/oauth: clients, consent, codes and
// tokens) and the assistant-tool server (api/mcp). Each slice builds its part once per runtime and hands it to
// the others through the `…Of(ctx)` accessor it exports, so no slice reaches into another's tables.
import type { Context } from 'hono';
import type { AssistantScope } from '../../domain/shared/caller.js';

/** A person signed in at the service in this browser (a session cookie set by the sign-in pages). */
export interface BrowserUser {
  userId: string;
  email: string;
  /** The browser session's id; CSRF tokens are bound to it. */
  sessionId: string;
}

/** The browser sessions of the sign-in pages, for pages of other slices (the consent page). */
export interface BrowserSessions {
  /** The person signed in in this request's browser, or null. */
  current(c: Context): Promise<BrowserUser | null>;
  /** Where to send a browser that must sign in first; after signing in it comes back to `returnTo` (a path of this service). */
  signInPath(returnTo: string): string;
  /** A CSRF token for a form shown to this session. */
  csrfToken(session: BrowserUser): string;
  /** Whether a form's CSRF token belongs to this session (false: refuse the POST with 403, change nothing). */
  verifyCsrf(session: BrowserUser, token: string | undefined): boolean;
}

/** What a live assistant access token stands for: one connection of one user to one workspace. */
export interface AssistantGrant {
  connectionId: string;
  clientId: string;
  /** The client's registered (or metadata-document) name, for audit lines ("assistant <name> on behalf of <user>"). */
  clientName: string;
  userId: string;
  orgId: string;
  /** Granted scopes; always includes `mcp:read`. */
  scopes: readonly AssistantScope[];
}

/** The authorization server's side of the tool server's bearer check. */
export interface AssistantTokens {
  /**
   * The grant of an access token issued for the tool server (`{base}/mcp`), or null when it is unknown,
   * expired, revoked, or its connection ended. Marks the connection as used (connected apps' lastUsedAt).
   */
  verifyAccessToken(token: string): Promise<AssistantGrant | null>;
  /**
   * Ends a connection and every token issued for it: the tool server ends one whose user is no longer a member
   * of its workspace, so rejoining later does not revive it.
   */
  endConnection(connectionId: string): Promise<void>;
}
