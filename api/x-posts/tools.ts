// The X posts slice's assistant tool: delete_x_post (the posts:delete scope, destructive).
import { deleteXPost } from '../../commands/x-posts/delete-x-post.js';
import type { SliceContext } from '../shared/slice.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { deleteXPostBody, deletionTarget, xPostDeps } from './routes.js';

export function xPostTools({ services }: SliceContext): readonly AnyTool[] {
  const deps = xPostDeps(services);
  return [
    defineTool({
      name: 'delete_x_post',
      title: 'Delete an X post',
      description:
        'Deletes one of the workspace’s own posts on X, named by its link (`postUrl`) or by the post’s id here ' +
        '(`postId`); a post not sent yet is taken off the schedule instead. Irreversible for published posts: ' +
        'confirm with the person first.',
      scope: 'posts:delete',
      input: deleteXPostBody,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      run: async ({ caller, orgId, request }, body) =>
        (
          await deleteXPost(
            deps,
            caller,
            { orgId, target: deletionTarget(body), socialAccountId: body.socialAccountId ?? null },
            request,
          )
        ).output,
      summary: (d) =>
        d.outcome === 'deleted_on_x'
          ? `Deleted X post ${d.xPostId ?? ''} on X.`
          : `Took post ${d.postId ?? ''} off the schedule (it was not sent to X).`,
    }),
  ];
}
