// The post-group slice's assistant tools (spec: every endpoint labelled `Tool: <name>`), each calling the use
// case its route calls, with the route's own input schemas. Drafts an assistant creates always wait for review;
// approving, scheduling and publishing need their own scopes (posts:schedule, posts:publish).
import { z } from 'zod';
import {
  approvePostGroup,
  createDraftPost,
  postNow,
  rejectPostGroup,
  schedulePostGroup,
  updatePost,
  updatePostGroup,
} from '../../commands/post-groups/post-group-use-cases.js';
import { listPosts } from '../../projections/post-groups/queries.js';
import { postListQuery, toPostQuery } from '../posts/routes.js';
import type { SliceContext } from '../shared/slice.js';
import { canonicalUuid } from '../shared/params.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { postGroupUseCaseDeps } from './routes.js';
import {
  approveBody,
  createDraftBody,
  rejectBody,
  scheduleBody,
  updatePostBody,
  updatePostGroupBody,
} from './schemas.js';

const groupId = canonicalUuid().describe('The post group');
const postId = canonicalUuid().describe('The post');

type GroupAnswer = { id: string; status: string; title: string };
const groupSummary = (verb: string) => (group: GroupAnswer) =>
  `${verb} post group ${group.id} ("${group.title}"); it is now ${group.status}.`;

export function postGroupTools({ services }: SliceContext): readonly AnyTool[] {
  const deps = postGroupUseCaseDeps(services);
  const postDeps = { ...deps, postNowWaitMs: services.env.POST_NOW_WAIT_MS };
  return [
    defineTool({
      name: 'list_posts',
      title: 'List posts',
      description:
        'Lists the workspace’s posts (every platform variant of every post group), newest first unless sorted ' +
        'otherwise. Filter with `filter[<field>]` (status, platform, socialAccountId, tagId, scheduledFrom, scheduledTo) ' +
        'and `filterOp[<field>]` (e.g. `in` with comma-separated values); page with `page` and `limit`.',
      scope: 'mcp:read',
      input: postListQuery.schema,
      hints: { readOnlyHint: true, openWorldHint: false },
      run: ({ caller, orgId }, query) =>
        listPosts(services.readModels, caller, { orgId, page: query.page, ...toPostQuery(query) }),
      summary: (page) =>
        `${page.items.length} of ${page.total} posts (page ${page.page}${page.hasMore ? ', more follow' : ''}).`,
    }),
    defineTool({
      name: 'create_draft_post',
      title: 'Create a draft post for review',
      description:
        'Creates one post group with one variant per platform (x, linkedin, …). Drafts created by an assistant ' +
        'always wait for a person’s approval (`pending_approval`): they are never scheduled or published without ' +
        'it. Platform settings (reddit, youtube, tiktok, poll, …) go beside each post’s contentText.',
      scope: 'posts:write',
      input: createDraftBody,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async ({ caller, orgId, request }, body) =>
        (await createDraftPost(deps, caller, { orgId, ...body }, request)).output,
      summary: ({ group, posts }) =>
        `Created post group ${group.id} with ${posts.length} post(s), waiting for approval (${group.status}).`,
    }),
    defineTool({
      name: 'update_post_group',
      title: 'Edit a post group',
      description:
        'Edits a post group’s title, topic, objective, time zone, time or tags (omitted fields stay). Editing the ' +
        'title, topic or objective of an approved group withdraws its approval. `status` moves it (draft, ' +
        'pending_approval, canceled; approved and scheduled need the posts:schedule scope).',
      scope: 'posts:write',
      input: updatePostGroupBody.extend({ groupId }),
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ caller, orgId, request }, input) =>
        (await updatePostGroup(deps, caller, { orgId, ...input }, request)).output,
      summary: groupSummary('Updated'),
    }),
    defineTool({
      name: 'reject_post_group',
      title: 'Reject a post group',
      description:
        'Sends a post group (or some of its posts, `rejectPosts`) back to draft, with an optional reason and ' +
        'note kept as a preference signal for later drafts.',
      scope: 'posts:write',
      input: rejectBody.extend({ groupId }),
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async ({ caller, orgId, request }, input) =>
        (await rejectPostGroup(deps, caller, { orgId, ...input }, request)).output,
      summary: groupSummary('Rejected'),
    }),
    defineTool({
      name: 'approve_post_group',
      title: 'Approve a post group',
      description:
        'Approves a post group waiting for approval (or some of its posts). Unless `autoSchedule` is false, ' +
        'each approved post gets the best free publishing slot. Needs the posts:schedule scope and a role that ' +
        'may approve.',
      scope: 'posts:schedule',
      input: approveBody.extend({ groupId }),
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ caller, orgId, request }, input) =>
        (await approvePostGroup(deps, caller, { orgId, ...input }, request)).output,
      summary: groupSummary('Approved'),
    }),
    defineTool({
      name: 'schedule_post_group',
      title: 'Schedule a post group',
      description:
        'Schedules the approved posts of a group at `scheduledFor` or the best free slot. Groups in draft or ' +
        'pending_approval are refused (409): they need approval first.',
      scope: 'posts:schedule',
      input: scheduleBody.extend({ groupId }),
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ caller, orgId, request }, input) =>
        (await schedulePostGroup(deps, caller, { orgId, ...input }, request)).output,
      summary: groupSummary('Scheduled'),
    }),
    defineTool({
      name: 'update_post',
      title: 'Edit a post',
      description:
        'Edits one post (one platform variant): its text, media, platform settings, time or status. Editing the ' +
        'content of an approved post withdraws its approval, so it goes back to review.',
      scope: 'posts:write',
      input: updatePostBody.extend({ postId }),
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ caller, orgId, request }, input) =>
        (await updatePost(deps, caller, { orgId, ...input }, request)).output,
      summary: (post) => `Updated post ${post.id} (${post.platform}); it is now ${post.status}.`,
    }),
    defineTool({
      name: 'post_now',
      title: 'Publish a post now',
      description:
        'Publishes one approved post at once on its platform and answers with its outcome (or `publishing` when ' +
        'the platform takes longer). A post that is not approved is refused (409): it must be approved first.',
      scope: 'posts:publish',
      input: z.object({ postId }).strict(),
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ caller, orgId, request }, input) =>
        (await postNow(postDeps, caller, { orgId, ...input }, request)).output,
      summary: (post) =>
        `Post ${post.id} (${post.platform}) is ${post.status}` +
        (post.publishedUrl ? `: ${post.publishedUrl}` : '') +
        '.',
    }),
  ];
}
