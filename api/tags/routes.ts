// Tag routes: GET, POST ORG/marketing/tags and PATCH, DELETE ORG/marketing/tags/{tagId}.
// Writes answer from the aggregate state; the list comes from the tags read model (caught up by the write).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { createTag, deleteTag, updateTag } from '../../commands/tags/tag-use-cases.js';
import { maxTagNameLength, tagColorPattern } from '../../domain/tags/tags.js';
import { listTags } from '../../projections/tags/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';

export const tagSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    name: z.string().openapi({ example: 'Launch' }),
    color: z.string().nullable().openapi({ example: '#ff8800' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Tag');

const tagName = z.string().trim().min(1).max(maxTagNameLength).openapi({ example: 'Launch' });
const tagColor = z
  .string()
  .regex(tagColorPattern, 'a hex colour, #rgb or #rrggbb')
  .nullable()
  .openapi({ example: '#ff8800', description: '#rgb or #rrggbb, stored lower-case; null for none' });

const createTagBody = z.object({ name: tagName, color: tagColor.optional() }).strict().openapi('CreateTag');

const updateTagBody = z
  .object({ name: tagName.optional(), color: tagColor.optional() })
  .strict()
  .openapi('UpdateTag');

const tagParams = orgParams.extend({
  tagId: z.uuid().openapi({ param: { name: 'tagId', in: 'path' } }),
});

const listRouteDef = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/marketing/tags',
  operationId: 'listTags',
  tags: ['marketing'],
  summary: "The workspace's tags, sorted by name (case-insensitive)",
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(z.array(tagSchema)), 'Tags'),
    ...errorResponses(400, 401, 403),
  },
});

const createRouteDef = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: '/v1/orgs/{orgId}/marketing/tags',
  operationId: 'createTag',
  tags: ['marketing'],
  summary: 'Create a tag; names are unique per workspace regardless of case',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(createTagBody) },
  responses: {
    200: jsonResponse(dataOf(tagSchema), 'The created tag'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

const updateRouteDef = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}/marketing/tags/{tagId}',
  operationId: 'updateTag',
  tags: ['marketing'],
  summary: 'Rename or recolour a tag; omitted fields stay, a null color clears it',
  request: { params: tagParams, headers: idempotencyHeaders, body: jsonBody(updateTagBody) },
  responses: {
    200: jsonResponse(dataOf(tagSchema), 'The tag'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const deleteRouteDef = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'delete',
  path: '/v1/orgs/{orgId}/marketing/tags/{tagId}',
  operationId: 'deleteTag',
  tags: ['marketing'],
  summary: 'Delete a tag; answers with the tag as it was',
  request: { params: tagParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(tagSchema), 'The deleted tag'),
    ...errorResponses(400, 401, 403, 404, 422, 503),
  },
});

export function tagRoutes(services: RouteServices) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await listTags(services.readModels, callerOf(c), { orgId }) }, 200);
    });

    app.openapi(createRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await createTag(
        services,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(updateRouteDef, async (c) => {
      const { orgId, tagId } = c.req.valid('param');
      const body = c.req.valid('json');
      const input = { orgId, tagId, changes: body };
      const written = await updateTag(services, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(deleteRouteDef, async (c) => {
      const { orgId, tagId } = c.req.valid('param');
      const written = await deleteTag(
        services,
        callerOf(c),
        { orgId, tagId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
