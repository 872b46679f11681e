// A user as callers see it (the spec's User): rendered from the aggregate, or read from the users read model,
// which adds what other parts of the service know (a verified e-mail, feature flags).
import type { UserState } from './user.js';

export interface UserView {
  id: string;
  email: string;
  /** Null when nobody verified the address (users made by the CLI). */
  emailVerified: boolean | null;
  name: string | null;
  avatarUrl: string | null;
  activeOrgId: string | null;
  featureFlags: string[];
  createdAt: string;
  updatedAt: string | null;
}

export function userView(user: Extract<UserState, { status: 'registered' }>): UserView {
  return {
    id: user.userId,
    email: user.email,
    emailVerified: null,
    name: user.name,
    avatarUrl: user.avatarUrl,
    activeOrgId: user.activeOrgId,
    featureFlags: [],
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}
