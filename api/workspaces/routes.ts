// Workspace routes: POST /v1/orgs (create; the caller becomes owner) and GET /v1/orgs (the caller's workspaces).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { createWorkspace } from '../../commands/workspaces/workspace-use-cases.js';
import { listWorkspaces } from '../../projections/workspaces/queries.js';
import { callerOf } from '../auth/caller.js';
import { authenticate } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery } from '../platform/paging.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import { ensureKnownUser } from '../shared/known-user.js';
import { idempotencyHeaders } from '../shared/params.js';

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

const createWorkspaceBody = z
  .object({
    name: z.string().trim().min(1).max(100).openapi({ example: 'Acme Marketing' }),
    slug: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        'lowercase letters, digits and inner hyphens, 1 to 63 characters',
      )
      .openapi({ example: 'acme' }),
  })
  .strict()
  .openapi('CreateWorkspace');

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

export function workspaceRoutes(services: RouteServices) {
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
  };
}
