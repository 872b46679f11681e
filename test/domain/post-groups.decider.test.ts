// The post-group decider against the spec's state table (one describe per row, the row quoted) and the rules
// the aggregate implements around it: creation, group and post edits, approval, rejection, scheduling,
// publish-now, deletion and the approval records they leave.
import { describe, expect, test } from 'vitest';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { Conflict, NotFound, ValidationError } from '../../domain/shared/errors.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import { contentHash, withAssetHashes, type PostContent } from '../../domain/post-groups/post-content.js';
import {
  postGroupDecider,
  type PostGroupEvent,
  type PostState,
  type PostStatus,
} from '../../domain/post-groups/post-group.js';
import {
  account1,
  account2,
  activeState,
  approvalId,
  approve,
  create,
  dayAfter,
  deletePost,
  editor,
  fields,
  given,
  groupId,
  history,
  image,
  linkedinPost,
  linkedinPostId,
  noStrategy,
  now,
  orgId,
  past,
  postNow,
  postOf,
  redditPost,
  redditPostId,
  reject,
  reviewer,
  schedule,
  slot,
  slots,
  tomorrow,
  unknownPostId,
  updateGroup,
  updatePost,
  video,
  withPost,
  xPost,
  xPostId,
} from '../support/post-group-fixtures.js';

const both = [xPostId, linkedinPostId];
const xHash = contentHash(xPost);
const linkedinHash = contentHash(linkedinPost);
const hashes = [
  { postId: xPostId, contentHash: xHash },
  { postId: linkedinPostId, contentHash: linkedinHash },
];
const editorAt = { orgId, groupId, by: editor, at: now };
const reviewerAt = { orgId, groupId, by: reviewer, at: now };
const memberSlot = (scheduledForUtc: string) => ({
  scheduledForUtc,
  scheduleReason: 'Time chosen by a member',
});

/** The content hash of a post with some fields changed. */
function hashOf(post: PostContent, changes: Partial<PostContent>): string {
  return contentHash({ ...post, ...changes });
}

function statuses(posts: readonly PostState[]): Record<string, PostStatus> {
  return Object.fromEntries(posts.map((p) => [p.id, p.status]));
}

// Histories every section starts from.
const composed = history(create('post_groups'));
const drafted = history(create('drafts'));
const approved = history(create('drafts'), approve());
const scheduled = history(create('drafts'), approve({ schedule: slots(both, tomorrow) }));
const xPublishing = history(create('drafts'), approve(), postNow(xPostId));
/** x approved by its own record, linkedin still waiting for review. */
const xApprovedOnly = history(create('drafts'), approve({ approvePosts: [xPostId] }));

describe('state table: "new group | POST ORG/marketing/drafts | always | `pending_approval` | one post per platform; never scheduled or published"', () => {
  test('creates the group and submits it for approval with one group-level record', () => {
    given([])
      .when(create('drafts'))
      .then([
        {
          type: 'PostGroupCreated',
          data: {
            ...editorAt,
            ...fields,
            strategy: noStrategy,
            origin: 'drafts',
            posts: [
              { ...xPost, contentHash: xHash },
              { ...linkedinPost, contentHash: linkedinHash },
            ],
          },
        },
        {
          type: 'PostGroupSubmittedForApproval',
          data: {
            ...editorAt,
            approvalId,
            level: 'group',
            cause: 'created',
            posts: hashes,
            groupStatus: 'pending_approval',
          },
        },
      ]);
  });

  test('the group and every post are pending_approval, never scheduled or publishing, even with a planned time', () => {
    given([])
      .when(create('drafts', [xPost, linkedinPost, redditPost], { scheduledFor: tomorrow }))
      .thenState((s) => {
        expect(s.status).toBe('pending_approval');
        expect(s.scheduledFor).toBe(tomorrow);
        expect(statuses(s.posts)).toEqual({
          [xPostId]: 'pending_approval',
          [linkedinPostId]: 'pending_approval',
          [redditPostId]: 'pending_approval',
        });
        for (const p of s.posts) {
          expect(p.scheduledForUtc).toBeNull();
          expect(p.approvedContentHash).toBeNull();
          expect(p.idempotencyKey).toBeNull();
        }
      });
  });

  test('the submission is recorded on the group and on each post', () => {
    given([])
      .when(create('drafts'))
      .thenState((s) => {
        const record = {
          id: approvalId,
          level: 'group',
          groupId,
          postId: null,
          approvedByUserId: editor,
          approvedAt: now,
          action: 'submit_for_approval',
        };
        expect(s.approvals).toEqual([record]);
        for (const p of s.posts) expect(p.approvals).toEqual([record]);
      });
  });

  test('one post per platform and account: a second X post for the same account is refused', () => {
    given([])
      .when(create('drafts', [xPost, linkedinPost, { ...xPost, postId: redditPostId }]))
      .thenRefuses(ValidationError, undefined, ['posts.2.platform']);
    given([])
      .when(
        create('drafts', [
          { ...xPost, socialAccountId: account1 },
          { ...xPost, postId: redditPostId, socialAccountId: account1 },
        ]),
      )
      .thenRefuses(ValidationError, undefined, ['posts.1.platform']);
    given([])
      .when(
        create('drafts', [
          { ...xPost, socialAccountId: account1 },
          { ...xPost, postId: redditPostId, socialAccountId: account2 },
        ]),
      )
      .thenTypes(['PostGroupCreated', 'PostGroupSubmittedForApproval']);
  });
});

describe('state table: "new group | thought drafting, launch kit creation (post drafts) | always | `pending_approval` | drafts wait in review"', () => {
  test('drafts created for a strategy keep their strategy link and wait in review', () => {
    const strategy = {
      ...noStrategy,
      strategyId: '60000000-0000-4000-8000-000000000001',
      strategyVersion: 3,
    };
    given([])
      .when({ ...create('drafts'), strategy })
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual(['PostGroupCreated', 'PostGroupSubmittedForApproval']);
        expect(s.strategy).toEqual(strategy);
        expect(s.status).toBe('pending_approval');
        expect(s.posts.every((p) => p.status === 'pending_approval')).toBe(true);
      });
  });
});

describe('creating a composed group (POST post-groups) and creation rules', () => {
  test('origin post_groups: the group and its posts are drafts and no approval record is made', () => {
    given([])
      .when(create('post_groups'))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual(['PostGroupCreated']);
        expect(s.status).toBe('draft');
        expect(s.posts.map((p) => p.status)).toEqual(['draft', 'draft']);
        expect(s.approvals).toEqual([]);
        expect(s.posts.every((p) => p.approvals.length === 0)).toBe(true);
      });
  });

  test('the title is trimmed; each post carries the hash of its content', () => {
    given([])
      .when(create('post_groups', [xPost], { title: '  Launch  ' }))
      .thenState((s) => {
        expect(s.title).toBe('Launch');
        expect(s.posts[0]!.contentHash).toBe(xHash);
      });
  });

  test('creating the same group again changes nothing', () => {
    given(composed).when(create('post_groups')).then([]);
    given(drafted).when(create('drafts')).then([]);
  });

  test('a blank title, no posts or a scheduledFor not in the future is refused with its path', () => {
    given([])
      .when(create('drafts', [xPost], { title: '   ' }))
      .thenRefuses(ValidationError, undefined, ['title']);
    given([]).when(create('drafts', [])).thenRefuses(ValidationError, undefined, ['posts']);
    for (const when of [past, now]) {
      given([])
        .when(create('post_groups', [xPost], { scheduledFor: when }))
        .thenRefuses(ValidationError, undefined, ['scheduledFor']);
    }
  });

  test('content rules: an X text of 281 characters, a Reddit post without subreddit', () => {
    given([])
      .when(create('drafts', [{ ...xPost, contentText: 'a'.repeat(281) }]))
      .thenRefuses(ValidationError, undefined, ['posts.0.contentText']);
    given([])
      .when(create('drafts', [{ ...xPost, contentText: 'a'.repeat(280) }]))
      .thenTypes(['PostGroupCreated', 'PostGroupSubmittedForApproval']);
    given([])
      .when(
        create('drafts', [
          xPost,
          { ...redditPost, platformPayload: { reddit: { subreddit: '', title: 'A title' } } },
        ]),
      )
      .thenRefuses(ValidationError, undefined, ['posts.1.platformPayload.reddit.subreddit']);
    given([])
      .when(create('post_groups', [{ ...redditPost, platformPayload: null }]))
      .thenRefuses(ValidationError, undefined, ['posts.0.platformPayload.reddit']);
  });

  test('commands on a group that does not exist are not found', () => {
    given([])
      .when(updateGroup({ title: 'New' }))
      .thenRefuses(NotFound);
    given([]).when(approve()).thenRefuses(NotFound);
    given(drafted).when(postNow(unknownPostId)).thenRefuses(NotFound);
    given(drafted).when(deletePost(unknownPostId)).thenRefuses(NotFound);
  });
});

describe('state table: "group | PATCH group with `status` | value is in the group enum | the given value | omitted keys stay unchanged"', () => {
  test('draft → pending_approval submits every post with a group-level record', () => {
    given(composed)
      .when(updateGroup({}, 'pending_approval'))
      .then([
        {
          type: 'PostGroupSubmittedForApproval',
          data: {
            ...editorAt,
            approvalId,
            level: 'group',
            cause: 'submitted',
            posts: hashes,
            groupStatus: 'pending_approval',
          },
        },
      ]);
  });

  test('approved → draft returns the posts to draft and withdraws their approval', () => {
    given(approved)
      .when(updateGroup({}, 'draft'))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostsStatusChanged',
            data: {
              ...editorAt,
              cause: 'returned_to_draft',
              postIds: both,
              status: 'draft',
              groupStatus: 'draft',
            },
          },
        ]);
        expect(s.status).toBe('draft');
        expect(s.approvedBy).toBeNull();
        expect(s.posts.every((p) => p.status === 'draft' && p.approvedContentHash === null)).toBe(true);
      });
  });

  test('scheduled → canceled cancels the unsent posts; a publishing or published post is untouched', () => {
    given(scheduled)
      .when(updateGroup({}, 'canceled'))
      .thenState((s) => {
        expect(s.status).toBe('canceled');
        expect(s.posts.every((p) => p.status === 'canceled' && p.approvedContentHash === null)).toBe(true);
      });
    given(xPublishing)
      .when(updateGroup({}, 'canceled'))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({ type: 'PostsStatusChanged', data: { postIds: [linkedinPostId] } });
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'publishing', [linkedinPostId]: 'canceled' });
      });
    for (const status of ['published', 'awaiting_platform'] as const) {
      given(withPost(approved, xPostId, { status }))
        .when(updateGroup({}, 'pending_approval'))
        .thenState((s) => {
          expect(statuses(s.posts)).toEqual({ [xPostId]: status, [linkedinPostId]: 'pending_approval' });
          expect(s.status).toBe('pending_approval');
        });
    }
  });

  test('canceled → draft brings the canceled posts back as drafts', () => {
    given(history(create('drafts'), updateGroup({}, 'canceled')))
      .when(updateGroup({}, 'draft'))
      .thenState((s) => {
        expect(s.status).toBe('draft');
        expect(s.posts.map((p) => p.status)).toEqual(['draft', 'draft']);
      });
  });

  test('omitted keys stay unchanged', () => {
    given(approved)
      .when(updateGroup({ timezone: 'UTC' }))
      .thenState((s, events) => {
        expect(events).toEqual([
          { type: 'PostGroupUpdated', data: { ...editorAt, changes: { timezone: 'UTC' } } },
        ]);
        expect(s).toMatchObject({ ...fields, timezone: 'UTC', status: 'approved' });
      });
  });

  test('a patch that changes nothing emits nothing', () => {
    given(approved)
      .when(updateGroup({ title: '  Scheduler launch ', topic: 'launch', timezone: 'Europe/Berlin' }))
      .then([]);
    given(drafted).when(updateGroup({}, 'pending_approval')).then([]);
    given(composed).when(updateGroup({}, 'draft')).then([]);
    const tag = '70000000-0000-4000-8000-000000000001';
    given(history(create('post_groups', [xPost], { tagIds: [tag] })))
      .when(updateGroup({ tagIds: [tag, tag] }))
      .then([]);
  });

  test('a blank title or a past scheduledFor is refused', () => {
    given(composed)
      .when(updateGroup({ title: ' ' }))
      .thenRefuses(ValidationError, undefined, ['title']);
    given(composed)
      .when(updateGroup({ scheduledFor: past }))
      .thenRefuses(ValidationError, undefined, ['scheduledFor']);
  });

  test('a YouTube post without its own title takes the group title, so a title YouTube refuses is a 400', () => {
    const youtubePost = {
      ...xPost,
      postId: redditPostId,
      platform: 'youtube' as const,
      media: video,
      platformPayload: null,
    };
    const withYoutube = history(create('post_groups', [xPost, youtubePost]));
    given(withYoutube)
      .when(updateGroup({ title: 'x'.repeat(101) }))
      .thenRefuses(ValidationError, undefined, ['title']);
    given(withYoutube)
      .when(updateGroup({ title: 'Launch <today>' }))
      .thenRefuses(ValidationError, undefined, ['title']);
    // With its own title the group title is free.
    const titled = history(
      create('post_groups', [{ ...youtubePost, platformPayload: { youtube: { title: 'Launch video' } } }]),
    );
    expect(
      postGroupDecider.decide(updateGroup({ title: 'x'.repeat(200) }), activeState(titled)),
    ).toHaveLength(1);
  });
});

describe('state table: "approved or scheduled group | PATCH group changing title, topic or objective | always | `pending_approval` | approval is withdrawn"', () => {
  test('a title edit of an approved group sends every approved post back to review (cause group_edited)', () => {
    given(approved)
      .when(updateGroup({ title: 'Scheduler launch, take two' }))
      .then([
        { type: 'PostGroupUpdated', data: { ...editorAt, changes: { title: 'Scheduler launch, take two' } } },
        {
          type: 'PostGroupSubmittedForApproval',
          data: {
            ...editorAt,
            approvalId,
            level: 'group',
            cause: 'group_edited',
            posts: hashes,
            groupStatus: 'pending_approval',
          },
        },
      ]);
  });

  test.each([
    ['title', { title: 'Another title' }],
    ['topic', { topic: 'another topic' }],
    ['objective', { objective: null }],
  ])('editing the %s of a scheduled group withdraws the approval of every post', (_, changes) => {
    given(scheduled)
      .when(updateGroup(changes))
      .thenState((s) => {
        expect(s.status).toBe('pending_approval');
        expect(s.approvedBy).toBeNull();
        for (const p of s.posts) {
          expect(p.status).toBe('pending_approval');
          expect(p.approvedContentHash).toBeNull();
          expect(p.approvals.at(-1)).toMatchObject({ level: 'group', action: 'submit_for_approval' });
        }
        expect(s.approvals.at(-1)).toEqual({
          id: approvalId,
          level: 'group',
          groupId,
          postId: null,
          approvedByUserId: editor,
          approvedAt: now,
          action: 'submit_for_approval',
        });
      });
  });

  test('a failed post holding an approval is withdrawn too; a published one is untouched', () => {
    given(withPost(approved, xPostId, { status: 'failed' }))
      .when(updateGroup({ topic: 'new' }))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({ status: 'pending_approval', approvedContentHash: null });
      });
    given(withPost(approved, xPostId, { status: 'published' }))
      .when(updateGroup({ topic: 'new' }))
      .thenState((s, events) => {
        expect(events[1]).toMatchObject({ data: { posts: [{ postId: linkedinPostId }] } });
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'published', [linkedinPostId]: 'pending_approval' });
      });
  });

  test('editing timezone, tagIds or scheduledFor does not withdraw the approval', () => {
    for (const changes of [
      { timezone: 'UTC' },
      { tagIds: ['70000000-0000-4000-8000-000000000001'] },
      { scheduledFor: dayAfter },
    ]) {
      given(scheduled)
        .when(updateGroup(changes))
        .thenState((s, events) => {
          expect(events.map((e) => e.type)).toEqual(['PostGroupUpdated']);
          expect(s.status).toBe('scheduled');
          expect(s.posts.every((p) => p.status === 'scheduled')).toBe(true);
        });
    }
  });

  test('editing the title of a draft or pending group only updates it', () => {
    given(composed)
      .when(updateGroup({ title: 'New' }))
      .thenTypes(['PostGroupUpdated']);
    given(drafted)
      .when(updateGroup({ title: 'New' }))
      .thenTypes(['PostGroupUpdated']);
  });

  test('a title edit with status draft withdraws and then returns the posts to draft', () => {
    given(approved)
      .when(updateGroup({ title: 'New' }, 'draft'))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual([
          'PostGroupUpdated',
          'PostGroupSubmittedForApproval',
          'PostsStatusChanged',
        ]);
        expect(s.status).toBe('draft');
        expect(s.posts.map((p) => p.status)).toEqual(['draft', 'draft']);
      });
  });
});

describe('state table: "approved, scheduled or failed post | PATCH post changing contentText, media or platformPayload | always | approval is invalidated"', () => {
  const newText = 'The scheduler ships today, with time zones.';

  test('editing the text of an approved post sends it back to review with a post-level record (cause post_edited)', () => {
    const newHash = hashOf(xPost, { contentText: newText });
    given(approved)
      .when(updatePost(xPostId, { contentText: newText }))
      .then([
        {
          type: 'PostEdited',
          data: { ...editorAt, postId: xPostId, changes: { contentText: newText }, contentHash: newHash },
        },
        {
          type: 'PostGroupSubmittedForApproval',
          data: {
            ...editorAt,
            approvalId,
            level: 'post',
            cause: 'post_edited',
            posts: [{ postId: xPostId, contentHash: newHash }],
            groupStatus: 'approved',
          },
        },
      ]);
  });

  test('the post is pending_approval, its approval withdrawn and the record on post and group', () => {
    given(approved)
      .when(updatePost(xPostId, { contentText: newText }))
      .thenState((s) => {
        const x = postOf(s, xPostId);
        expect(x).toMatchObject({
          status: 'pending_approval',
          approvedContentHash: null,
          contentText: newText,
        });
        const record = {
          id: deterministicUuid(approvalId, xPostId),
          level: 'post',
          groupId,
          postId: xPostId,
          approvedByUserId: editor,
          approvedAt: now,
          action: 'submit_for_approval',
        };
        expect(x.approvals.at(-1)).toEqual(record);
        expect(s.approvals.at(-1)).toEqual(record);
        expect(postOf(s, linkedinPostId).status).toBe('approved');
        expect(s.status).toBe('approved');
      });
  });

  test('editing the media of a scheduled post invalidates its approval', () => {
    given(scheduled)
      .when(updatePost(xPostId, { media: image }))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'pending_approval',
          approvedContentHash: null,
          contentHash: hashOf(xPost, { media: image }),
        });
        expect(s.status).toBe('scheduled');
      });
  });

  test('editing the platformPayload of a failed post invalidates its approval', () => {
    given(withPost(approved, xPostId, { status: 'failed' }))
      .when(updatePost(xPostId, { platformPayload: { replySettings: 'following' } }))
      .thenState((s, events) => {
        expect(events[1]).toMatchObject({ data: { level: 'post', cause: 'post_edited' } });
        expect(postOf(s, xPostId)).toMatchObject({ status: 'pending_approval', approvedContentHash: null });
      });
  });

  test.each([
    ['quoteTweetUrl', { quoteTweetUrl: 'https://x.com/acme/status/123' }],
    ['communityUrl', { communityUrl: 'https://x.com/i/communities/456' }],
    ['replySettings', { replySettings: 'mentionedUsers' as const }],
    ['poll', { poll: { options: ['Yes', 'No'], durationMinutes: 60 } }],
  ])('a payloadPatch setting %s invalidates the approval', (key, payloadPatch) => {
    given(approved)
      .when(updatePost(xPostId, { payloadPatch }))
      .thenState((s) => {
        const x = postOf(s, xPostId);
        expect(x.platformPayload).toEqual(payloadPatch);
        expect(x.status).toBe('pending_approval');
        expect(x.contentHash).toBe(hashOf(xPost, { platformPayload: payloadPatch }));
        expect(key in (x.platformPayload ?? {})).toBe(true);
      });
  });

  test('a payloadPatch key set to null removes it (and is an edit); removing an absent key is not', () => {
    const withReplies = {
      ...xPost,
      platformPayload: { replySettings: 'following' as const, thread: ['More'] },
    };
    const start = history(create('drafts', [withReplies]), approve());
    given(start)
      .when(updatePost(xPostId, { payloadPatch: { replySettings: null } }))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          platformPayload: { thread: ['More'] },
          status: 'pending_approval',
        });
      });
    given(start)
      .when(updatePost(xPostId, { payloadPatch: { poll: null } }))
      .then([]);
    given(
      history(create('drafts', [{ ...xPost, platformPayload: { replySettings: 'following' } }]), approve()),
    )
      .when(updatePost(xPostId, { payloadPatch: { replySettings: null } }))
      .thenState((s) => {
        expect(postOf(s, xPostId).platformPayload).toBeNull();
      });
  });

  test('editing a draft or pending post changes no status', () => {
    for (const start of [composed, drafted]) {
      given(start)
        .when(updatePost(xPostId, { contentText: newText }))
        .thenState((s, events) => {
          expect(events.map((e) => e.type)).toEqual(['PostEdited']);
          expect(postOf(s, xPostId).status).toBe(postOf(activeState(start), xPostId).status);
        });
    }
  });

  test('changing only the account, or setting the same content, keeps the approval', () => {
    given(approved)
      .when(updatePost(xPostId, { socialAccountId: account1 }))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'approved',
          socialAccountId: account1,
          approvedContentHash: xHash,
        });
      });
    given(approved)
      .when(updatePost(xPostId, { contentText: xPost.contentText, media: null, platformPayload: null }))
      .then([]);
  });

  test('a publishing, awaiting_platform or published post cannot be edited', () => {
    given(xPublishing)
      .when(updatePost(xPostId, { contentText: newText }))
      .thenRefuses(Conflict, 'post_not_editable');
    for (const status of ['awaiting_platform', 'published'] as const) {
      given(withPost(approved, xPostId, { status }))
        .when(updatePost(xPostId, { contentText: newText }))
        .thenRefuses(Conflict, 'post_not_editable');
      given(withPost(approved, xPostId, { status }))
        .when(updatePost(xPostId, {}, { status: 'draft' }))
        .thenRefuses(Conflict, 'post_not_editable');
    }
  });

  test('content rules are checked again, named as the command carries the field (a patched setting under payloadPatch)', () => {
    given(approved)
      .when(updatePost(xPostId, { contentText: 'a'.repeat(281) }))
      .thenRefuses(ValidationError, undefined, ['contentText']);
    given(approved)
      .when(updatePost(xPostId, { payloadPatch: { poll: { options: ['Only one'], durationMinutes: 60 } } }))
      .thenRefuses(ValidationError, undefined, ['payloadPatch.poll.options']);
    given(approved)
      .when(
        updatePost(xPostId, { platformPayload: { poll: { options: ['Yes', 'No'], durationMinutes: 1 } } }),
      )
      .thenRefuses(ValidationError, undefined, ['platformPayload.poll.durationMinutes']);
    given(history(create('drafts', [redditPost])))
      .when(updatePost(redditPostId, { platformPayload: { reddit: { subreddit: '', title: 'T' } } }))
      .thenRefuses(ValidationError, undefined, ['platformPayload.reddit.subreddit']);
  });
});

describe('PATCH post: planned time and status targets', () => {
  test('a scheduledForUtc not in the future is refused', () => {
    for (const start of [composed, approved]) {
      given(start)
        .when(updatePost(xPostId, { scheduledForUtc: past }))
        .thenRefuses(ValidationError, undefined, ['scheduledForUtc']);
    }
  });

  test('a scheduledForUtc on an approved post schedules it', () => {
    given(approved)
      .when(updatePost(xPostId, { scheduledForUtc: tomorrow }))
      .then([
        {
          type: 'PostsScheduled',
          data: {
            ...editorAt,
            posts: [{ postId: xPostId, ...memberSlot(tomorrow) }],
            timezone: null,
            groupStatus: 'scheduled',
          },
        },
      ]);
  });

  test('a scheduledForUtc on a draft post only stores the planned time', () => {
    given(composed)
      .when(updatePost(xPostId, { scheduledForUtc: tomorrow }))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostEdited',
            data: {
              ...editorAt,
              postId: xPostId,
              changes: { scheduledForUtc: tomorrow },
              contentHash: xHash,
            },
          },
        ]);
        expect(postOf(s, xPostId)).toMatchObject({ status: 'draft', scheduledForUtc: tomorrow });
      });
  });

  test('an approved post that kept its planned time is scheduled when that same time is sent', () => {
    const plannedThenApproved = history(
      create('post_groups'),
      updatePost(xPostId, { scheduledForUtc: tomorrow }),
      approve(),
    );
    expect(postOf(activeState(plannedThenApproved), xPostId)).toMatchObject({
      status: 'approved',
      scheduledForUtc: tomorrow,
    });
    given(plannedThenApproved)
      .when(updatePost(xPostId, { scheduledForUtc: tomorrow }))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual(['PostsScheduled']);
        expect(postOf(s, xPostId)).toMatchObject({ status: 'scheduled', scheduledForUtc: tomorrow });
      });
    // Sending the time a scheduled post already has is a no-op.
    given(scheduled)
      .when(updatePost(xPostId, { scheduledForUtc: tomorrow }))
      .then([]);
  });

  test('status draft returns an approved post to draft', () => {
    given(approved)
      .when(updatePost(xPostId, {}, { status: 'draft' }))
      .then([
        {
          type: 'PostsStatusChanged',
          data: {
            ...editorAt,
            cause: 'returned_to_draft',
            postIds: [xPostId],
            status: 'draft',
            groupStatus: 'approved',
          },
        },
      ]);
  });

  test('status pending_approval submits a draft post with a post-level record', () => {
    given(composed)
      .when(updatePost(xPostId, {}, { status: 'pending_approval' }))
      .then([
        {
          type: 'PostGroupSubmittedForApproval',
          data: {
            ...editorAt,
            approvalId,
            level: 'post',
            cause: 'submitted',
            posts: [{ postId: xPostId, contentHash: xHash }],
            groupStatus: 'pending_approval',
          },
        },
      ]);
  });

  test('status approved approves this post with a post-level record', () => {
    given(drafted)
      .when(updatePost(xPostId, {}, { status: 'approved' }))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostGroupApproved',
            data: {
              ...editorAt,
              level: 'post',
              records: [
                { approvalId: deterministicUuid(approvalId, xPostId), postId: xPostId, action: 'approved' },
              ],
              posts: [{ postId: xPostId, contentHash: xHash }],
              groupStatus: 'approved',
            },
          },
        ]);
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'approved', [linkedinPostId]: 'pending_approval' });
      });
  });

  test('status approved on a scheduled post unschedules it and keeps the approval', () => {
    given(scheduled)
      .when(updatePost(xPostId, {}, { status: 'approved' }))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostsStatusChanged',
            data: {
              ...editorAt,
              cause: 'unscheduled',
              postIds: [xPostId],
              status: 'approved',
              groupStatus: 'scheduled',
            },
          },
        ]);
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'approved',
          scheduledForUtc: null,
          approvedContentHash: xHash,
        });
      });
  });

  test('an edit and status approved in one patch: the new content is re-approved, each record with its own id', () => {
    const newText = 'Edited and approved at once.';
    given(approved)
      .when(updatePost(xPostId, { contentText: newText }, { status: 'approved' }))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual([
          'PostEdited',
          'PostGroupSubmittedForApproval',
          'PostGroupApproved',
        ]);
        const x = postOf(s, xPostId);
        expect(x).toMatchObject({
          status: 'approved',
          approvedContentHash: hashOf(xPost, { contentText: newText }),
        });
        expect(x.approvals.slice(-2).map((r) => r.action)).toEqual(['submit_for_approval', 'reapproved']);
        const [submitted, reapproved] = x.approvals.slice(-2);
        expect(submitted!.id).not.toBe(reapproved!.id);
      });
  });

  test('status scheduled needs a current approval and a time', () => {
    given(drafted)
      .when(updatePost(xPostId, { scheduledForUtc: tomorrow }, { status: 'scheduled' }))
      .thenRefuses(Conflict, 'post_not_approved');
    given(approved)
      .when(updatePost(xPostId, { contentText: 'Edited' }, { status: 'scheduled' }))
      .thenRefuses(Conflict, 'post_not_approved');
    given(approved)
      .when(updatePost(xPostId, {}, { status: 'scheduled' }))
      .thenRefuses(ValidationError, undefined, ['scheduledForUtc']);
    given(approved)
      .when(updatePost(xPostId, {}, { status: 'scheduled', schedule: slot(dayAfter, 'Best slot') }))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'scheduled',
          scheduledForUtc: dayAfter,
          scheduleReason: 'Best slot',
        });
      });
    given(approved)
      .when(updatePost(xPostId, { scheduledForUtc: tomorrow }, { status: 'scheduled' }))
      .thenTypes(['PostsScheduled']);
  });

  test('status canceled cancels the post and withdraws its approval', () => {
    given(approved)
      .when(updatePost(linkedinPostId, {}, { status: 'canceled' }))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({
          type: 'PostsStatusChanged',
          data: { cause: 'canceled', status: 'canceled', postIds: [linkedinPostId] },
        });
        expect(postOf(s, linkedinPostId)).toMatchObject({ status: 'canceled', approvedContentHash: null });
      });
  });

  test.each(['publishing', 'awaiting_platform', 'published', 'failed'] as const)(
    'status %s is set by publishing only',
    (status) => {
      given(approved)
        .when(updatePost(xPostId, {}, { status }))
        .thenRefuses(Conflict, 'status_set_by_publishing');
    },
  );

  test('the status a post already has changes nothing', () => {
    given(approved)
      .when(updatePost(xPostId, {}, { status: 'approved' }))
      .then([]);
    given(xPublishing)
      .when(updatePost(xPostId, {}, { status: 'publishing' }))
      .then([]);
  });
});

describe('state table: "group | POST approve | body optional | not shown | approval recorded; unless autoSchedule is false, the best free slot is assigned"', () => {
  test('schedule null approves only, with one group-level record (approved the first time)', () => {
    given(drafted)
      .when(approve())
      .then([
        {
          type: 'PostGroupApproved',
          data: {
            ...reviewerAt,
            level: 'group',
            records: [{ approvalId, postId: null, action: 'approved' }],
            posts: hashes,
            groupStatus: 'approved',
          },
        },
      ]);
  });

  test('approval is recorded on the group and on the posts, and binds the content hash', () => {
    given(drafted)
      .when(approve())
      .thenState((s) => {
        const record = {
          id: approvalId,
          level: 'group',
          groupId,
          postId: null,
          approvedByUserId: reviewer,
          approvedAt: now,
          action: 'approved',
        };
        expect(s.approvals.map((r) => r.action)).toEqual(['submit_for_approval', 'approved']);
        expect(s.approvals.at(-1)).toEqual(record);
        for (const p of s.posts) {
          expect(p.approvals.at(-1)).toEqual(record);
          expect(p.approvedContentHash).toBe(p.contentHash);
          expect(p.status).toBe('approved');
        }
        expect(s).toMatchObject({ status: 'approved', approvedBy: reviewer, approvedAt: now });
      });
  });

  test('a composed draft group can be approved directly', () => {
    given(composed)
      .when(approve())
      .thenState((s) => {
        expect(s.status).toBe('approved');
      });
  });

  test('an approval after an earlier one is recorded as reapproved', () => {
    given(history(create('drafts'), approve(), updateGroup({ title: 'Edited' })))
      .when(approve())
      .thenEvents((events) => {
        expect(events[0]).toMatchObject({
          type: 'PostGroupApproved',
          data: { records: [{ approvalId, postId: null, action: 'reapproved' }] },
        });
      });
  });

  test('approvePosts: one post-level record per post, only that subset approved', () => {
    given(history(create('drafts', [xPost, linkedinPost, redditPost])))
      .when(approve({ approvePosts: [xPostId, redditPostId] }))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostGroupApproved',
            data: {
              ...reviewerAt,
              level: 'post',
              records: [
                { approvalId: deterministicUuid(approvalId, xPostId), postId: xPostId, action: 'approved' },
                {
                  approvalId: deterministicUuid(approvalId, redditPostId),
                  postId: redditPostId,
                  action: 'approved',
                },
              ],
              posts: [
                { postId: xPostId, contentHash: xHash },
                { postId: redditPostId, contentHash: contentHash(redditPost) },
              ],
              groupStatus: 'approved',
            },
          },
        ]);
        expect(statuses(s.posts)).toEqual({
          [xPostId]: 'approved',
          [linkedinPostId]: 'pending_approval',
          [redditPostId]: 'approved',
        });
        expect(s.status).toBe('approved');
        expect(postOf(s, xPostId).approvals.at(-1)).toMatchObject({ level: 'post', postId: xPostId });
        expect(postOf(s, linkedinPostId).approvals.map((r) => r.action)).toEqual(['submit_for_approval']);
        expect(s.approvals.filter((r) => r.action === 'approved').map((r) => r.postId)).toEqual([
          xPostId,
          redditPostId,
        ]);
      });
  });

  test('a post approved before and edited since is reapproved at post level', () => {
    given(
      history(
        create('drafts'),
        approve({ approvePosts: [xPostId] }),
        updatePost(xPostId, { contentText: 'v2' }),
      ),
    )
      .when(approve({ approvePosts: [xPostId] }))
      .thenEvents((events) => {
        expect(events[0]).toMatchObject({ data: { records: [{ postId: xPostId, action: 'reapproved' }] } });
      });
  });

  test('an unknown post in approvePosts is a validation error', () => {
    given(drafted)
      .when(approve({ approvePosts: [xPostId, unknownPostId] }))
      .thenRefuses(ValidationError, undefined, ['approvePosts.1']);
  });

  test('a canceled group cannot be approved', () => {
    given(history(create('drafts'), updateGroup({}, 'canceled')))
      .when(approve())
      .thenRefuses(Conflict, 'group_canceled');
  });

  test('a draft or pending group with nothing to approve is a conflict; an approved group again is a no-op', () => {
    // x is publishing and the group went back to draft: nothing left that an approval could cover.
    const nothingLeft = history(
      create('drafts', [xPost]),
      approve(),
      postNow(xPostId),
      updateGroup({}, 'draft'),
    );
    expect(activeState(nothingLeft).status).toBe('draft');
    given(nothingLeft).when(approve()).thenRefuses(Conflict, 'nothing_to_approve');
    // A pending group whose posts all left review (a state only publishing outcomes lead to).
    const allPublished = withPost(approved, xPostId, { status: 'published' });
    given({
      ...allPublished,
      status: 'pending_approval',
      posts: allPublished.posts.map((p) => ({ ...p, status: 'published' as const })),
    })
      .when(approve())
      .thenRefuses(Conflict, 'nothing_to_approve');
    given(approved).when(approve()).then([]);
  });

  test('a publishing or canceled post named in approvePosts is refused', () => {
    given(xPublishing)
      .when(approve({ approvePosts: [xPostId] }))
      .thenRefuses(Conflict, 'post_not_approvable');
  });

  test('with a schedule, the approved posts are scheduled at those times and the group is scheduled', () => {
    given(drafted)
      .when(
        approve({ schedule: { [xPostId]: slot(tomorrow), [linkedinPostId]: slot(dayAfter, 'Best slot') } }),
      )
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostGroupApproved',
            data: {
              ...reviewerAt,
              level: 'group',
              records: [{ approvalId, postId: null, action: 'approved' }],
              posts: hashes,
              groupStatus: 'approved',
            },
          },
          {
            type: 'PostsScheduled',
            data: {
              ...reviewerAt,
              posts: [
                { postId: xPostId, ...memberSlot(tomorrow) },
                { postId: linkedinPostId, scheduledForUtc: dayAfter, scheduleReason: 'Best slot' },
              ],
              timezone: null,
              groupStatus: 'scheduled',
            },
          },
        ]);
        expect(s.status).toBe('scheduled');
        expect(postOf(s, xPostId)).toMatchObject({ status: 'scheduled', scheduledForUtc: tomorrow });
        expect(postOf(s, linkedinPostId)).toMatchObject({ status: 'scheduled', scheduledForUtc: dayAfter });
      });
  });

  test('with a schedule and a subset, only the subset is scheduled', () => {
    given(drafted)
      .when(approve({ approvePosts: [xPostId], schedule: slots([xPostId], tomorrow), timezone: 'UTC' }))
      .thenState((s) => {
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'scheduled', [linkedinPostId]: 'pending_approval' });
        expect(s).toMatchObject({ status: 'scheduled', timezone: 'UTC' });
      });
  });

  test('a time not in the future is refused', () => {
    given(drafted)
      .when(approve({ schedule: { [xPostId]: slot(tomorrow), [linkedinPostId]: slot(now) } }))
      .thenRefuses(ValidationError, undefined, ['scheduledForUtc']);
  });

  test('a timezone without a schedule is stored', () => {
    given(drafted)
      .when(approve({ timezone: 'America/New_York' }))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual(['PostGroupApproved', 'PostGroupUpdated']);
        expect(s.timezone).toBe('America/New_York');
      });
  });
});

describe('state table: "group | POST reject | body optional | not shown | optional reason improves preference learning"', () => {
  test('records rejected with reason and note, and emits a preference signal', () => {
    given(drafted)
      .when(reject({ reason: 'too_promotional', note: '  Sounds like an ad  ' }))
      .then([
        {
          type: 'PostGroupRejected',
          data: {
            ...reviewerAt,
            level: 'group',
            records: [{ approvalId, postId: null }],
            posts: hashes,
            reason: 'too_promotional',
            note: 'Sounds like an ad',
            groupStatus: 'draft',
          },
        },
        {
          type: 'PreferenceSignalRecorded',
          data: {
            ...reviewerAt,
            kind: 'reject',
            signal: 'too_promotional',
            note: 'Sounds like an ad',
            topic: 'launch',
            posts: [
              { postId: xPostId, platform: 'x', contentText: xPost.contentText },
              { postId: linkedinPostId, platform: 'linkedin', contentText: linkedinPost.contentText },
            ],
          },
        },
      ]);
  });

  test('without a reason the signal is unspecified and the note null', () => {
    given(drafted)
      .when(reject())
      .thenEvents((events) => {
        expect(events[0]).toMatchObject({ data: { reason: null, note: null } });
        expect(events[1]).toMatchObject({ data: { signal: 'unspecified', note: null } });
      });
  });

  test('rejected posts go to draft with their approval and time cleared; the group goes to draft', () => {
    given(scheduled)
      .when(reject({ reason: 'wrong_timing' }))
      .thenState((s) => {
        expect(s.status).toBe('draft');
        expect(s.approvedBy).toBeNull();
        for (const p of s.posts) {
          expect(p).toMatchObject({
            status: 'draft',
            approvedContentHash: null,
            scheduledForUtc: null,
            scheduleReason: null,
          });
          expect(p.approvals.at(-1)).toMatchObject({
            action: 'rejected',
            level: 'group',
            approvedByUserId: reviewer,
          });
        }
        expect(s.approvals.at(-1)).toMatchObject({ id: approvalId, action: 'rejected', postId: null });
      });
  });

  test('rejectPosts: post-level records; the group follows what remains', () => {
    given(drafted)
      .when(reject({ rejectPosts: [xPostId], reason: 'inaccurate' }))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({
          type: 'PostGroupRejected',
          data: {
            level: 'post',
            records: [{ approvalId: deterministicUuid(approvalId, xPostId), postId: xPostId }],
            groupStatus: 'pending_approval',
          },
        });
        expect(events[1]).toMatchObject({
          data: { signal: 'inaccurate', posts: [{ postId: xPostId, platform: 'x' }] },
        });
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'draft', [linkedinPostId]: 'pending_approval' });
        expect(s.status).toBe('pending_approval');
        expect(postOf(s, xPostId).approvals.at(-1)).toMatchObject({ level: 'post', action: 'rejected' });
      });
    given(scheduled)
      .when(reject({ rejectPosts: [linkedinPostId] }))
      .thenState((s) => {
        expect(s.status).toBe('scheduled');
        expect(postOf(s, linkedinPostId)).toMatchObject({ status: 'draft', scheduledForUtc: null });
      });
  });

  test('a published post named in rejectPosts cannot be rejected; unknown ids are a validation error', () => {
    given(withPost(approved, xPostId, { status: 'published' }))
      .when(reject({ rejectPosts: [xPostId] }))
      .thenRefuses(Conflict, 'post_not_rejectable');
    given(xPublishing)
      .when(reject({ rejectPosts: [xPostId] }))
      .thenRefuses(Conflict, 'post_not_rejectable');
    given(drafted)
      .when(reject({ rejectPosts: [unknownPostId] }))
      .thenRefuses(ValidationError, undefined, ['rejectPosts.0']);
  });

  test('a whole-group rejection leaves a published post alone', () => {
    given(withPost(approved, xPostId, { status: 'published' }))
      .when(reject())
      .thenState((s) => {
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'published', [linkedinPostId]: 'draft' });
        expect(s.status).toBe('draft');
      });
  });

  test('a canceled group cannot be rejected', () => {
    given(history(create('drafts'), updateGroup({}, 'canceled')))
      .when(reject())
      .thenRefuses(Conflict, 'group_canceled');
  });
});

describe('state table: "group | POST schedule | group must be approved; draft or pending_approval gives HTTP 409 | not shown | explicit `scheduledForUtc` or best slot (`useBestSlot`)"', () => {
  test('a draft or pending_approval group is a 409 group_not_approved', () => {
    for (const start of [composed, drafted]) {
      given(start)
        .when(schedule(slots(both, tomorrow)))
        .thenRefuses(Conflict, 'group_not_approved');
    }
  });

  test('a canceled group is a 409 group_canceled', () => {
    given(history(create('drafts'), approve(), updateGroup({}, 'canceled')))
      .when(schedule(slots(both, tomorrow)))
      .thenRefuses(Conflict, 'group_canceled');
  });

  test('an approved group: its posts are scheduled at the given times and the group is scheduled', () => {
    given(approved)
      .when(schedule({ [xPostId]: slot(tomorrow), [linkedinPostId]: slot(dayAfter, 'Best slot') }))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostsScheduled',
            data: {
              ...editorAt,
              posts: [
                { postId: xPostId, ...memberSlot(tomorrow) },
                { postId: linkedinPostId, scheduledForUtc: dayAfter, scheduleReason: 'Best slot' },
              ],
              timezone: null,
              groupStatus: 'scheduled',
            },
          },
        ]);
        expect(s).toMatchObject({ status: 'scheduled', scheduledFor: tomorrow });
        expect(postOf(s, linkedinPostId)).toMatchObject({
          status: 'scheduled',
          scheduledForUtc: dayAfter,
          scheduleReason: 'Best slot',
        });
      });
  });

  test('postIds naming a post still pending is a 409 post_not_approved', () => {
    given(xApprovedOnly)
      .when(schedule(slots(both, tomorrow), { postIds: [xPostId, linkedinPostId] }))
      .thenRefuses(Conflict, 'post_not_approved');
    given(xApprovedOnly)
      .when(schedule(slots([xPostId], tomorrow), { postIds: [xPostId] }))
      .thenState((s) => {
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'scheduled', [linkedinPostId]: 'pending_approval' });
      });
  });

  test('without postIds only the approved posts are scheduled', () => {
    given(xApprovedOnly)
      .when(schedule(slots([xPostId], tomorrow)))
      .thenState((s) => {
        expect(statuses(s.posts)).toEqual({ [xPostId]: 'scheduled', [linkedinPostId]: 'pending_approval' });
        expect(s.status).toBe('scheduled');
      });
  });

  test('a time in the past is refused', () => {
    given(approved)
      .when(schedule(slots(both, past)))
      .thenRefuses(ValidationError, undefined, ['scheduledForUtc']);
  });

  test('rescheduling to the same times changes nothing; a new timezone is recorded', () => {
    given(scheduled)
      .when(schedule(slots(both, tomorrow)))
      .then([]);
    given(scheduled)
      .when(schedule(slots(both, tomorrow), { timezone: 'UTC' }))
      .thenState((s) => {
        expect(s.timezone).toBe('UTC');
      });
  });

  test('a group whose approved posts are all publishing has nothing to schedule', () => {
    given(history(create('drafts', [xPost]), approve(), postNow(xPostId)))
      .when(schedule(slots([xPostId], tomorrow)))
      .thenRefuses(Conflict, 'nothing_to_schedule');
  });
});

describe('state table: "post | POST post-now | post is approved or scheduled; draft or pending_approval gives HTTP 409 | publish attempted immediately | returns the post"', () => {
  test('a draft or pending_approval post is a 409 post_not_approved', () => {
    given(composed).when(postNow(xPostId)).thenRefuses(Conflict, 'post_not_approved');
    given(drafted).when(postNow(xPostId)).thenRefuses(Conflict, 'post_not_approved');
  });

  test('an approved post: publish requested for the approved content, post publishing, idempotency key set', () => {
    given(approved)
      .when(postNow(xPostId))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostPublishRequested',
            data: {
              ...editorAt,
              postId: xPostId,
              contentHash: xHash,
              idempotencyKey: `publish:${xPostId}:1`,
              trigger: 'post_now',
            },
          },
        ]);
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'publishing',
          idempotencyKey: `publish:${xPostId}:1`,
          approvedContentHash: xHash,
        });
      });
  });

  test('a scheduled post can be published now', () => {
    given(scheduled)
      .when(postNow(linkedinPostId))
      .thenState((s) => {
        expect(postOf(s, linkedinPostId).status).toBe('publishing');
      });
  });

  test('a failed post with a current approval is retried with a new idempotency key; without one it is refused', () => {
    const failed = withPost(xPublishing, xPostId, { status: 'failed' });
    given(failed)
      .when(postNow(xPostId))
      .thenEvents((events) => {
        expect(events[0]).toMatchObject({
          type: 'PostPublishRequested',
          data: { idempotencyKey: `publish:${xPostId}:2` },
        });
      });
    given(withPost(xPublishing, xPostId, { status: 'failed', approvedContentHash: null }))
      .when(postNow(xPostId))
      .thenRefuses(Conflict, 'post_not_approved');
  });

  test('publishing, awaiting_platform, published and canceled posts are refused with their own codes', () => {
    given(xPublishing).when(postNow(xPostId)).thenRefuses(Conflict, 'post_publishing');
    given(withPost(approved, xPostId, { status: 'awaiting_platform' }))
      .when(postNow(xPostId))
      .thenRefuses(Conflict, 'post_publishing');
    given(withPost(approved, xPostId, { status: 'published' }))
      .when(postNow(xPostId))
      .thenRefuses(Conflict, 'post_already_published');
    given(history(create('drafts'), approve(), updatePost(xPostId, {}, { status: 'canceled' })))
      .when(postNow(xPostId))
      .thenRefuses(Conflict, 'post_canceled');
  });

  test('an approved post whose content no longer matches its approval is never published', () => {
    given(withPost(approved, xPostId, { contentHash: 'sha256:edited' }))
      .when(postNow(xPostId))
      .thenRefuses(Conflict, 'post_not_approved');
  });
});

describe('state table: "published X post | POST x-posts/delete | named by link or id | post deleted on X and removed here (outcome `deleted_on_x`)"', () => {
  // Deleting on X is the endpoint's job; removing the post here is DeletePost.
  test('a published post is removed from its group', () => {
    given(withPost(approved, xPostId, { status: 'published' }))
      .when(deletePost(xPostId))
      .thenState((s) => {
        expect(s.posts.map((p) => p.id)).toEqual([linkedinPostId]);
      });
  });
});

describe('state table: "unsent X post | POST x-posts/delete | | `canceled` (outcome `removed_from_schedule`)"', () => {
  test('a scheduled X post is canceled and leaves the schedule', () => {
    given(scheduled)
      .when(updatePost(xPostId, {}, { status: 'canceled' }))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({ status: 'canceled', approvedContentHash: null });
        expect(s.status).toBe('scheduled');
      });
  });
});

describe('DELETE post', () => {
  test('removes the post; the group follows what remains', () => {
    given(approved)
      .when(deletePost(xPostId))
      .then([{ type: 'PostDeleted', data: { ...editorAt, postId: xPostId, groupStatus: 'approved' } }]);
    given(xApprovedOnly)
      .when(deletePost(xPostId))
      .thenState((s) => {
        expect(s.status).toBe('pending_approval');
        expect(s.posts.map((p) => p.id)).toEqual([linkedinPostId]);
      });
  });

  test('a publishing or awaiting_platform post cannot be deleted', () => {
    given(xPublishing).when(deletePost(xPostId)).thenRefuses(Conflict, 'post_publishing');
    given(withPost(approved, xPostId, { status: 'awaiting_platform' }))
      .when(deletePost(xPostId))
      .thenRefuses(Conflict, 'post_publishing');
  });

  test('deleting the last post cancels the group', () => {
    given(history(create('drafts'), deletePost(xPostId)))
      .when(deletePost(linkedinPostId))
      .thenState((s, events) => {
        expect(events).toEqual([
          { type: 'PostDeleted', data: { ...editorAt, postId: linkedinPostId, groupStatus: 'canceled' } },
        ]);
        expect(s.status).toBe('canceled');
        expect(s.posts).toEqual([]);
      });
  });
});

describe('approval records over a whole review cycle', () => {
  test('submit, reject, resubmit, approve, edit, reapprove: every record on the group, each post holding its own', () => {
    const events: PostGroupEvent[] = history(
      create('drafts'),
      { ...reject({ rejectPosts: [xPostId] }), approvalId: '30000000-0000-4000-8000-000000000002' },
      {
        ...updatePost(xPostId, {}, { status: 'pending_approval' }),
        approvalId: '30000000-0000-4000-8000-000000000003',
      },
      { ...approve(), approvalId: '30000000-0000-4000-8000-000000000004' },
      {
        ...updatePost(linkedinPostId, { contentText: 'v2' }),
        approvalId: '30000000-0000-4000-8000-000000000005',
      },
    );
    given(events)
      .when({
        ...approve({ approvePosts: [linkedinPostId] }),
        approvalId: '30000000-0000-4000-8000-000000000006',
      })
      .thenState((s) => {
        expect(s.approvals.map((r) => [r.level, r.action, r.postId])).toEqual([
          ['group', 'submit_for_approval', null],
          ['post', 'rejected', xPostId],
          ['post', 'submit_for_approval', xPostId],
          ['group', 'approved', null],
          ['post', 'submit_for_approval', linkedinPostId],
          ['post', 'reapproved', linkedinPostId],
        ]);
        expect(postOf(s, xPostId).approvals.map((r) => r.action)).toEqual([
          'submit_for_approval',
          'rejected',
          'submit_for_approval',
          'approved',
        ]);
        expect(postOf(s, linkedinPostId).approvals.map((r) => r.action)).toEqual([
          'submit_for_approval',
          'approved',
          'submit_for_approval',
          'reapproved',
        ]);
        const ids = s.approvals.map((r) => r.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(s.posts.every((p) => p.status === 'approved' && p.approvedContentHash === p.contentHash)).toBe(
          true,
        );
      });
  });
});

describe('finding 5: the approval covers the media’s bytes (each file carries the library’s SHA-256)', () => {
  const bytesA = 'a'.repeat(64);
  const bytesB = 'b'.repeat(64);
  const post = { ...linkedinPost, media: image } satisfies PostContent;

  test('two contents that differ only in a media file’s sha256 hash differently', () => {
    const withImage = (media: MediaAsset) => contentHash({ ...post, media });
    expect(withImage({ ...image, sha256: bytesA })).not.toBe(withImage({ ...image, sha256: bytesB }));
    expect(withImage({ ...image, sha256: bytesA })).not.toBe(withImage(image));
    const { kind: _kind, ...item } = image;
    expect(withImage({ kind: 'images', images: [item, { ...item, sha256: bytesA }] })).not.toBe(
      withImage({ kind: 'images', images: [item, { ...item, sha256: bytesB }] }),
    );
    expect(withImage({ ...video, sha256: bytesA })).not.toBe(withImage({ ...video, sha256: bytesB }));
  });

  test('content without a sha256 (stored before) hashes exactly as it always did', () => {
    // Computed by the code before media carried hashes: approvals recorded then stay current.
    expect(contentHash({ ...post, contentText: 'Launch day', media: image })).toBe(
      'sha256:d4b1b75bd4e3321022800dc3ca1a6e6487a02f5a8920af898fcb43cde37d62cb',
    );
    expect(contentHash({ ...post, media: { ...image, sha256: undefined } })).toBe(contentHash(post));
  });

  test('the library’s hash replaces whatever the media carried, and none is kept where it has none', () => {
    const { kind: _kind, ...item } = image;
    const library = (assetId: string) => (assetId === image.assetId ? bytesA : undefined);
    expect(withAssetHashes({ ...image, sha256: bytesB }, library)).toEqual({ ...image, sha256: bytesA });
    expect(withAssetHashes({ ...video, sha256: bytesB }, library)).toEqual(video);
    expect(
      withAssetHashes({ kind: 'images', images: [item, { ...item, assetId: video.assetId }] }, library),
    ).toEqual({
      kind: 'images',
      images: [
        { ...item, sha256: bytesA },
        { ...item, assetId: video.assetId },
      ],
    });
  });

  test('media naming other bytes is an edit: the scheduled post goes back to review', () => {
    const ids = [xPostId, linkedinPostId];
    const hashed = { ...linkedinPost, media: { ...image, sha256: bytesA } };
    const scheduledWithMedia = history(
      create('drafts', [xPost, hashed]),
      approve({ schedule: slots(ids, tomorrow) }),
    );
    given(scheduledWithMedia)
      .when(updatePost(linkedinPostId, { media: { ...image, sha256: bytesB } }))
      .thenState((s) => {
        expect(postOf(s, linkedinPostId)).toMatchObject({
          status: 'pending_approval',
          approvedContentHash: null,
          contentHash: hashOf(hashed, { media: { ...image, sha256: bytesB } }),
        });
      });
    given(scheduledWithMedia)
      .when(updatePost(linkedinPostId, { media: { ...image, sha256: bytesA } }))
      .thenState((s) => expect(postOf(s, linkedinPostId).status).toBe('scheduled'));
  });
});

describe('moves decided whole by the aggregate (issue 25: rules that lived in the command handler)', () => {
  const scheduledGroup = history(create('drafts'), approve({ schedule: slots(both, tomorrow) }));

  test('PATCH group to approved: approves what waits for review, without a time', () => {
    given(history(create('drafts')))
      .when(updateGroup({}, 'approved'))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual(['PostGroupApproved']);
        expect(s.status).toBe('approved');
        expect(s.posts.map((p) => [p.status, p.scheduledForUtc])).toEqual([
          ['approved', null],
          ['approved', null],
        ]);
        // The approval's id derives from the edit's: a retry with the same key records the same approval.
        const approved = events[0] as Extract<PostGroupEvent, { type: 'PostGroupApproved' }>;
        expect(approved.data.records[0]!.approvalId).toBe(deterministicUuid(approvalId, 'approve'));
      });
  });

  test('PATCH group to approved: a scheduled group is taken back to approved, its posts unscheduled', () => {
    given(scheduledGroup)
      .when(updateGroup({}, 'approved'))
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).not.toContain('PostGroupApproved');
        expect(s.status).toBe('approved');
        expect(s.posts.map((p) => p.status)).toEqual(['approved', 'approved']);
      });
  });

  test('PATCH group to approved with an edit of what it says: re-approved after the withdrawal, in one decision', () => {
    given(scheduledGroup)
      .when(updateGroup({ title: 'A new title' }, 'approved'))
      .thenState((s, events) => {
        expect(events[0]!.type).toBe('PostGroupUpdated');
        expect(events.map((e) => e.type)).toContain('PostGroupApproved');
        expect(s.title).toBe('A new title');
        expect(s.status).toBe('approved');
      });
  });

  test('POST approve with a time not in the future is refused, even when nothing is left to approve', () => {
    given(history(create('drafts'), approve()))
      .when(approve({ requestedTime: past, schedule: {} }))
      .thenRefuses(ValidationError, undefined, ['scheduledForUtc']);
    given(history(create('drafts')))
      .when(approve({ requestedTime: now, schedule: slots(both, now) }))
      .thenRefuses(ValidationError, undefined, ['scheduledForUtc']);
    given(history(create('drafts')))
      .when(approve({ requestedTime: tomorrow, schedule: slots(both, tomorrow) }))
      .thenTypes(['PostGroupApproved', 'PostsScheduled']);
  });
});
