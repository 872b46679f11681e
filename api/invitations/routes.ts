// Invitation routes: GET, POST ORG/invitations, DELETE ORG/invitations/{invitationId} (owners and admins), and
// POST /v1/invitations/accept (any signed-in user; no workspace needed). Writes answer from the aggregate; the
// list comes from the invitations read model, with `expired` derived at the request's time.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  acceptInvitation,
  createInvitation,
  revokeInvitation,
  type InvitationDeps,
} from '../../commands/invitations/invitation-use-cases.js';
import { invitationStatuses } from '../../domain/invitations/invitation.js';
import { roles } from '../../domain/workspaces/roles.js';
import { listInvitations, type InvitationFilter } from '../../projections/invitations/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery } from '../platform/paging.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { ensureKnownUser } from '../shared/known-user.js';
import { canonicalUuid, idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';

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

const createInvitationBody = z
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

const revokedSchema = z
  .object({ id: z.uuid(), status: z.enum(invitationStatuses) })
  .openapi('RevokedInvitation');

const acceptBody = z
  .object({ token: z.string().min(1).max(200).openapi({ description: 'The token of the invitation link' }) })
  .strict()
  .openapi('AcceptInvitation');

const acceptedSchema = z
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

const base = '/v1/orgs/{orgId}/invitations';
const invitationParams = orgParams.extend({
  invitationId: canonicalUuid().openapi({ param: { name: 'invitationId', in: 'path' } }),
});

const listRoute = createRoute({
  ...secured({ permission: 'members:manage' }),
  method: 'get',
  path: base,
  operationId: 'listInvitations',
  tags: ['invitations'],
  summary: "The workspace's invitations (plain array), newest first by default",
  description: 'Owners and admins. Page size default 100, maximum 100.',
  request: { params: orgParams, query: invitationListQuery.schema },
  responses: {
    200: jsonResponse(dataOf(z.array(invitationListItemSchema)), 'Invitations'),
    ...errorResponses(400, 401, 403),
  },
});

const createInvitationRoute = createRoute({
  ...secured({ permission: 'members:manage' }),
  method: 'post',
  path: base,
  operationId: 'createInvitation',
  tags: ['invitations'],
  summary: 'Invite an address with a role; the invitation link is mailed to it',
  description:
    'Owners and admins; only an owner may invite an owner. The link works once, for 7 days. ' +
    '409 `already_member` for an active member, `invitation_pending` while another invitation to the address is pending; ' +
    '503 `mail_not_sent` (nothing recorded) when the mail could not be sent.',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(createInvitationBody) },
  responses: {
    201: jsonResponse(dataOf(invitationSchema), 'The invitation'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

const revokeRoute = createRoute({
  ...secured({ permission: 'members:manage' }),
  method: 'delete',
  path: `${base}/{invitationId}`,
  operationId: 'revokeInvitation',
  tags: ['invitations'],
  summary: 'Revoke an invitation; its link stops working',
  description: 'Revoking a revoked invitation answers the same; an accepted one is a 409.',
  request: { params: invitationParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(revokedSchema), 'The invitation, revoked'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
  },
});

const acceptRoute = createRoute({
  ...secured({ workspace: false }),
  method: 'post',
  path: '/v1/invitations/accept',
  operationId: 'acceptInvitation',
  tags: ['invitations'],
  summary: "Accept an invitation as the signed-in user, whose e-mail must be the invitation's",
  description:
    'A user-only token works. 404 `invitation_not_found`, 409 `invitation_already_accepted`, ' +
    '410 `invitation_revoked` or `invitation_expired`, 403 `invitation_email_mismatch`.',
  request: { headers: idempotencyHeaders, body: jsonBody(acceptBody) },
  responses: {
    200: jsonResponse(dataOf(acceptedSchema), 'The workspace joined'),
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 422, 503),
  },
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

export function invitationRoutes(services: RouteServices & Omit<InvitationDeps, keyof RouteServices>) {
  const now = () => (services.now?.() ?? new Date()).toISOString();
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const data = await listInvitations(services.readModels, callerOf(c), {
        orgId,
        now: now(),
        query: {
          filters: toInvitationFilters(query.filters),
          sortBy: query.sortBy ?? 'createdAt',
          sortDir: query.sortDir,
          limit: query.limit,
          offset: query.offset,
        },
      });
      return c.json({ data }, 200);
    });

    app.openapi(createInvitationRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await createInvitation(
        services,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body, 201),
      );
      return c.json({ data: answered(c, written) }, 201);
    });

    app.openapi(revokeRoute, async (c) => {
      const { orgId, invitationId } = c.req.valid('param');
      const written = await revokeInvitation(
        services,
        callerOf(c),
        { orgId, invitationId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(acceptRoute, async (c) => {
      const body = c.req.valid('json');
      await ensureKnownUser(c, services);
      const written = await acceptInvitation(services, callerOf(c), body, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
