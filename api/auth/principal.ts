// Who is calling: the verified identity behind a bearer token, with its workspace, role and permissions.
// Tokens issued by this service carry a workspace; tokens of an external identity provider only a user.
import type { Permission, Role } from '../../domain/workspaces/roles.js';

export interface Principal {
  userId: string;
  email?: string;
  /** The one workspace this token is scoped to; null for a user-only token (before choosing a workspace). */
  orgId: string | null;
  role: Role | null;
  permissions: Permission[];
  /** `local`: issued by this service; `external`: issued by the identity provider behind AUTH_JWKS_URL. */
  source: 'local' | 'external';
}
