// X posts: POST ORG/marketing/x-posts/delete (Tool: delete_x_post) — one of the workspace's own X posts, named
// by link or by our post id, deleted on X and removed here, or taken off the schedule when not sent yet.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteXPost } from '../../commands/x-posts/delete-x-post.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { canonicalUuid, idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import { postGroupDeps } from '../post-groups/deps.js';

export const deleteXPostBody = z
  .object({
    postUrl: z
      .string()
      .min(1)
      .optional()
      .openapi({ example: 'https://x.com/acme/status/1790000000000000000' }),
    postId: canonicalUuid()
      .optional()
      .openapi({ description: "A post of this workspace (the post's id here)" }),
    socialAccountId: canonicalUuid()
      .optional()
      .openapi({ description: 'The X account to delete with, for a link to a post published elsewhere' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const given = Number(body.postUrl !== undefined) + Number(body.postId !== undefined);
    if (given !== 1)
      ctx.addIssue({
        code: 'custom',
        path: given === 0 ? ['postUrl'] : ['postId'],
        message: given === 0 ? 'give postUrl or postId' : 'give postUrl or postId, not both',
      });
  })
  .openapi('DeleteXPost');

export const xPostDeletionSchema = z
  .object({
    outcome: z.enum(['deleted_on_x', 'removed_from_schedule']),
    postId: z.string().nullable(),
    xPostId: z.string().nullable(),
    socialAccountId: z.string().nullable(),
    warnings: z.array(z.string()),
  })
  .openapi('XPostDeletion');

const deleteRoute = createRoute({
  ...secured({ permission: 'posts:delete' }),
  method: 'post',
  path: '/v1/orgs/{orgId}/marketing/x-posts/delete',
  operationId: 'deleteXPost',
  tags: ['marketing'],
  summary: "Delete one of the workspace's own X posts",
  description:
    'Tool: delete_x_post. A published post is deleted on X and removed here (`deleted_on_x`); a post not sent ' +
    'yet is canceled (`removed_from_schedule`); a link to a post published elsewhere is deleted with the ' +
    "workspace's X account (or `socialAccountId`). Irreversible for published posts.",
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(deleteXPostBody) },
  responses: {
    200: jsonResponse(dataOf(xPostDeletionSchema), 'What was done'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
  },
});

/** What deleting an X post needs, for the route and the tool. */
export function xPostDeps(services: RouteServices) {
  return {
    postGroups: postGroupDeps(services),
    readModels: services.readModels,
    accounts: services.accounts,
    connectors: services.connectors,
    idempotency: services.idempotency,
  };
}

/** The body's refinement lets exactly one of postId and postUrl through. */
export function deletionTarget(body: z.output<typeof deleteXPostBody>) {
  return body.postId !== undefined ? { postId: body.postId } : { postUrl: body.postUrl ?? '' };
}

export function xPostRoutes(services: RouteServices) {
  const deps = xPostDeps(services);
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(deleteRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const input = { orgId, target: deletionTarget(body), socialAccountId: body.socialAccountId ?? null };
      const written = await deleteXPost(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
