// Read model of workspaces and their members, shaped for GET /v1/orgs (the caller's workspaces with role,
// filters on name/slug/status, sort by name/slug/status), GET ORG, the member list and membership checks.
// Every event naming a member is announced (membership-changes.ts), and a deleted workspace's every member, so
// the API's membership cache drops them at once. Suspended members keep their row (status `suspended`), removed
// ones lose it; a deleted workspace keeps its rows with status `deleted` (its slug may then be taken again).
import { sql, type Transaction } from 'kysely';
import { workspaceEventCodec } from '../../domain/workspaces/event-codec.js';
import { assertNever } from '../../domain/shared/decider.js';
import type { WorkspaceEvent } from '../../domain/workspaces/workspace.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';
import type { ReadModels } from '../read-models.js';
import { announceMembershipChange, announceMembershipChanges } from './membership-changes.js';

export const workspacesProjection = defineProjection({
  name: 'workspaces',
  version: 2,
  tables: ['workspaces', 'workspace_members'],
  reads: [readsFrom(workspaceEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.workspaces (
        id uuid primary key,
        slug text not null,
        name text not null,
        status text not null,
        avatar_url text,
        owner_id uuid,
        created_at timestamptz not null,
        updated_at timestamptz
      )`.execute(trx);
    // A deleted workspace keeps its row; its slug may be another's by then.
    await sql`create unique index on ${s}.workspaces (slug) where status <> 'deleted'`.execute(trx);
    await sql`create index on ${s}.workspaces (lower(name))`.execute(trx);
    await sql`create index on ${s}.workspaces (status)`.execute(trx);
    await sql`
      create table ${s}.workspace_members (
        org_id uuid not null,
        user_id uuid not null,
        role text not null,
        status text not null,
        joined_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, user_id)
      )`.execute(trx);
    await sql`create index on ${s}.workspace_members (user_id, org_id)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withSchema(schema);
    // Whatever the event does to the member's row (join, role, and later suspension or removal) takes effect
    // at the commit, like the announcement, which goes first so a cache never keeps the row as it was.
    const member = event.data as { orgId: string; userId?: string };
    if (member.userId !== undefined) {
      await announceMembershipChange(trx, { orgId: member.orgId, userId: member.userId });
    }
    switch (event.type) {
      case 'WorkspaceCreated': {
        const d = event.data;
        await db
          .insertInto('workspaces')
          .values({
            id: d.orgId,
            slug: d.slug,
            name: d.name,
            status: 'active',
            avatar_url: null,
            owner_id: d.ownerId,
            created_at: d.createdAt,
            updated_at: d.createdAt,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'MemberJoined': {
        const d = event.data;
        await db
          .insertInto('workspace_members')
          .values({
            org_id: d.orgId,
            user_id: d.userId,
            role: d.role,
            status: 'active',
            joined_at: d.joinedAt,
            updated_at: d.joinedAt,
          })
          .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
          .execute();
        return;
      }
      case 'MemberRoleChanged': {
        const d = event.data;
        await db
          .updateTable('workspace_members')
          .set({ role: d.role, updated_at: d.changedAt })
          .where('org_id', '=', d.orgId)
          .where('user_id', '=', d.userId)
          .execute();
        return;
      }
      case 'MemberSuspended':
      case 'MemberReactivated':
      case 'MemberRemoved':
      case 'WorkspaceUpdated':
      case 'WorkspaceDeleted':
        return foldOne(trx, event, schema);
      default:
        return assertNever(event);
    }
  },

  // A rebuild folds 500-event pages: each run of inserts (workspaces created, members joined) is one statement
  // per table, each run of role changes one update (the last change of each member in the run), so a page is a
  // handful of round trips instead of two per event. Runs keep the log's order, so the effect is `apply`'s.
  async applyBatch(trx, decoded, schema) {
    await announceMembershipChanges(
      trx,
      decoded.flatMap((e) => {
        const d = e.data as { orgId: string; userId?: string };
        return d.userId === undefined ? [] : [{ orgId: d.orgId, userId: d.userId }];
      }),
    );
    const workspaces = sql.id(schema, 'workspaces');
    const members = sql.id(schema, 'workspace_members');
    let i = 0;
    while (i < decoded.length) {
      const kind = batchKind(decoded[i]!);
      if (kind === 'one') {
        // Suspensions, removals, details and deletions are rare: folded one by one, as `apply` does.
        await foldOne(trx, decoded[i]!, schema);
        i += 1;
        continue;
      }
      const roles = kind === 'roles';
      let j = i;
      while (j < decoded.length && batchKind(decoded[j]!) === kind) j++;
      const run = decoded.slice(i, j);
      i = j;
      if (roles) {
        const last = new Map<string, { org_id: string; user_id: string; role: string; at: string }>();
        for (const e of run) {
          if (e.type !== 'MemberRoleChanged') continue;
          const d = e.data;
          last.set(`${d.orgId}:${d.userId}`, {
            org_id: d.orgId,
            user_id: d.userId,
            role: d.role,
            at: d.changedAt,
          });
        }
        await sql`
          update ${members} as m set role = v.role, updated_at = v.at
          from jsonb_to_recordset(${JSON.stringify([...last.values()])}::jsonb)
            as v(org_id uuid, user_id uuid, role text, at timestamptz)
          where m.org_id = v.org_id and m.user_id = v.user_id`.execute(trx);
        continue;
      }
      const created = run.flatMap((e) =>
        e.type === 'WorkspaceCreated'
          ? [
              {
                id: e.data.orgId,
                slug: e.data.slug,
                name: e.data.name,
                owner_id: e.data.ownerId,
                at: e.data.createdAt,
              },
            ]
          : [],
      );
      const joined = run.flatMap((e) =>
        e.type === 'MemberJoined'
          ? [{ org_id: e.data.orgId, user_id: e.data.userId, role: e.data.role, at: e.data.joinedAt }]
          : [],
      );
      // ON CONFLICT DO NOTHING keeps the first of two rows for one key, as inserting one by one would.
      if (created.length > 0)
        await sql`
          insert into ${workspaces} (id, slug, name, status, avatar_url, owner_id, created_at, updated_at)
          select v.id, v.slug, v.name, 'active', null, v.owner_id, v.at, v.at
          from jsonb_to_recordset(${JSON.stringify(created)}::jsonb)
            as v(id uuid, slug text, name text, owner_id uuid, at timestamptz)
          on conflict (id) do nothing`.execute(trx);
      if (joined.length > 0)
        await sql`
          insert into ${members} (org_id, user_id, role, status, joined_at, updated_at)
          select v.org_id, v.user_id, v.role, 'active', v.at, v.at
          from jsonb_to_recordset(${JSON.stringify(joined)}::jsonb)
            as v(org_id uuid, user_id uuid, role text, at timestamptz)
          on conflict (org_id, user_id) do nothing`.execute(trx);
    }
  },
});

/** How the batch fold takes an event: in a run of inserts, a run of role changes, or on its own. */
function batchKind(event: WorkspaceEvent): 'inserts' | 'roles' | 'one' {
  if (event.type === 'WorkspaceCreated' || event.type === 'MemberJoined') return 'inserts';
  if (event.type === 'MemberRoleChanged') return 'roles';
  return 'one';
}

/**
 * Folds the events both folds take one at a time (the member events among them were announced by the caller).
 * A deletion announces each of the workspace's members, whose next request must meet it.
 */
async function foldOne(trx: Transaction<ReadModels>, event: WorkspaceEvent, schema: string): Promise<void> {
  const db = trx.withSchema(schema);
  switch (event.type) {
    case 'MemberSuspended':
    case 'MemberReactivated': {
      const d = event.data;
      const suspended = event.type === 'MemberSuspended';
      await db
        .updateTable('workspace_members')
        .set({
          status: suspended ? 'suspended' : 'active',
          updated_at: event.type === 'MemberSuspended' ? event.data.suspendedAt : event.data.reactivatedAt,
        })
        .where('org_id', '=', d.orgId)
        .where('user_id', '=', d.userId)
        .execute();
      return;
    }
    case 'MemberRemoved':
      await db
        .deleteFrom('workspace_members')
        .where('org_id', '=', event.data.orgId)
        .where('user_id', '=', event.data.userId)
        .execute();
      return;
    case 'WorkspaceUpdated': {
      const d = event.data;
      await db
        .updateTable('workspaces')
        .set({ name: d.name, slug: d.slug, avatar_url: d.avatarUrl, updated_at: d.updatedAt })
        .where('id', '=', d.orgId)
        .execute();
      return;
    }
    case 'WorkspaceDeleted': {
      const d = event.data;
      const members = await db
        .selectFrom('workspace_members')
        .select('user_id')
        .where('org_id', '=', d.orgId)
        .execute();
      await announceMembershipChanges(
        trx,
        members.map((m) => ({ orgId: d.orgId, userId: m.user_id })),
      );
      await db
        .updateTable('workspaces')
        .set({ status: 'deleted', updated_at: d.deletedAt })
        .where('id', '=', d.orgId)
        .execute();
      return;
    }
    case 'WorkspaceCreated':
    case 'MemberJoined':
    case 'MemberRoleChanged':
      throw new Error(`foldOne: ${event.type} is folded by the caller`);
    default:
      return assertNever(event);
  }
}
