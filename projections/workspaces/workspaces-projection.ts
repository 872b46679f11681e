// Read model of workspaces and their members, shaped for GET /v1/orgs (the caller's workspaces with role,
// filters on name/slug/status, sort by name/slug/status) and for membership checks. Every event naming a member
// is announced (membership-changes.ts), so the API's membership cache drops that member at once.
import { sql, type Transaction } from 'kysely';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { workspaceEventCodec } from '../../domain/workspaces/event-codec.js';
import type { Projection } from '../engine/projection.js';
import type { ReadModels } from '../read-models.js';
import { announceMembershipChange } from './membership-changes.js';

export const workspacesProjection: Projection = {
  name: 'workspaces',
  version: 1,
  tables: ['workspaces', 'workspace_members'],
  eventTypes: ['WorkspaceCreated', 'MemberJoined', 'MemberRoleChanged'],

  async createTables(trx: Transaction<ReadModels>, schema: string) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.workspaces (
        id uuid primary key,
        slug text not null unique,
        name text not null,
        status text not null,
        avatar_url text,
        owner_id uuid,
        created_at timestamptz not null,
        updated_at timestamptz
      )`.execute(trx);
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

  async apply(trx: Transaction<ReadModels>, recorded: RecordedEvent, schema: string) {
    const event = workspaceEventCodec.decode(recorded);
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
      default:
        return;
    }
  },
};
