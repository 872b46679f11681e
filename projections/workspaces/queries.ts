// Queries over the workspaces read model: the caller's workspaces (GET /v1/orgs), one workspace, its members
// (with their profiles from the users read model) and membership look-ups.
import { sql, type Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { Forbidden, NotFound } from '../../domain/shared/errors.js';
import { isRole, roleNames, roles } from '../../domain/workspaces/roles.js';
import {
  memberIdOf,
  type MemberView,
  type WorkspaceListItem,
  type WorkspaceView,
} from '../../domain/workspaces/views.js';
import { workspaceDeleted } from '../../domain/workspaces/workspace.js';
import { escapeLike } from '../../infra/db/like.js';
import type { ReadModels, WorkspacesTable } from '../read-models.js';

export interface ListFilter {
  field: string;
  op: string;
  value?: string;
  values?: string[];
}

export interface ListParams {
  limit: number;
  offset: number;
  sortBy?: string;
  sortDir: 'asc' | 'desc';
  filters: readonly ListFilter[];
}

export interface WorkspaceOfUser {
  id: string;
  slug: string;
  name: string;
  status: string;
  avatar_url: string | null;
  role: string;
}

export async function listWorkspacesOfUser(
  db: Kysely<ReadModels>,
  userId: string,
  params: ListParams,
): Promise<WorkspaceOfUser[]> {
  let query = db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.org_id')
    .select(['w.id', 'w.slug', 'w.name', 'w.status', 'w.avatar_url', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('m.status', '=', 'active')
    .where('w.status', '=', 'active');
  for (const filter of params.filters) {
    const column = filter.field === 'name' ? 'w.name' : filter.field === 'slug' ? 'w.slug' : 'w.status';
    if (filter.op === 'eq' && filter.value !== undefined) query = query.where(column, '=', filter.value);
    else if (filter.op === 'contains' && filter.value !== undefined)
      query = query.where(column, 'ilike', `%${escapeLike(filter.value)}%`);
    else if (filter.op === 'in' && filter.values) query = query.where(column, 'in', filter.values);
  }
  const sortColumn = params.sortBy === 'slug' ? 'w.slug' : params.sortBy === 'status' ? 'w.status' : 'w.name';
  return query
    .orderBy(sortColumn, params.sortDir)
    .orderBy('w.id', 'asc')
    .limit(params.limit)
    .offset(params.offset)
    .execute();
}

/** The caller's workspaces (where they are an active member), with their role in each. */
export async function listWorkspaces(
  db: Kysely<ReadModels>,
  caller: Caller,
  params: ListParams,
): Promise<WorkspaceListItem[]> {
  authorize(caller, { scope: 'mcp:read' });
  const rows = await listWorkspacesOfUser(db, caller.userId, params);
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    status: r.status,
    avatarUrl: r.avatar_url,
    role: r.role,
    roleName: isRole(r.role) ? roleNames[r.role] : r.role,
  }));
}

/**
 * The user's role in the workspace for a request made with a token of it: null when they are not a member
 * (never were, or were removed); a suspended member is refused with 403 `membership_suspended`, a member of a
 * deleted workspace with 410 `workspace_deleted`, so every request, the token exchange and the tool server give
 * the same clear answer.
 */
export async function requireMembershipRole(
  db: Kysely<ReadModels>,
  userId: string,
  orgId: string,
): Promise<string | null> {
  const row = await membershipRow(db, userId, orgId);
  if (!row) return null;
  if (row.workspaceStatus === 'deleted') throw workspaceDeleted();
  if (row.status === 'suspended') {
    throw new Forbidden(
      'Your membership of this workspace is suspended; an owner or admin can reactivate it',
      'membership_suspended',
    );
  }
  return row.status === 'active' ? row.role : null;
}

/**
 * The user's role in the workspace when they are an active member of a workspace that is not deleted, else null:
 * for pages and flows that answer "not a member" in their own way (consent page, account connection callback).
 */
export async function findMembershipRole(
  db: Kysely<ReadModels>,
  userId: string,
  orgId: string,
): Promise<string | null> {
  const row = await membershipRow(db, userId, orgId);
  return row && row.status === 'active' && row.workspaceStatus !== 'deleted' ? row.role : null;
}

function membershipRow(db: Kysely<ReadModels>, userId: string, orgId: string) {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.org_id')
    .select(['m.role', 'm.status', 'w.status as workspaceStatus'])
    .where('m.user_id', '=', userId)
    .where('m.org_id', '=', orgId)
    .executeTakeFirst();
}

export async function firstWorkspaceOfUser(
  db: Kysely<ReadModels>,
  userId: string,
): Promise<{ orgId: string; role: string } | null> {
  const row = await db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.org_id')
    .select(['m.org_id', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('m.status', '=', 'active')
    .where('w.status', '=', 'active')
    .orderBy('m.joined_at', 'asc')
    .executeTakeFirst();
  return row ? { orgId: row.org_id, role: row.role } : null;
}

function workspaceViewOf(row: WorkspacesTable): WorkspaceView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    avatarUrl: row.avatar_url,
    ownerId: row.owner_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: row.updated_at === null ? null : new Date(row.updated_at).toISOString(),
  };
}

/** The caller's workspace (GET ORG): 404 when there is none, 410 once deleted. */
export async function getWorkspace(
  db: Kysely<ReadModels>,
  caller: Caller,
  orgId: string,
): Promise<WorkspaceView> {
  authorize(caller, { orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', orgId).executeTakeFirst();
  if (!row) throw new NotFound('Workspace not found');
  if (row.status === 'deleted') throw workspaceDeleted();
  return workspaceViewOf(row);
}

export type MemberFilterField = 'status' | 'roleKey' | 'email' | 'name';
export type MemberSortField = 'joinedAt' | 'createdAt' | 'role' | 'status' | 'email' | 'name';

export interface MemberListParams {
  limit: number;
  offset: number;
  sortBy?: MemberSortField;
  sortDir: 'asc' | 'desc';
  filters: ReadonlyArray<
    | { field: MemberFilterField; op: 'eq' | 'contains'; value: string }
    | { field: MemberFilterField; op: 'in'; values: string[] }
  >;
}

/** Roles from the most to the least powerful: sorting by role follows it, not the alphabet. */
const roleRank = sql<number>`array_position(${[...roles]}::text[], m.role)`;

/**
 * The workspace's members (active and suspended; removed ones are gone), with e-mail, name and avatar from
 * their user profile. `email` and `name` compare case-insensitively (`eq` and `contains`).
 */
export async function listMembers(
  db: Kysely<ReadModels>,
  caller: Caller,
  orgId: string,
  params: MemberListParams,
): Promise<MemberView[]> {
  authorize(caller, { orgId, permission: 'workspace:read', scope: 'mcp:read' });
  let query = db
    .selectFrom('workspace_members as m')
    .leftJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.role', 'm.status', 'm.joined_at', 'u.email', 'u.name', 'u.avatar_url'])
    .where('m.org_id', '=', orgId);
  for (const filter of params.filters) {
    if (filter.field === 'status' || filter.field === 'roleKey') {
      const column = filter.field === 'status' ? 'm.status' : 'm.role';
      query =
        filter.op === 'in'
          ? query.where(column, 'in', filter.values)
          : query.where(column, '=', filter.value);
      continue;
    }
    if (filter.op === 'in') continue; // not allowed for e-mail and name (the route refuses it)
    const column = filter.field === 'email' ? sql<string>`lower(u.email)` : sql<string>`lower(u.name)`;
    const value = filter.value.toLowerCase();
    query =
      filter.op === 'eq'
        ? query.where(column, '=', value)
        : query.where(column, 'like', `%${escapeLike(value)}%`);
  }
  const dir = params.sortDir;
  switch (params.sortBy ?? 'joinedAt') {
    case 'joinedAt':
    case 'createdAt':
      query = query.orderBy('m.joined_at', dir);
      break;
    case 'role':
      query = query.orderBy(roleRank, dir);
      break;
    case 'status':
      query = query.orderBy('m.status', dir);
      break;
    case 'email':
      query = query.orderBy(sql`lower(u.email)`, (ob) => (dir === 'asc' ? ob.asc() : ob.desc()).nullsLast());
      break;
    case 'name':
      query = query.orderBy(sql`lower(u.name)`, (ob) => (dir === 'asc' ? ob.asc() : ob.desc()).nullsLast());
      break;
  }
  const rows = await query.orderBy('m.user_id', 'asc').limit(params.limit).offset(params.offset).execute();
  return rows.map((r) => ({
    id: memberIdOf(orgId, r.user_id),
    userId: r.user_id,
    email: r.email,
    name: r.name,
    avatarUrl: r.avatar_url,
    role: isRole(r.role) ? roleNames[r.role] : r.role,
    roleKey: r.role,
    status: r.status,
    joinedAt: new Date(r.joined_at).toISOString(),
  }));
}
