// Creating and editing: a new group with its posts, edits of the group and of one post (with what an edit does to
// an approval), and the status moves a PATCH may ask for.
import { assertNever } from '../shared/decider.js';
import { Conflict, Forbidden, InvalidFields, type ErrorDetail } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import { checkPostContent } from './content-rules.js';
import { contentHash, type PlatformPayload } from './post-content.js';
import type { Common, PayloadPatch, PostGroupCommand } from './commands.js';
import type { By, NewPostData, PostGroupEvent } from './event-codec.js';
import {
  holdingApproval,
  inFlightOrSent,
  isApprovalCurrent,
  type ActivePostGroup,
  type GroupFields,
  type PostGroupState,
} from './state.js';
import {
  active,
  assertContent,
  assertFuture,
  by,
  findPost,
  groupStatusAfter,
  sameJson,
  simulate,
} from './decide-support.js';
import { decideApprove, scheduleEvents, submitForApproval } from './decide-review.js';

export function decideCreate(
  command: Extract<PostGroupCommand, { type: 'CreatePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  // A retried creation (same id) changes nothing.
  if (state.kind === 'active') return [];
  const title = command.fields.title.trim();
  const details: ErrorDetail[] = [];
  if (title.length === 0) details.push({ path: 'title', message: 'must not be blank' });
  if (command.posts.length === 0) details.push({ path: 'posts', message: 'at least one post' });
  if (
    command.fields.scheduledFor !== null &&
    !(Date.parse(command.fields.scheduledFor) > Date.parse(command.now))
  )
    details.push({ path: 'scheduledFor', message: `must be later than now (${command.now})` });
  const targets = new Set<string>();
  command.posts.forEach((p, index) => {
    const key = `${p.platform}:${p.socialAccountId ?? ''}`;
    if (targets.has(key))
      details.push({
        path: `posts.${index}.platform`,
        message: 'one variant per platform and account in a group',
      });
    targets.add(key);
  });
  if (details.length > 0) throw new InvalidFields('Invalid post group', details);
  command.posts.forEach((p, index) =>
    assertContent(p, { ...command.contentContext, groupTitle: title }, `posts.${index}.`),
  );

  const base: By = {
    orgId: command.orgId,
    groupId: command.groupId,
    by: command.by,
    at: command.now,
    ...(command.assistant ? { assistant: command.assistant } : {}),
  };
  const posts: NewPostData[] = command.posts.map((p) => ({ ...p, contentHash: contentHash(p) }));
  const events: PostGroupEvent[] = [
    {
      type: 'PostGroupCreated',
      data: { ...base, ...command.fields, title, strategy: command.strategy, origin: command.origin, posts },
    },
  ];
  if (command.origin === 'drafts') {
    events.push({
      type: 'PostGroupSubmittedForApproval',
      data: {
        ...base,
        approvalId: command.approvalId,
        level: 'group',
        cause: 'created',
        posts: posts.map((p) => ({ postId: p.postId, contentHash: p.contentHash })),
        groupStatus: 'pending_approval',
      },
    });
  }
  return events;
}

export function decideUpdateGroup(
  command: Extract<PostGroupCommand, { type: 'UpdatePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const changes: Partial<GroupFields> = {};
  const c = command.changes;
  if (c.title !== undefined) {
    const title = c.title.trim();
    if (title.length === 0)
      throw new InvalidFields('Invalid title', [{ path: 'title', message: 'must not be blank' }]);
    if (title !== group.title) changes.title = title;
    // A YouTube post without its own title is published under the group's, so the new title must suit YouTube.
    const details = group.posts
      .filter((p) => p.platform === 'youtube' && !inFlightOrSent.includes(p.status))
      .flatMap((p) => checkPostContent(p, { ...command.contentContext, groupTitle: title }))
      .filter((problem) => problem.path === 'platformPayload.youtube.title')
      .map((problem) => ({ path: 'title', message: problem.message }));
    if (changes.title !== undefined && details.length > 0)
      throw new InvalidFields('The title does not suit the group’s YouTube post', details.slice(0, 1));
  }
  if (c.topic !== undefined && c.topic !== group.topic) changes.topic = c.topic;
  if (c.objective !== undefined && c.objective !== group.objective) changes.objective = c.objective;
  if (c.timezone !== undefined && c.timezone !== group.timezone) changes.timezone = c.timezone;
  if (c.scheduledFor !== undefined && c.scheduledFor !== group.scheduledFor) {
    if (c.scheduledFor !== null) assertFuture(c.scheduledFor, command.now, 'scheduledFor');
    changes.scheduledFor = c.scheduledFor;
  }
  if (c.tagIds !== undefined) {
    const tagIds = [...new Set(c.tagIds)];
    if (!sameJson(tagIds, group.tagIds)) changes.tagIds = tagIds;
  }

  const events: PostGroupEvent[] = [];
  if (Object.keys(changes).length > 0) {
    events.push({ type: 'PostGroupUpdated', data: { ...by(group, command), changes } });
  }
  const contentEdited =
    changes.title !== undefined || changes.topic !== undefined || changes.objective !== undefined;
  let current = simulate(group, events);
  if (contentEdited && (group.status === 'approved' || group.status === 'scheduled')) {
    // Editing what the group says withdraws its approval: every post holding one goes back to review.
    const withdrawn = current.posts.filter((p) => holdingApproval.includes(p.status));
    events.push(...submitForApproval(current, command, withdrawn, 'group', 'group_edited'));
    current = simulate(group, events);
  }

  // Moving to approved is decided whole in post-group.ts (the edit, the approval, the unscheduling).
  const status = command.status;
  if (status !== undefined && status !== 'approved' && status !== current.status) {
    events.push(...decideGroupStatus(current, command, status));
  }
  return events;
}

function decideGroupStatus(
  group: ActivePostGroup,
  command: Common & { approvalId: string },
  status: 'draft' | 'pending_approval' | 'canceled',
): PostGroupEvent[] {
  const unsent = group.posts.filter((p) => !inFlightOrSent.includes(p.status));
  switch (status) {
    case 'pending_approval': {
      const posts = unsent.filter((p) => p.status !== 'pending_approval');
      const events = submitForApproval(group, command, posts, 'group', 'submitted');
      if (events.length > 0) return events;
      return [];
    }
    case 'draft':
    case 'canceled': {
      const posts = unsent.filter((p) => p.status !== status);
      return [
        {
          type: 'PostsStatusChanged',
          data: {
            ...by(group, command),
            cause: status === 'draft' ? 'returned_to_draft' : 'canceled',
            postIds: posts.map((p) => p.id),
            status,
            groupStatus: status,
          },
        },
      ];
    }
    default:
      return assertNever(status);
  }
}

export function decideUpdatePost(
  command: Extract<PostGroupCommand, { type: 'UpdatePost' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  const c = command.changes;
  const changes: Extract<PostGroupEvent, { type: 'PostEdited' }>['data']['changes'] = {};
  if (c.contentText !== undefined && c.contentText !== post.contentText) changes.contentText = c.contentText;
  if (c.media !== undefined && !sameJson(c.media, post.media)) changes.media = c.media;
  const payload = patchedPayload(
    c.platformPayload !== undefined ? c.platformPayload : post.platformPayload,
    c.payloadPatch,
  );
  if (!sameJson(payload, post.platformPayload)) changes.platformPayload = payload;
  if (c.socialAccountId !== undefined && c.socialAccountId !== post.socialAccountId)
    changes.socialAccountId = c.socialAccountId;
  const contentChanged =
    changes.contentText !== undefined || changes.media !== undefined || changes.platformPayload !== undefined;
  const anyChange =
    Object.keys(changes).length > 0 ||
    (c.scheduledForUtc !== undefined && c.scheduledForUtc !== post.scheduledForUtc);
  if ((anyChange || command.status !== undefined) && inFlightOrSent.includes(post.status)) {
    if (command.status === post.status && !anyChange) return [];
    throw new Conflict(`The post is ${post.status} and can no longer be changed`, 'post_not_editable');
  }
  if (c.scheduledForUtc !== undefined && c.scheduledForUtc !== post.scheduledForUtc)
    assertFuture(c.scheduledForUtc, command.now, 'scheduledForUtc');
  // Another account may allow less (an X post leaving a Premium account), so its text is checked again.
  if (contentChanged || (changes.socialAccountId !== undefined && post.platform === 'x')) {
    const lifted = Object.keys(c.payloadPatch ?? {});
    assertContent(
      {
        platform: post.platform,
        socialAccountId:
          changes.socialAccountId !== undefined ? changes.socialAccountId : post.socialAccountId,
        contentText: changes.contentText ?? post.contentText,
        media: changes.media !== undefined ? changes.media : post.media,
        platformPayload:
          changes.platformPayload !== undefined ? changes.platformPayload : post.platformPayload,
      },
      { ...command.contentContext, groupTitle: group.title },
      '',
      // Settings the command patched one by one are named as part of its payloadPatch.
      (path) => {
        const key = /^platformPayload\.([^.]+)/.exec(path)?.[1];
        return key && lifted.includes(key) ? `payloadPatch.${path.slice('platformPayload.'.length)}` : path;
      },
    );
  }

  const events: PostGroupEvent[] = [];
  const base = by(group, command);
  // A planned time travels with the edit unless the post is being (re)scheduled, which PostsScheduled records.
  const willSchedule =
    c.scheduledForUtc !== undefined &&
    !contentChanged &&
    (command.status === 'scheduled' ||
      (command.status === undefined && holdingApproval.includes(post.status) && isApprovalCurrent(post)));
  if (c.scheduledForUtc !== undefined && c.scheduledForUtc !== post.scheduledForUtc && !willSchedule)
    changes.scheduledForUtc = c.scheduledForUtc;
  if (Object.keys(changes).length > 0) {
    const content = {
      platform: post.platform,
      contentText: changes.contentText ?? post.contentText,
      media: changes.media !== undefined ? changes.media : post.media,
      platformPayload: changes.platformPayload !== undefined ? changes.platformPayload : post.platformPayload,
    };
    events.push({
      type: 'PostEdited',
      data: { ...base, postId: post.id, changes, contentHash: contentHash(content) },
    });
  }
  let current = simulate(group, events);
  if (contentChanged && holdingApproval.includes(post.status)) {
    // Edited approved content goes back to review; its approval no longer covers what would be published.
    events.push(...submitForApproval(current, command, [findPost(current, post.id)], 'post', 'post_edited'));
    current = simulate(group, events);
  }

  const now = findPost(current, post.id);
  const target = command.status;
  if (target !== undefined && target !== now.status) {
    switch (target) {
      case 'draft':
      case 'canceled':
        events.push({
          type: 'PostsStatusChanged',
          data: {
            ...base,
            cause: target === 'draft' ? 'returned_to_draft' : 'canceled',
            postIds: [now.id],
            status: target,
            groupStatus: groupStatusAfter(current, [now.id], target),
          },
        });
        break;
      case 'pending_approval':
        events.push(...submitForApproval(current, command, [now], 'post', 'submitted'));
        break;
      case 'approved':
        if (now.status === 'scheduled' && isApprovalCurrent(now)) {
          events.push({
            type: 'PostsStatusChanged',
            data: {
              ...base,
              cause: 'unscheduled',
              postIds: [now.id],
              status: 'approved',
              groupStatus: groupStatusAfter(current, [now.id], 'approved'),
            },
          });
        } else {
          if (now.status === 'canceled') throw new Conflict('The post is canceled', 'post_not_approvable');
          events.push(
            ...decideApprove(
              {
                type: 'ApprovePostGroup',
                by: command.by,
                now: command.now,
                ...(command.assistant ? { assistant: command.assistant } : {}),
                approvePosts: [now.id],
                schedule: null,
                // An edit in this patch already recorded its submission under approvalId; records need own ids.
                approvalId: events.some((e) => e.type === 'PostGroupSubmittedForApproval')
                  ? deterministicUuid(command.approvalId, 'approved')
                  : command.approvalId,
              },
              current,
            ),
          );
        }
        break;
      case 'scheduled': {
        if (!holdingApproval.includes(now.status) || !isApprovalCurrent(now))
          throw new Conflict(`The post is ${now.status}; approve it before scheduling`, 'post_not_approved');
        const slot =
          c.scheduledForUtc !== undefined
            ? { scheduledForUtc: c.scheduledForUtc, scheduleReason: 'Time chosen by a member' }
            : command.schedule;
        if (!slot)
          throw new InvalidFields('A time is needed to schedule the post', [
            { path: 'scheduledForUtc', message: 'Required to schedule a post that has no future time' },
          ]);
        events.push(...scheduleEvents(current, command, [now], { [now.id]: slot }, undefined));
        break;
      }
      case 'publishing':
      case 'awaiting_platform':
      case 'published':
      case 'failed':
        throw new Conflict(
          `Status ${target} is set by publishing; use POST …/posts/{postId}/post-now to publish now`,
          'status_set_by_publishing',
        );
      default:
        return assertNever(target);
    }
  } else if (willSchedule && !(now.status === 'scheduled' && c.scheduledForUtc === now.scheduledForUtc)) {
    // Moving an approved or scheduled post to another time (re)schedules it; an approved post is scheduled even
    // at the planned time it already carries.
    events.push(
      ...scheduleEvents(
        current,
        command,
        [now],
        { [now.id]: { scheduledForUtc: c.scheduledForUtc!, scheduleReason: 'Time chosen by a member' } },
        undefined,
      ),
    );
  }
  // Decided on the outcome, not the request: an edit that withdraws the approval first schedules nothing.
  if (command.maySchedule === false && events.some((e) => e.type === 'PostsScheduled'))
    throw new Forbidden('Your role does not allow scheduling posts');
  return events;
}

function patchedPayload(
  base: PlatformPayload | null,
  patch: PayloadPatch | undefined,
): PlatformPayload | null {
  if (!patch || Object.keys(patch).length === 0) return base;
  const next: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return Object.keys(next).length > 0 ? next : null;
}
