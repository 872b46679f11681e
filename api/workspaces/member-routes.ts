// Member routes: GET ORG/members (filters, sorts, paging), PATCH and DELETE ORG/members/{memberId}.
// The list comes from the workspaces read model joined with users' profiles; writes answer from the aggregate.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { removeMember, updateMember } from '../../commands/workspaces/workspace-use-cases.js';
import { roles } from '../../domain/workspaces/roles.js';
import { listMembers, type MemberListParams } from '../../projections/workspaces/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery } from '../platform/paging.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { canonicalUuid, idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';

export const memberSchema = z
  .object({
    id: z.uuid().openapi({ description: "The member's id in this workspace (not the user id)" }),
    userId: z.uuid(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    role: z.string().openapi({ example: 'Owner', description: "The role's display name" }),
    roleKey: z.string().openapi({ example: 'owner' }),
    status: z.string().openapi({ example: 'active', description: '`active` or `suspended`' }),
    joinedAt: z.string().nullable(),
  })
  .openapi('Member');

export const memberUpdateSchema = z
  .object({
    id: z.uuid(),
    roleId: z.uuid().nullable().openapi({ description: "The role's fixed id, the same in every workspace" }),
    status: z.string().nullable(),
  })
  .openapi('MemberUpdateResult');

const memberStatuses = ['active', 'suspended'] as const;

export const memberListQuery = defineListQuery({
  filters: {
    status: { ops: ['eq', 'in'], value: z.enum(memberStatuses) },
    roleKey: { ops: ['eq', 'in'], value: z.enum(roles) },
    email: ['eq', 'contains'],
    name: ['eq', 'contains'],
  },
  sortBy: ['joinedAt', 'createdAt', 'role', 'status', 'email', 'name'],
  defaultSort: { by: 'joinedAt', dir: 'asc' },
  defaultLimit: 50,
  maxLimit: 100,
});

const updateMemberBody = z
  .object({
    roleKey: z.enum(roles).optional().openapi({ example: 'editor' }),
    status: z.enum(memberStatuses).optional(),
  })
  .strict()
  .refine((b) => b.roleKey !== undefined || b.status !== undefined, {
    message: 'Give roleKey, status or both',
  })
  .openapi('UpdateMember');

const memberParams = orgParams.extend({
  memberId: canonicalUuid().openapi({ param: { name: 'memberId', in: 'path' } }),
});

const listRouteDef = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/members',
  operationId: 'listMembers',
  tags: ['members'],
  summary: "The workspace's members (active and suspended), with their profile",
  request: { params: orgParams, query: memberListQuery.schema },
  responses: {
    200: jsonResponse(dataOf(z.array(memberSchema)), 'Members (plain array)'),
    ...errorResponses(400, 401, 403, 410),
  },
});

const updateRouteDef = createRoute({
  ...secured({ permission: 'members:manage' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}/members/{memberId}',
  operationId: 'updateMember',
  tags: ['members'],
  summary: "Change a member's role or suspend / reactivate them (owners and admins)",
  description:
    'Only an owner may grant, change or remove the owner role. The last active owner can be neither demoted ' +
    'nor suspended (409 `last_owner`). A suspended member is refused on their next request ' +
    '(403 `membership_suspended`) until reactivated.',
  request: { params: memberParams, headers: idempotencyHeaders, body: jsonBody(updateMemberBody) },
  responses: {
    200: jsonResponse(dataOf(memberUpdateSchema), 'The member update result'),
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 422, 503),
  },
});

const deleteRouteDef = createRoute({
  ...secured(),
  method: 'delete',
  path: '/v1/orgs/{orgId}/members/{memberId}',
  operationId: 'removeMember',
  tags: ['members'],
  summary: 'Remove a member (owners and admins), or leave the workspace (your own member id)',
  description:
    'Only an owner removes an owner; the last active owner stays (409 `last_owner`). A removed member ' +
    "loses access at once; the workspace's history keeps what they did.",
  request: { params: memberParams, headers: idempotencyHeaders },
  responses: {
    200: { description: 'Removed (no body)' },
    ...errorResponses(400, 401, 403, 404, 409, 410, 422, 503),
  },
});

export function memberRoutes(services: RouteServices) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const params: MemberListParams = {
        limit: query.limit,
        offset: query.offset,
        ...(query.sortBy !== undefined ? { sortBy: query.sortBy } : {}),
        sortDir: query.sortDir,
        filters: query.filters.map((f) =>
          f.op === 'in'
            ? { field: f.field, op: 'in' as const, values: f.values.map(String) }
            : {
                field: f.field,
                op: f.op === 'contains' ? ('contains' as const) : ('eq' as const),
                value: String(f.value),
              },
        ),
      };
      return c.json({ data: await listMembers(services.readModels, callerOf(c), orgId, params) }, 200);
    });

    app.openapi(updateRouteDef, async (c) => {
      const { orgId, memberId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await updateMember(
        services,
        callerOf(c),
        {
          orgId,
          memberId,
          ...(body.roleKey !== undefined ? { role: body.roleKey } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
        },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(deleteRouteDef, async (c) => {
      const { orgId, memberId } = c.req.valid('param');
      const written = await removeMember(
        services,
        callerOf(c),
        { orgId, memberId },
        writeRequest(c, services, undefined),
      );
      answered(c, written);
      return c.body(null, 200);
    });
  };
}
