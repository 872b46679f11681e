// A workspace as callers see it (the spec's Workspace), one of the caller's workspaces in their list (with the
// caller's role in it), and members as the spec shows them (Member, Member update result) with their ids.
import { deterministicUuid } from '../shared/ids.js';
import type { Role } from './roles.js';
import type { WorkspaceMember, WorkspaceState } from './workspace.js';

export interface WorkspaceView {
  id: string;
  slug: string;
  name: string;
  status: string;
  avatarUrl: string | null;
  ownerId: string | null;
  createdAt: string;
  updatedAt: string | null;
}

export interface WorkspaceListItem {
  id: string;
  slug: string;
  name: string;
  status: string;
  avatarUrl: string | null;
  /** The caller's role, and its name as the app shows it. */
  role: string;
  roleName: string;
}

export function workspaceView(w: Extract<WorkspaceState, { status: 'active' }>): WorkspaceView {
  return {
    id: w.orgId,
    slug: w.slug,
    name: w.name,
    status: 'active',
    avatarUrl: w.avatarUrl,
    ownerId: w.ownerId,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

/** A member's id in one workspace: derived from the workspace and the user, so it differs per workspace. */
export function memberIdOf(orgId: string, userId: string): string {
  return deterministicUuid('workspace-member', orgId, userId);
}

/** The fixed id of a role (the spec's Member update result `roleId`): the same in every workspace. */
export function roleIdOf(role: Role): string {
  return deterministicUuid('workspace-role', role);
}

/** A member as the spec's Member shows them; e-mail, name and avatar come from the user's profile. */
export interface MemberView {
  id: string;
  userId: string;
  email: string | null;
  name: string | null;
  avatarUrl: string | null;
  /** The role's display name (`Owner`), and its key (`owner`). */
  role: string;
  roleKey: string;
  status: string;
  joinedAt: string | null;
}

/** The spec's Member update result. */
export interface MemberUpdateView {
  id: string;
  roleId: string | null;
  status: string | null;
}

export function memberUpdateView(orgId: string, userId: string, member: WorkspaceMember): MemberUpdateView {
  return { id: memberIdOf(orgId, userId), roleId: roleIdOf(member.role), status: member.status };
}
