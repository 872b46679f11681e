// Tag routes: GET, POST ORG/marketing/tags and PATCH, DELETE ORG/marketing/tags/{tagId}.
// Writes answer from the aggregate state; the list comes from the tags read model (caught up by the write).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { createTag, deleteTag, updateTag } from '../../commands/tags/tag-commands.js';
import { newId } from '../../commands/shared/ids.js';
import type { RecordResponse } from '../../commands/shared/idempotent.js';
import { maxTagNameLength, tagColorPattern, type Tag } from '../../domain/tags/tags.js';
import type { TagsTable } from '../../projections/read-models.js';
import { listTags } from '../../projections/tags/queries.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { commandMetadata, idempotentWrite } from '../shared/write.js';

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

type TagBody = z.infer<typeof tagSchema>;

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

function fromAggregate(tag: Tag): TagBody {
  return {
    id: tag.tagId,
    orgId: tag.orgId,
    name: tag.name,
    color: tag.color,
    createdAt: tag.createdAt,
    updatedAt: tag.updatedAt,
  };
}

function fromReadModel(row: TagsTable): TagBody {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    color: row.color,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const answer = (tag: Tag) => ({ status: 200, body: { data: fromAggregate(tag) } });

/** The sideWrite that stores the answer with the append when the request carried an Idempotency-Key. */
const recordWith = (record: RecordResponse | undefined) => async (trx: unknown, tag: Tag) => {
  await record?.(trx, answer(tag));
};

const listRouteDef = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/marketing/tags',
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
      const rows = await listTags(services.readModels, orgId);
      return c.json({ data: rows.map(fromReadModel) }, 200);
    });

    app.openapi(createRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      return idempotentWrite(c, services, body, async ({ record, idempotencySeed }) => {
        const tagId = newId(idempotencySeed ? [idempotencySeed, 'tag'] : undefined);
        const { tag, appended } = await createTag(
          services.commands,
          orgId,
          { tagId, name: body.name, color: body.color },
          commandMetadata(c, services),
          { sideWrite: recordWith(record) },
        );
        return { response: answer(tag), appended };
      }) as never;
    });

    app.openapi(updateRouteDef, async (c) => {
      const { orgId, tagId } = c.req.valid('param');
      const body = c.req.valid('json');
      return idempotentWrite(c, services, body, async ({ record }) => {
        const { tag, appended } = await updateTag(
          services.commands,
          orgId,
          tagId,
          body,
          commandMetadata(c, services),
          { sideWrite: recordWith(record) },
        );
        return { response: answer(tag), appended };
      }) as never;
    });

    app.openapi(deleteRouteDef, async (c) => {
      const { orgId, tagId } = c.req.valid('param');
      return idempotentWrite(c, services, undefined, async ({ record }) => {
        const { tag, appended } = await deleteTag(
          services.commands,
          orgId,
          tagId,
          commandMetadata(c, services),
          { sideWrite: recordWith(record) },
        );
        return { response: answer(tag), appended };
      }) as never;
    });
  };
}
