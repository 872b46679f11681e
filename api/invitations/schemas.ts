// The invitations slice's schemas: invitations as answered and listed, the bodies of inviting and accepting,
// and the list query of GET ORG/invitations.
import { z } from '@hono/zod-openapi';
import { invitationStatuses } from '../../domain/invitations/invitation.js';
import { roles } from '../../domain/workspaces/roles.js';
import type { InvitationFilter } from '../../projections/invitations/queries.js';
import { defineListQuery } from '../platform/paging.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

const invitationFields = {
  id: z.uuid(),
  email: z.email().openapi({ example: 'sam@example.org' }),
  roleKey: z.enum(roles).openapi({ example: 'editor' }),
  status: z.enum(invitationStatuses).openapi({
    description: '`expired`: still pending when `expiresAt` passed (derived when read)',
  }),
  expiresAt: z.string(),
  createdAt: z.string(),
};

export const invitationSchema = z.object(invitationFields).openapi('Invitation');
export const invitationListItemSchema = z
  .object({ ...invitationFields, roleName: z.string().openapi({ example: 'Editor' }) })
  .openapi('InvitationListItem');

export const createInvitationBody = z
  .object({
    email: z.email().max(254).openapi({ example: 'sam@example.org' }),
    // Any string here: an unknown role is refused by the domain, naming the field (400).
    roleKey: z
      .string()
      .min(1)
      .openapi({ example: 'editor', description: roles.join(', ') }),
  })
  .strict()
  .openapi('CreateInvitation');

export const revokedSchema = z
  .object({ id: z.uuid(), status: z.enum(invitationStatuses) })
  .openapi('RevokedInvitation');

export const acceptBody = z
  .object({ token: z.string().min(1).max(200).openapi({ description: 'The token of the invitation link' }) })
  .strict()
  .openapi('AcceptInvitation');

export const acceptedSchema = z
  .object({ orgId: z.uuid(), orgSlug: z.string(), orgName: z.string() })
  .openapi('AcceptedInvitation');

const instant = z.iso.datetime({ offset: true }).transform((v) => new Date(v).toISOString());

export const invitationListQuery = defineListQuery({
  filters: {
    status: { ops: ['eq', 'in'], value: z.enum(invitationStatuses) },
    email: ['eq', 'contains'],
    roleKey: { ops: ['eq', 'in'], value: z.enum(roles) },
    createdAtFrom: {
      ops: ['gte'],
      value: instant,
      description: 'Invitations created at or after this instant',
    },
    createdAtTo: {
      ops: ['lte'],
      value: instant,
      description: 'Invitations created at or before this instant',
    },
  },
  sortBy: ['createdAt', 'expiresAt', 'email', 'status', 'roleKey'],
  defaultSort: { by: 'createdAt', dir: 'desc' },
  defaultLimit: 100,
  maxLimit: 100,
});

export const invitationParams = orgParams.extend({
  invitationId: canonicalUuid().openapi({ param: { name: 'invitationId', in: 'path' } }),
});

export function toInvitationFilters(
  filters: readonly (
    | { field: string; op: 'eq' | 'contains' | 'gte' | 'lte'; value: unknown }
    | { field: string; op: 'in'; values: unknown[] }
  )[],
): InvitationFilter[] {
  return filters.map((f) =>
    f.op === 'in'
      ? ({ field: f.field, op: 'in', values: f.values.map(String) } as InvitationFilter)
      : ({ field: f.field, op: f.op, value: String(f.value) } as InvitationFilter),
  );
}
