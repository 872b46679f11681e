// Read model of invitations for GET ORG/invitations, the one-pending-invitation-per-address check and the lookup
// of a presented token by its hash. Status is stored as recorded; `expired` is derived when read (queries.ts).
import { sql } from 'kysely';
import { invitationEventCodec } from '../../domain/invitations/event-codec.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

/** `invitations` as readers see it (the public view). A type, not an interface, so `withTables` takes it. */
export type InvitationsTable = {
  id: string;
  org_id: string;
  email: string;
  role_key: string;
  /** `pending`, `accepted` or `revoked`; a pending one past `expires_at` reads as `expired`. */
  status: string;
  token_hash: string;
  expires_at: string;
  invited_by: string;
  accepted_by: string | null;
  created_at: string;
  updated_at: string;
};

export type InvitationsTables = { invitations: InvitationsTable };

export const invitationsProjection = defineProjection({
  name: 'invitations',
  version: 1,
  tables: ['invitations'],
  reads: [readsFrom(invitationEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.invitations (
        id uuid primary key,
        org_id uuid not null,
        email text not null,
        role_key text not null,
        status text not null,
        token_hash text not null unique,
        expires_at timestamptz not null,
        invited_by uuid not null,
        accepted_by uuid,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(trx);
    await sql`create index on ${s}.invitations (org_id, created_at)`.execute(trx);
    await sql`create index on ${s}.invitations (org_id, email) where status = 'pending'`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<InvitationsTables>().withSchema(schema);
    switch (event.type) {
      case 'InvitationCreated': {
        const d = event.data;
        await db
          .insertInto('invitations')
          .values({
            id: d.invitationId,
            org_id: d.orgId,
            email: d.email,
            role_key: d.roleKey,
            status: 'pending',
            token_hash: d.tokenHash,
            expires_at: d.expiresAt,
            invited_by: d.invitedBy,
            accepted_by: null,
            created_at: d.createdAt,
            updated_at: d.createdAt,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'InvitationRevoked': {
        const d = event.data;
        await db
          .updateTable('invitations')
          .set({ status: 'revoked', updated_at: d.revokedAt })
          .where('id', '=', d.invitationId)
          .execute();
        return;
      }
      case 'InvitationAccepted': {
        const d = event.data;
        await db
          .updateTable('invitations')
          .set({ status: 'accepted', accepted_by: d.userId, updated_at: d.acceptedAt })
          .where('id', '=', d.invitationId)
          .execute();
        return;
      }
      default:
        return;
    }
  },
});
