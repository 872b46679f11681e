// A workspace as callers see it (the spec's Workspace), and one of the caller's workspaces in their list, with
// the caller's role in it.
import type { WorkspaceState } from './workspace.js';

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
