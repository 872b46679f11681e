// The X posts slice's operation: POST ORG/marketing/x-posts/delete (Tool: delete_x_post) — one of the
// workspace's own X posts, named by link or by our post id, deleted on X and removed here, or taken off the
// schedule when not sent yet.
import { z } from '@hono/zod-openapi';
import { deleteXPost } from '../../commands/x-posts/delete-x-post.js';
import { postGroupDeps } from '../post-groups/deps.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid, orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice-context.js';

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

/** What deleting an X post needs. */
export function xPostDeps(ctx: SliceContext) {
  const { services } = ctx;
  return {
    postGroups: postGroupDeps(ctx),
    readModels: services.readModels,
    accounts: services.accounts,
    connectors: services.connectors,
    idempotency: services.idempotency,
  };
}

/** The body's refinement lets exactly one of postId and postUrl through. */
function deletionTarget(body: z.output<typeof deleteXPostBody>) {
  return body.postId !== undefined ? { postId: body.postId } : { postUrl: body.postUrl ?? '' };
}

const operation = operationsWith<ReturnType<typeof xPostDeps>>();

export const xPostOperations = operationGroup(xPostDeps, [
  operation({
    name: 'delete_x_post',
    kind: 'write',
    method: 'post',
    path: '/v1/orgs/{orgId}/marketing/x-posts/delete',
    tags: ['marketing'],
    summary: "Delete one of the workspace's own X posts",
    description:
      'Tool: delete_x_post. A published post is deleted on X and removed here (`deleted_on_x`); a post not sent ' +
      'yet is canceled (`removed_from_schedule`); a link to a post published elsewhere is deleted with the ' +
      "workspace's X account (or `socialAccountId`). Irreversible for published posts.",
    params: orgParams,
    body: deleteXPostBody,
    output: xPostDeletionSchema,
    outputDescription: 'What was done',
    errors: [400, 401, 403, 404, 409, 422, 429, 503],
    access: { permission: 'posts:delete', scope: 'posts:delete' },
    tool: {
      title: 'Delete an X post',
      description:
        'Deletes one of the workspace’s own posts on X, named by its link (`postUrl`) or by the post’s id here ' +
        '(`postId`); a post not sent yet is taken off the schedule instead. Irreversible for published posts: ' +
        'confirm with the person first.',
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      summary: (d) =>
        d.outcome === 'deleted_on_x'
          ? `Deleted X post ${d.xPostId ?? ''} on X.`
          : `Took post ${d.postId ?? ''} off the schedule (it was not sent to X).`,
    },
    run: (deps, { caller, request }, input) =>
      deleteXPost(
        deps,
        caller,
        {
          orgId: input.orgId,
          target: deletionTarget(input),
          socialAccountId: input.socialAccountId ?? null,
        },
        request,
      ),
  }),
]);
