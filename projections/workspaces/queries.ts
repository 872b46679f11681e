// Queries over the workspaces read model: the caller's workspaces (GET /v1/orgs) and membership look-ups.
import type { Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { isRole, roleNames } from '../../domain/workspaces/roles.js';
import type { WorkspaceListItem } from '../../domain/workspaces/views.js';
import type { ReadModels } from '../read-models.js';

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

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

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
    .where('m.status', '=', 'active');
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

export async function findMembershipRole(
  db: Kysely<ReadModels>,
  userId: string,
  orgId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('workspace_members')
    .select('role')
    .where('user_id', '=', userId)
    .where('org_id', '=', orgId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row?.role ?? null;
}

export async function firstWorkspaceOfUser(
  db: Kysely<ReadModels>,
  userId: string,
): Promise<{ orgId: string; role: string } | null> {
  const row = await db
    .selectFrom('workspace_members')
    .select(['org_id', 'role'])
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .orderBy('joined_at', 'asc')
    .executeTakeFirst();
  return row ? { orgId: row.org_id, role: row.role } : null;
}
