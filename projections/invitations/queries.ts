// Queries over the invitations read model: a workspace's invitations (filters, sorts, paging), the pending
// invitation of an address, a presented token's invitation, and the member checks inviting and accepting make.
// `expired` is derived here from the clock given, so it never drifts from `expiresAt`.
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { isRole, roleNames, roles, type Role } from '../../domain/workspaces/roles.js';
import { normaliseInvitedEmail, type InvitationStatus } from '../../domain/invitations/invitation.js';
import type { InvitationListItem } from '../../domain/invitations/views.js';
import { escapeLike } from '../../infra/db/like.js';
import type { ReadModels } from '../read-models.js';
import type { InvitationsTables } from './invitations-projection.js';

type Db = Kysely<ReadModels>;
const tablesOf = (db: Db) => db.withTables<InvitationsTables>();

export type InvitationFilterField = 'status' | 'email' | 'roleKey' | 'createdAtFrom' | 'createdAtTo';
export type InvitationSort = 'createdAt' | 'expiresAt' | 'email' | 'status' | 'roleKey';

export type InvitationFilter =
  | { field: InvitationFilterField; op: 'eq' | 'contains' | 'gte' | 'lte'; value: string }
  | { field: InvitationFilterField; op: 'in'; values: string[] };

export interface InvitationQuery {
  filters: readonly InvitationFilter[];
  sortBy: InvitationSort;
  sortDir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The status a reader sees at `now`: a pending invitation past its expiry is `expired`. */
function effectiveStatus(now: string, table?: string) {
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  return sql<string>`case when ${column('status')} = 'pending' and ${column('expires_at')} <= ${now}::timestamptz then 'expired' else ${column('status')} end`;
}

function condition(filter: InvitationFilter, now: string): Expression<SqlBool> {
  const status = effectiveStatus(now);
  if (filter.op === 'in') {
    const column = filter.field === 'status' ? status : sql`role_key`;
    return sql<SqlBool>`${column} in (${sql.join(filter.values)})`;
  }
  const value = filter.value;
  switch (filter.field) {
    case 'status':
      return sql<SqlBool>`${status} = ${value}`;
    case 'roleKey':
      return sql<SqlBool>`role_key = ${value}`;
    case 'email':
      // Addresses are stored lower-cased; both operators ignore case.
      return filter.op === 'contains'
        ? sql<SqlBool>`email ilike ${`%${escapeLike(value)}%`}`
        : sql<SqlBool>`email = ${normaliseInvitedEmail(value)}`;
    case 'createdAtFrom':
      return sql<SqlBool>`created_at >= ${value}::timestamptz`;
    case 'createdAtTo':
      return sql<SqlBool>`created_at <= ${value}::timestamptz`;
    default: {
      const never: never = filter.field;
      throw new Error(`unknown invitation filter ${String(never)}`);
    }
  }
}

const sortColumns = (now: string): Record<InvitationSort, Expression<unknown>> => ({
  createdAt: sql`created_at`,
  expiresAt: sql`expires_at`,
  email: sql`email`,
  status: effectiveStatus(now),
  // By rank, not by name: ascending lists owners first, viewers last.
  roleKey: sql`array_position(${sql.val([...roles])}::text[], role_key)`,
});

/** The workspace's invitations for a caller who manages members; a plain array honouring page and limit. */
export async function listInvitations(
  db: Db,
  caller: Caller,
  input: { orgId: string; query: InvitationQuery; now: string },
): Promise<InvitationListItem[]> {
  authorize(caller, { orgId: input.orgId, permission: 'members:manage', scope: null });
  const { query, now } = input;
  let select = tablesOf(db)
    .selectFrom('invitations')
    .select(['id', 'email', 'role_key', 'expires_at', 'created_at'])
    .select(effectiveStatus(now).as('status'))
    .where('org_id', '=', input.orgId);
  for (const filter of query.filters) select = select.where(condition(filter, now));
  const direction = query.sortDir === 'desc' ? sql`desc` : sql`asc`;
  const rows = await select
    .orderBy(sql`${sortColumns(now)[query.sortBy]} ${direction}`)
    .orderBy(sql`id ${direction}`)
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return rows.map((r) => {
    const roleKey = r.role_key as Role;
    return {
      id: r.id,
      email: r.email,
      roleKey,
      roleName: isRole(roleKey) ? roleNames[roleKey] : roleKey,
      status: r.status as InvitationStatus,
      expiresAt: r.expires_at,
      createdAt: r.created_at,
    };
  });
}

/** Another invitation to this address in the workspace still pending at `now`, if any. */
export async function pendingInvitationFor(
  db: Db,
  input: { orgId: string; email: string; now: string; exceptId?: string },
): Promise<string | null> {
  let select = tablesOf(db)
    .selectFrom('invitations')
    .select('id')
    .where('org_id', '=', input.orgId)
    .where('email', '=', input.email)
    .where('status', '=', 'pending')
    .where(sql<SqlBool>`expires_at > ${input.now}::timestamptz`);
  if (input.exceptId !== undefined) select = select.where('id', '!=', input.exceptId);
  const row = await select.orderBy('created_at', 'desc').executeTakeFirst();
  return row?.id ?? null;
}

export interface InvitationByToken {
  id: string;
  orgId: string;
  orgName: string;
  orgSlug: string;
  /** The workspace's status (`active`, or `deleted` once soft-deleted). */
  orgStatus: string;
  email: string;
  roleKey: Role;
  status: InvitationStatus;
  expiresAt: string;
}

/** The invitation a token's hash belongs to, with its workspace's name, as of `now`; null for an unknown one. */
export async function invitationByTokenHash(
  db: Db,
  tokenHash: string,
  now: string,
): Promise<InvitationByToken | null> {
  const row = await db
    .withTables<InvitationsTables>()
    .selectFrom('invitations as i')
    .innerJoin('workspaces as w', 'w.id', 'i.org_id')
    .select([
      'i.id',
      'i.org_id',
      'w.name',
      'w.slug',
      'w.status as org_status',
      'i.email',
      'i.role_key',
      'i.expires_at',
    ])
    .select(effectiveStatus(now, 'i').as('status'))
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    orgId: row.org_id,
    orgName: row.name,
    orgSlug: row.slug,
    orgStatus: row.org_status,
    email: row.email,
    roleKey: row.role_key as Role,
    status: row.status as InvitationStatus,
    expiresAt: row.expires_at,
  };
}

/** Whether the address is a member's of the workspace, active or suspended (addresses compared case-insensitively). */
export async function isMemberByEmail(db: Db, orgId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.user_id')
    .where('m.org_id', '=', orgId)
    .where(sql<SqlBool>`lower(u.email) = ${normaliseInvitedEmail(email)}`)
    .executeTakeFirst();
  return row !== undefined;
}

/** The user's membership of the workspace as recorded (`active`, `suspended`, …), or null when none. */
export async function membershipStatus(db: Db, orgId: string, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom('workspace_members')
    .select('status')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.status ?? null;
}

/** The workspace's name, and an inviter's name or address, for the invitation mail. */
export async function invitationMailContext(
  db: Db,
  orgId: string,
  inviterId: string,
): Promise<{ orgName: string; inviter: string | null }> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', orgId)
    .executeTakeFirst();
  const inviter = await db
    .selectFrom('users')
    .select(['name', 'email'])
    .where('id', '=', inviterId)
    .executeTakeFirst();
  return {
    orgName: workspace?.name ?? 'a workspace',
    inviter: inviter ? (inviter.name ?? inviter.email) : null,
  };
}
