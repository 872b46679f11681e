// Who is calling: the verified identity behind a bearer token, with its workspace, role and permissions.
// Tokens issued by this service carry a workspace; tokens of an external identity provider only a user.
import type { AppError } from '../../domain/shared/errors.js';
import type { Permission, Role } from '../../domain/workspaces/roles.js';

/**
 * The sign-in a token descends from. Exchanged tokens carry it over unchanged, so exchanging never extends it:
 * it ends SESSION_MAX_AGE_SECONDS after `authTime`, and no token of it lives longer.
 */
export interface Session {
  /** `sid`: the same through every exchange. */
  id: string;
  /** `auth_time`: when the session began, in seconds since the epoch. */
  authTime: number;
}

export interface Principal {
  userId: string;
  email?: string;
  /** The one workspace this token is scoped to; null for a user-only token (before choosing a workspace). */
  orgId: string | null;
  /** The role the user holds in that workspace now (checked on every request), not the one the token names. */
  role: Role | null;
  permissions: Permission[];
  session: Session;
  /** `local`: issued by this service; `external`: issued by the identity provider behind AUTH_JWKS_URL. */
  source: 'local' | 'external';
  /**
   * The token's workspace refused it (403 `membership_suspended`, 410 `workspace_deleted`): the token then acts
   * as a user-only one (`orgId` null) on the routes that need no workspace (list or create workspaces, exchange
   * the token for another one, the user's profile), and every route of that workspace answers this error.
   */
  workspaceRefusal?: { orgId: string; error: AppError };
}
