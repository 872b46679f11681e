// The tags slice's operations: GET, POST ORG/marketing/tags and PATCH, DELETE ORG/marketing/tags/{tagId}.
// Writes answer from the aggregate state; the list comes from the tags read model (caught up by the write).
import { z } from '@hono/zod-openapi';
import { createTag, deleteTag, updateTag } from '../../commands/tags/tag-use-cases.js';
import { maxTagNameLength, tagColorPattern } from '../../domain/tags/tags.js';
import { listTags } from '../../projections/tags/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';

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

const operation = operationsWith<RouteServices>();
const path = '/v1/orgs/{orgId}/marketing/tags';

export const tagOperations = operationGroup(
  (ctx) => ctx.services,
  [
    operation({
      name: 'listTags',
      kind: 'read',
      method: 'get',
      path,
      tags: ['marketing'],
      summary: "The workspace's tags, sorted by name (case-insensitive)",
      params: orgParams,
      output: z.array(tagSchema),
      outputDescription: 'Tags',
      errors: [400, 401, 403],
      access: { permission: 'posts:read' },
      run: (services, { caller }, { orgId }) => listTags(services.readModels, caller, { orgId }),
    }),
    operation({
      name: 'createTag',
      kind: 'write',
      method: 'post',
      path,
      tags: ['marketing'],
      summary: 'Create a tag; names are unique per workspace regardless of case',
      params: orgParams,
      body: createTagBody,
      output: tagSchema,
      outputDescription: 'The created tag',
      errors: [400, 401, 403, 409, 413, 422, 503],
      access: { permission: 'posts:draft' },
      run: (services, { caller, request }, input) => createTag(services, caller, input, request),
    }),
    operation({
      name: 'updateTag',
      kind: 'write',
      method: 'patch',
      path: `${path}/{tagId}`,
      tags: ['marketing'],
      summary: 'Rename or recolour a tag; omitted fields stay, a null color clears it',
      params: tagParams,
      body: updateTagBody,
      output: tagSchema,
      outputDescription: 'The tag',
      errors: [400, 401, 403, 404, 409, 413, 422, 503],
      access: { permission: 'posts:draft' },
      run: (services, { caller, request }, { orgId, tagId, ...changes }) =>
        updateTag(services, caller, { orgId, tagId, changes }, request),
    }),
    operation({
      name: 'deleteTag',
      kind: 'write',
      method: 'delete',
      path: `${path}/{tagId}`,
      tags: ['marketing'],
      summary: 'Delete a tag; answers with the tag as it was',
      params: tagParams,
      output: tagSchema,
      outputDescription: 'The deleted tag',
      errors: [400, 401, 403, 404, 422, 503],
      access: { permission: 'posts:draft' },
      run: (services, { caller, request }, { orgId, tagId }) =>
        deleteTag(services, caller, { orgId, tagId }, request),
    }),
  ],
);
