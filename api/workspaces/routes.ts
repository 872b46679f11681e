// Workspace routes: POST /v1/orgs (create; the caller becomes owner), GET /v1/orgs (the caller's workspaces),
// GET, PATCH and DELETE /v1/orgs/{orgId} (the three the spec leaves unnamed), and the member routes.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  createWorkspace,
  deleteWorkspace,
  updateWorkspace,
} from '../../commands/workspaces/workspace-use-cases.js';
import { maxWorkspaceNameLength, slugPattern } from '../../domain/workspaces/workspace.js';
import { getWorkspace, listWorkspaces } from '../../projections/workspaces/queries.js';
import { callerOf } from '../auth/caller.js';
import { authenticate, secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery } from '../platform/paging.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import { ensureKnownUser } from '../shared/known-user.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { memberRoutes } from './member-routes.js';

export const workspaceSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    status: z.string().openapi({ example: 'active' }),
    avatarUrl: z.string().nullable(),
    ownerId: z.uuid().nullable(),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi('Workspace');

export const workspaceListItemSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    status: z.string(),
    avatarUrl: z.string().nullable(),
    role: z.string().openapi({ example: 'owner' }),
    roleName: z.string().openapi({ example: 'Owner' }),
  })
  .openapi('WorkspaceListItem');

const workspaceName = z
  .string()
  .trim()
  .min(1)
  .max(maxWorkspaceNameLength)
  .openapi({ example: 'Acme Marketing' });
const workspaceSlug = z
  .string()
  .regex(slugPattern, 'lowercase letters, digits and inner hyphens, 1 to 63 characters')
  .openapi({ example: 'acme' });

const createWorkspaceBody = z
  .object({ name: workspaceName, slug: workspaceSlug })
  .strict()
  .openapi('CreateWorkspace');

const updateWorkspaceBody = z
  .object({
    name: workspaceName.optional(),
    slug: workspaceSlug.optional(),
    avatarUrl: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional()
      .openapi({
        example: 'https://cdn.example.org/acme.png',
        description:
          'An https URL, or the assetUrl of a logo uploaded through POST /v1/orgs/{orgId}/logo/upload-url; null removes it',
      }),
  })
  .strict()
  .refine((b) => b.name !== undefined || b.slug !== undefined || b.avatarUrl !== undefined, {
    message: 'Give name, slug, avatarUrl or several',
  })
  .openapi('UpdateWorkspace');

export const workspaceListQuery = defineListQuery({
  filters: {
    name: ['eq', 'contains'],
    slug: ['eq', 'contains'],
    status: { ops: ['eq', 'in'], value: z.enum(['active']) },
  },
  sortBy: ['name', 'slug', 'status'],
  defaultSort: { by: 'name', dir: 'asc' },
  defaultLimit: 100,
  maxLimit: 100,
});

const createRouteDef = createRoute({
  method: 'post',
  path: '/v1/orgs',
  operationId: 'createWorkspace',
  tags: ['orgs'],
  summary: 'Create a workspace; the caller becomes its owner',
  security: [{ bearerAuth: [] }],
  middleware: [authenticate()] as const,
  request: {
    headers: idempotencyHeaders,
    body: { required: true, content: { 'application/json': { schema: createWorkspaceBody } } },
  },
  responses: {
    201: {
      description: 'Created',
      content: { 'application/json': { schema: z.object({ data: workspaceSchema }) } },
    },
    ...errorResponses(400, 401, 409, 413, 422, 503),
  },
});

const listRouteDef = createRoute({
  method: 'get',
  path: '/v1/orgs',
  operationId: 'listWorkspaces',
  tags: ['orgs'],
  summary: "The caller's workspaces, with the caller's role in each",
  security: [{ bearerAuth: [] }],
  middleware: [authenticate()] as const,
  request: { query: workspaceListQuery.schema },
  responses: {
    200: {
      description: 'Workspaces (plain array)',
      content: { 'application/json': { schema: z.object({ data: z.array(workspaceListItemSchema) }) } },
    },
    ...errorResponses(400, 401),
  },
});

const getRouteDef = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}',
  operationId: 'getWorkspace',
  tags: ['orgs'],
  summary: 'The workspace',
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(workspaceSchema), 'The workspace'),
    ...errorResponses(400, 401, 403, 404, 410),
  },
});

const updateRouteDef = createRoute({
  ...secured({ permission: 'workspace:manage' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}',
  operationId: 'updateWorkspace',
  tags: ['orgs'],
  summary: "Change the workspace's name, slug or avatar (owners and admins)",
  description:
    'Omitted fields stay; `avatarUrl: null` removes the avatar. A slug another workspace uses is a 409 ' +
    '`slug_taken`; the old slug is free for others a minute after the change.',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(updateWorkspaceBody) },
  responses: {
    200: jsonResponse(dataOf(workspaceSchema), 'The workspace'),
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 422, 503),
  },
});

const deleteRouteDef = createRoute({
  ...secured({ permission: 'workspace:delete' }),
  method: 'delete',
  path: '/v1/orgs/{orgId}',
  operationId: 'deleteWorkspace',
  tags: ['orgs'],
  summary: 'Delete the workspace (owners only)',
  description:
    "A soft delete: the history is kept, the workspace leaves every member's list, its slug is free again a " +
    'minute later, its scheduled posts are not published, and every later call for it answers 410 ' +
    '`workspace_deleted` (also the token exchange to it).',
  request: { params: orgParams, headers: idempotencyHeaders },
  responses: {
    200: { description: 'Deleted (no body)' },
    ...errorResponses(400, 401, 403, 410, 422, 503),
  },
});

export function workspaceRoutes(services: RouteServices & { storage: ObjectStorage }) {
  const members = memberRoutes(services);
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(createRouteDef, async (c) => {
      const body = c.req.valid('json');
      await ensureKnownUser(c, services);
      const written = await createWorkspace(
        services,
        callerOf(c),
        body,
        writeRequest(c, services, body, 201),
      );
      return c.json({ data: answered(c, written) }, 201);
    });

    app.openapi(listRouteDef, async (c) => {
      const query = c.req.valid('query');
      const data = await listWorkspaces(services.readModels, callerOf(c), {
        limit: query.limit,
        offset: query.offset,
        sortBy: query.sortBy,
        sortDir: query.sortDir,
        filters: query.filters.map((f) =>
          f.op === 'in'
            ? { field: f.field, op: f.op, values: f.values.map(String) }
            : { field: f.field, op: f.op, value: String(f.value) },
        ),
      });
      return c.json({ data }, 200);
    });

    app.openapi(getRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await getWorkspace(services.readModels, callerOf(c), orgId) }, 200);
    });

    app.openapi(updateRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await updateWorkspace(
        services,
        callerOf(c),
        { orgId, changes: body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(deleteRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const written = await deleteWorkspace(
        services,
        callerOf(c),
        { orgId },
        writeRequest(c, services, undefined),
      );
      answered(c, written);
      return c.body(null, 200);
    });

    members(app);
  };
}
