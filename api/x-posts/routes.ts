// X posts: POST ORG/marketing/x-posts/delete (Tool: delete_x_post) — one of the workspace's own X posts, named
// by link or by our post id, deleted on X and removed here, or taken off the schedule when not sent yet.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteXPost, type XPostDeletion } from '../../commands/x-posts/delete-x-post.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { commandMetadata, idempotentWrite } from '../shared/write.js';
import { postGroupDeps } from '../post-groups/routes.js';

const deleteXPostBody = z
  .object({
    postUrl: z
      .string()
      .min(1)
      .optional()
      .openapi({ example: 'https://x.com/acme/status/1790000000000000000' }),
    postId: z.uuid().optional().openapi({ description: "A post of this workspace (the post's id here)" }),
    socialAccountId: z
      .uuid()
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

export function xPostRoutes(services: RouteServices) {
  const deps = {
    postGroups: postGroupDeps(services),
    readModels: services.readModels,
    accounts: services.accounts,
    connectors: services.connectors,
  };
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(deleteRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      return idempotentWrite(c, services, body, async ({ record, idempotencySeed }) => {
        const target = body.postId !== undefined ? { postId: body.postId } : { postUrl: body.postUrl! };
        const answer = (deletion: XPostDeletion) => ({ status: 200, body: { data: deletion } });
        const result = await deleteXPost(
          deps,
          { orgId, target, socialAccountId: body.socialAccountId ?? null },
          commandMetadata(c, services),
          {
            ...(idempotencySeed ? { idempotencySeed } : {}),
            ...(record
              ? { record: (trx: unknown, deletion: XPostDeletion) => record(trx, answer(deletion)) }
              : {}),
          },
        );
        return { response: answer(result.deletion), appended: result.appended };
      }) as never;
    });
  };
}
