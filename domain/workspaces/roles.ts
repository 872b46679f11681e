// Workspace roles and the permissions each grants. Approving is a permission of its own, apart from drafting,
// so a workspace can let people draft without letting them approve (docs/decisions.md, "Roles").

export const permissions = [
  'workspace:read',
  'workspace:manage',
  'workspace:delete',
  'members:manage',
  'billing:manage',
  'settings:manage',
  'posts:read',
  'posts:draft',
  'posts:approve',
  'posts:schedule',
  'posts:publish',
  'posts:delete',
  'accounts:manage',
  'brand:write',
  'audit:read',
  'strategy:manage',
] as const;
export type Permission = (typeof permissions)[number];

export const roles = ['owner', 'admin', 'reviewer', 'editor', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const roleNames: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  reviewer: 'Reviewer',
  editor: 'Editor',
  viewer: 'Viewer',
};

const all = [...permissions];

export const rolePermissions: Record<Role, readonly Permission[]> = {
  owner: all,
  // Deleting the workspace stays with owners; billing is for owners and admins (issue 14).
  admin: all.filter((p) => p !== 'workspace:delete'),
  // Reviewers approve, reject, schedule and publish what others drafted; they do not draft themselves.
  reviewer: ['workspace:read', 'posts:read', 'posts:approve', 'posts:schedule', 'posts:publish'],
  // Editors draft and edit; anything they change goes back to review.
  editor: ['workspace:read', 'posts:read', 'posts:draft', 'brand:write'],
  viewer: ['workspace:read', 'posts:read'],
};

export function isRole(value: string): value is Role {
  return (roles as readonly string[]).includes(value);
}

export function permissionsOf(role: Role): readonly Permission[] {
  return rolePermissions[role];
}
