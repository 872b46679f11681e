// PATCH ORG/marketing/posts/{postId} through the whole service: omitted keys stay, content edits of approved or
// scheduled posts withdraw their approval, X settings set and removed one by one, content rules, times, status
// values, roles, posts being published, refused requests (no event appended) and Idempotency-Key.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import { recordMediaFixtures } from '../../support/media.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  client,
  hoursAgo,
  inMinutes,
  type Client,
  type ErrorBody,
  type NewPost,
  type PostBody,
  type Refused,
  refusedBy,
  postIdChecks,
  connectAccount,
  startHeldService,
} from './posts-helpers.js';
import { connectPremiumXAccount } from './support.js';
import { waitUntil } from '../../support/wait.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: Client;
let otherApi: Client;
let refused: Refused;
/** Sandbox accounts: two X accounts and a LinkedIn account of this workspace, an X account of the other. */
const accounts = {} as Record<'x' | 'x2' | 'linkedin' | 'theirX', string>;

beforeAll(async () => {
  service = await startTestService();
  [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service, 'Other')]);
  api = client(service, ws);
  otherApi = client(service, other);
  refused = refusedBy(service, api);
  accounts.x = await connectAccount(service, ws, 'x', 'update_x_one');
  accounts.x2 = await connectAccount(service, ws, 'x', 'update_x_two');
  accounts.linkedin = await connectAccount(service, ws, 'linkedin');
  accounts.theirX = await connectAccount(service, other, 'x', 'update_x_one');
  await recordMediaFixtures(service, ws.orgId, image as MediaAsset, otherImage as MediaAsset);
});
afterAll(async () => service.stop());

const image = {
  kind: 'image',
  assetId: '00000000-0000-4000-8000-000000000001',
  url: 'https://cdn.example.org/a.png',
  contentType: 'image/png',
  sizeBytes: 1234,
  width: 1200,
  height: 675,
};
const otherImage = {
  ...image,
  assetId: '00000000-0000-4000-8000-000000000002',
  url: 'https://cdn.example.org/b.png',
};
const quote = 'https://x.com/someone/status/1234567890';
const community = 'https://x.com/i/communities/1234567890';
const poll = { options: ['Yes', 'No'], durationMinutes: 60 };

type State = 'draft' | 'pending_approval' | 'approved' | 'scheduled';

/** A new group whose first post is in `state`; the other posts share it. */
async function fresh(
  state: State,
  posts: NewPost[] = [{ platform: 'x', contentText: 'The scheduler ships today.' }],
): Promise<{ post: PostBody; posts: PostBody[]; groupId: string }> {
  const created =
    state === 'pending_approval' ? await api.createDraft(posts as never) : await api.createGroup(posts);
  const groupId = created.group.id;
  if (state === 'approved') await api.approve(groupId);
  if (state === 'scheduled') await api.approve(groupId, { scheduledForUtc: inMinutes(24 * 60) });
  const now = await api.refresh(groupId, created.posts);
  expect(now[0]!.status).toBe(state);
  return { post: now[0]!, posts: now, groupId };
}

const paths = (body: ErrorBody) => body.details?.map((d) => d.path);

describe('omitted keys stay unchanged', () => {
  test('changing socialAccountId changes nothing else', async () => {
    const { post } = await fresh('draft', [
      {
        platform: 'x',
        contentText: 'With settings',
        media: image,
        platformPayload: { replySettings: 'following', thread: ['Second part'] },
      },
    ]);
    const account = accounts.x;
    const after = await api.patched(post.id, { socialAccountId: account }, ws.tokens.editor);
    expect(after).toEqual({ ...post, socialAccountId: account, updatedAt: expect.any(String) });
    expect(await api.find(post.id)).toEqual(after);
  });

  test('an empty body, or values the post already has, change nothing and append nothing', async () => {
    const { post } = await fresh('scheduled', [
      { platform: 'x', contentText: 'Same as ever', platformPayload: { replySettings: 'verified' } },
    ]);
    const before = await eventCount(service);
    for (const body of [
      {},
      { contentText: 'Same as ever' },
      { platformPayload: { replySettings: 'verified' } },
      { replySettings: 'verified' },
      { quoteTweetUrl: null, poll: null },
      { scheduledForUtc: post.scheduledForUtc },
    ]) {
      expect(await api.patched(post.id, body)).toEqual(post);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('editing the content of a draft or a pending post keeps its status', async () => {
    for (const state of ['draft', 'pending_approval'] as const) {
      const { post } = await fresh(state);
      const after = await api.patched(post.id, { contentText: 'Edited before review' }, ws.tokens.editor);
      expect(after).toMatchObject({ status: state, contentText: 'Edited before review' });
      expect(after.approvals).toEqual(post.approvals);
    }
  });
});

describe('editing contentText, media or platformPayload of an approved or scheduled post invalidates its approval', () => {
  const edits: Array<{
    state: State;
    name: string;
    body: Record<string, unknown>;
    check: (p: PostBody) => void;
  }> = [
    {
      state: 'approved',
      name: 'contentText',
      body: { contentText: 'Reworded' },
      check: (p) => expect(p.contentText).toBe('Reworded'),
    },
    {
      state: 'scheduled',
      name: 'contentText',
      body: { contentText: 'Reworded' },
      check: (p) => expect(p.contentText).toBe('Reworded'),
    },
    {
      state: 'approved',
      name: 'media',
      body: { media: otherImage },
      check: (p) => expect(p.media).toEqual(otherImage),
    },
    {
      state: 'scheduled',
      name: 'media',
      body: { media: image },
      check: (p) => expect(p.media).toEqual(image),
    },
    {
      state: 'scheduled',
      name: 'platformPayload',
      body: { platformPayload: { replySettings: 'mentionedUsers' } },
      check: (p) => expect(p.platformPayload).toEqual({ replySettings: 'mentionedUsers' }),
    },
    {
      state: 'approved',
      name: 'quoteTweetUrl (kept in platformPayload)',
      body: { quoteTweetUrl: quote },
      check: (p) => expect(p.platformPayload).toEqual({ quoteTweetUrl: quote }),
    },
    {
      state: 'scheduled',
      name: 'poll (kept in platformPayload)',
      body: { poll },
      check: (p) => expect(p.platformPayload).toEqual({ poll }),
    },
  ];

  for (const edit of edits) {
    test(`${edit.name} of ${edit.state === 'approved' ? 'an' : 'a'} ${edit.state} post`, async () => {
      const { post, groupId } = await fresh(edit.state);
      const after = await api.patched(post.id, edit.body, ws.tokens.editor);
      edit.check(after);
      expect(after.status).toBe('pending_approval');
      // A post-level submit_for_approval record by the editor is added to the post and its group.
      const record = after.approvals.at(-1)!;
      expect(record).toEqual({
        id: expect.any(String),
        level: 'post',
        groupId,
        postId: post.id,
        approvedByUserId: ws.userIds.editor,
        approvedAt: after.updatedAt,
        action: 'submit_for_approval',
      });
      expect(after.approvals.slice(0, -1)).toEqual(post.approvals);
      const group = await api.getGroup(groupId);
      expect(group.group.approvals.at(-1)).toEqual(record);
      expect(group.group.status).toBe('pending_approval');
      expect(await api.find(post.id)).toEqual(after);
      // The withdrawn approval no longer lets it be published.
      await refused(() => api.postNow(post.id), 409, post.id);
    });
  }

  test('only the edited post loses its approval; the group follows its posts', async () => {
    const { post, posts, groupId } = await fresh('scheduled', [
      { platform: 'x', contentText: 'On X' },
      { platform: 'linkedin', contentText: 'On LinkedIn' },
    ]);
    const after = await api.patched(post.id, { contentText: 'Only X changes' }, ws.tokens.editor);
    expect(after.status).toBe('pending_approval');
    const group = await api.getGroup(groupId);
    expect(group.posts.find((p) => p.id === posts[1]!.id)).toEqual(posts[1]);
    expect(group.group.status).toBe('scheduled');
  });

  test('changing socialAccountId (not content) keeps the approval', async () => {
    const { post } = await fresh('approved');
    const after = await api.patched(post.id, { socialAccountId: accounts.x2 });
    expect(after.socialAccountId).toBe(accounts.x2);
    expect(after.status).toBe('approved');
    expect(after.approvals).toEqual(post.approvals);
  });
});

describe('X settings: set one by one, removed with null, kept in platformPayload', () => {
  test('quoteTweetUrl, communityUrl, replySettings and poll', async () => {
    const { post } = await fresh('draft', [
      { platform: 'x', contentText: 'A thread', platformPayload: { thread: ['Second part'] } },
    ]);
    const thread = ['Second part'];
    let after = await api.patched(post.id, { quoteTweetUrl: quote });
    expect(after.platformPayload).toEqual({ thread, quoteTweetUrl: quote });
    after = await api.patched(post.id, { communityUrl: community, replySettings: 'following' });
    expect(after.platformPayload).toEqual({
      thread,
      quoteTweetUrl: quote,
      communityUrl: community,
      replySettings: 'following',
    });
    // A poll and a quote post do not go together on X.
    const clash = await refused(() => api.patch(post.id, { poll }), 400, post.id);
    expect(paths(clash)).toEqual(['body.poll']);
    after = await api.patched(post.id, { quoteTweetUrl: null, poll });
    expect(after.platformPayload).toEqual({
      thread,
      communityUrl: community,
      replySettings: 'following',
      poll,
    });
    after = await api.patched(post.id, { communityUrl: null, replySettings: null, poll: null });
    expect(after.platformPayload).toEqual({ thread });
    expect(await api.find(post.id)).toEqual(after);
    expect(after).toMatchObject({ contentText: 'A thread', status: 'draft' });
  });

  test('removing the last setting leaves platformPayload null; null for an unset key changes nothing', async () => {
    const { post } = await fresh('draft', [
      { platform: 'x', contentText: 'Replies limited', platformPayload: { replySettings: 'following' } },
    ]);
    const after = await api.patched(post.id, { replySettings: null });
    expect(after.platformPayload).toBeNull();
    const before = await eventCount(service);
    expect(await api.patched(post.id, { communityUrl: null })).toEqual(after);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('refused bodies: 400 naming the field, nothing appended', () => {
  let xPost: PostBody;
  let linkedinPost: PostBody;
  let approvedPost: PostBody;
  beforeAll(async () => {
    const drafts = await fresh('draft', [
      { platform: 'x', contentText: 'Short' },
      { platform: 'linkedin', contentText: 'Longer' },
    ]);
    [xPost, linkedinPost] = drafts.posts as [PostBody, PostBody];
    approvedPost = (await fresh('approved')).post;
  });

  const cases: Array<[name: string, target: () => PostBody, body: unknown, paths: string[]]> = [
    ['281 characters on X', () => xPost, { contentText: 'a'.repeat(281) }, ['body.contentText']],
    [
      '281 characters on an approved X post',
      () => approvedPost,
      { contentText: 'b'.repeat(281) },
      ['body.contentText'],
    ],
    [
      'a poll with one option',
      () => xPost,
      { poll: { options: ['Only'], durationMinutes: 60 } },
      ['body.poll.options'],
    ],
    [
      'a poll with five options',
      () => xPost,
      { poll: { options: ['a', 'b', 'c', 'd', 'e'], durationMinutes: 60 } },
      ['body.poll.options'],
    ],
    [
      'a poll option of 26 characters',
      () => xPost,
      { poll: { options: ['Yes', 'n'.repeat(26)], durationMinutes: 60 } },
      ['body.poll.options.1'],
    ],
    [
      'a poll of 4 minutes',
      () => xPost,
      { poll: { options: ['Yes', 'No'], durationMinutes: 4 } },
      ['body.poll.durationMinutes'],
    ],
    [
      'a poll of more than 7 days',
      () => xPost,
      { poll: { options: ['Yes', 'No'], durationMinutes: 10_081 } },
      ['body.poll.durationMinutes'],
    ],
    ['a poll beside media', () => xPost, { poll, media: image }, ['body.poll']],
    ['a poll on LinkedIn', () => linkedinPost, { poll }, ['body.poll']],
    [
      'a poll inside platformPayload',
      () => xPost,
      { platformPayload: { poll: { options: ['a'], durationMinutes: 60 } } },
      ['body.platformPayload.poll.options'],
    ],
    [
      'a quoteTweetUrl that is no X post',
      () => xPost,
      { quoteTweetUrl: 'https://example.org/post/1' },
      ['body.quoteTweetUrl'],
    ],
    [
      'a communityUrl that is no X community',
      () => xPost,
      { communityUrl: 'https://x.com/someone' },
      ['body.communityUrl'],
    ],
    ['replySettings on LinkedIn', () => linkedinPost, { replySettings: 'following' }, ['body.replySettings']],
    [
      'a PDF document on X',
      () => xPost,
      {
        media: {
          kind: 'document',
          assetId: image.assetId,
          url: image.url,
          contentType: 'application/pdf',
          sizeBytes: 10,
          title: 'Deck',
        },
      },
      ['body.media'],
    ],
    ['contentText not a string', () => xPost, { contentText: 42 }, ['body.contentText']],
    [
      'replySettings not a value of the spec',
      () => xPost,
      { replySettings: 'nobody' },
      ['body.replySettings'],
    ],
    [
      'poll options not an array',
      () => xPost,
      { poll: { options: 'Yes,No', durationMinutes: 60 } },
      ['body.poll.options'],
    ],
    ['a status not of the post enum', () => xPost, { status: 'bogus' }, ['body.status']],
    ['socialAccountId not a uuid', () => xPost, { socialAccountId: 'acct-1' }, ['body.socialAccountId']],
    ['socialAccountId null', () => xPost, { socialAccountId: null }, ['body.socialAccountId']],
    [
      'scheduledForUtc not a timestamp',
      () => xPost,
      { scheduledForUtc: 'tomorrow 9am' },
      ['body.scheduledForUtc'],
    ],
    [
      'scheduledForUtc in the past (draft post)',
      () => xPost,
      { scheduledForUtc: hoursAgo(1) },
      ['body.scheduledForUtc'],
    ],
    [
      'scheduledForUtc in the past (approved post)',
      () => approvedPost,
      { scheduledForUtc: hoursAgo(1) },
      ['body.scheduledForUtc'],
    ],
    ['an unknown field', () => xPost, { title: 'Not a post field' }, ['body.title']],
    [
      'a media kind not of the spec',
      () => xPost,
      { media: { kind: 'gif', url: image.url } },
      ['body.media.kind'],
    ],
  ];

  for (const [name, target, body, expected] of cases) {
    test(name, async () => {
      const post = target();
      const error = await refused(() => api.patch(post.id, body), 400, post.id);
      expect(paths(error)?.sort()).toEqual([...expected].sort());
    });
  }

  test('malformed JSON', async () => {
    await refused(() => api.patch(xPost.id, '{"contentText": '), 400, xPost.id);
  });

  test('280 characters on X are accepted', async () => {
    const after = await api.patched(xPost.id, { contentText: 'c'.repeat(280) });
    expect(after.contentText).toHaveLength(280);
  });
});

describe('socialAccountId names an account of the workspace and of the post’s platform', () => {
  let xPost: PostBody;
  let linkedinPost: PostBody;
  let approvedPost: PostBody;
  beforeAll(async () => {
    const drafts = await fresh('draft', [
      { platform: 'x', contentText: 'Short' },
      { platform: 'linkedin', contentText: 'Longer' },
    ]);
    [xPost, linkedinPost] = drafts.posts as [PostBody, PostBody];
    approvedPost = (await fresh('approved')).post;
  });
  const unknown = { path: 'body.socialAccountId', message: 'No such social account in this workspace' };

  test('an id that is no account: 400, nothing appended, the approval kept', async () => {
    for (const post of [xPost, approvedPost]) {
      const error = await refused(() => api.patch(post.id, { socialAccountId: randomUUID() }), 400, post.id);
      expect(error.details).toEqual([unknown]);
    }
  });

  test('an account of another workspace: 400', async () => {
    const error = await refused(
      () => api.patch(xPost.id, { socialAccountId: accounts.theirX }),
      400,
      xPost.id,
    );
    expect(error.details).toEqual([unknown]);
  });

  test('an account of another platform: 400 naming both platforms', async () => {
    const onX = await refused(
      () => api.patch(xPost.id, { socialAccountId: accounts.linkedin }),
      400,
      xPost.id,
    );
    expect(onX.details).toEqual([
      { path: 'body.socialAccountId', message: expect.stringMatching(/linkedin account .* x post/) },
    ]);
    const onLinkedin = await refused(
      () => api.patch(linkedinPost.id, { socialAccountId: accounts.x }),
      400,
      linkedinPost.id,
    );
    expect(onLinkedin.details).toEqual([
      { path: 'body.socialAccountId', message: expect.stringMatching(/x account .* linkedin post/) },
    ]);
  });

  test('a deleted account: 400', async () => {
    const doomed = await connectAccount(service, ws, 'x', 'update_x_doomed');
    expect((await api.patched(xPost.id, { socialAccountId: doomed })).socialAccountId).toBe(doomed);
    const deleted = await service.request('DELETE', `${ws.base}/accounts/${doomed}`, {
      token: ws.tokens.owner,
    });
    expect(deleted.status, await deleted.text()).toBe(200);
    // The account-removal process takes the account off the post; then naming it again is refused.
    await waitUntil(async () => (await api.find(xPost.id))?.socialAccountId === null, {
      what: 'the deleted account to leave the post',
    });
    const error = await refused(() => api.patch(xPost.id, { socialAccountId: doomed }), 400, xPost.id);
    expect(error.details).toEqual([unknown]);
  });
});

describe('an X account with X Premium allows 25,000 characters (xPremiumTextLimit)', () => {
  let premium: string;
  beforeAll(async () => {
    premium = await connectPremiumXAccount(service, ws);
  });
  const long = 'p'.repeat(25_000);

  test('on a post of that account: 25,000 accepted, 25,001 refused', async () => {
    const { post } = await fresh('draft', [
      { platform: 'x', contentText: 'Short', socialAccountId: premium },
    ]);
    expect((await api.patched(post.id, { contentText: long })).contentText).toHaveLength(25_000);
    const error = await refused(() => api.patch(post.id, { contentText: `${long}p` }), 400, post.id);
    expect(paths(error)).toEqual(['body.contentText']);
  });

  test('moving a long post to an account without Premium is refused; moving it and shortening it at once is not', async () => {
    const { post } = await fresh('draft', [{ platform: 'x', contentText: long, socialAccountId: premium }]);
    const error = await refused(() => api.patch(post.id, { socialAccountId: accounts.x }), 400, post.id);
    expect(paths(error)).toEqual(['body.contentText']);
    const after = await api.patched(post.id, { socialAccountId: accounts.x, contentText: 'Short again' });
    expect(after).toMatchObject({ socialAccountId: accounts.x, contentText: 'Short again' });
  });

  test('a post of another X account, or of none, keeps the 280 (the limit is the account’s, not the workspace’s)', async () => {
    const { posts } = await fresh('draft', [
      { platform: 'x', contentText: 'On the plain account', socialAccountId: accounts.x },
      { platform: 'x', contentText: 'On no account' },
    ]);
    for (const post of posts) {
      const error = await refused(() => api.patch(post.id, { contentText: 'q'.repeat(281) }), 400, post.id);
      expect(paths(error)).toEqual(['body.contentText']);
    }
    // Moved to the Premium account, the same post takes the longer text.
    const moved = await api.patched(posts[1]!.id, { socialAccountId: premium, contentText: 'q'.repeat(281) });
    expect(moved.contentText).toHaveLength(281);
  });
});

describe('scheduledForUtc', () => {
  test('on an approved post schedules it at that time (reviewer), and the calendar shows it', async () => {
    const { post, groupId } = await fresh('approved');
    const at = inMinutes(3 * 24 * 60);
    const after = await api.patched(post.id, { scheduledForUtc: at }, ws.tokens.reviewer);
    expect(after).toMatchObject({
      status: 'scheduled',
      scheduledForUtc: at,
      scheduleReason: expect.any(String),
    });
    expect(after.approvals).toEqual(post.approvals);
    expect((await api.getGroup(groupId)).group.status).toBe('scheduled');
    const calendar = await api.eventsListed(`filter[scheduledFrom]=${at}&filter[scheduledTo]=${at}`);
    expect(calendar.map((p) => p.id)).toEqual([post.id]);
  });

  test('on a scheduled post moves it; a time with an offset is kept in UTC', async () => {
    const { post } = await fresh('scheduled');
    const at = new Date(Date.parse(inMinutes(5 * 24 * 60)));
    const withOffset = new Date(at.getTime() + 3_600_000).toISOString().replace('.000Z', '+01:00');
    const after = await api.patched(post.id, { scheduledForUtc: withOffset });
    expect(after).toMatchObject({ status: 'scheduled', scheduledForUtc: at.toISOString() });
  });

  test('on a draft post plans a time and leaves it a draft (editor)', async () => {
    const { post } = await fresh('draft');
    const at = inMinutes(2 * 24 * 60);
    const after = await api.patched(post.id, { scheduledForUtc: at }, ws.tokens.editor);
    expect(after).toMatchObject({ status: 'draft', scheduledForUtc: at });
  });

  // Scheduling is judged on the outcome: the edit withdraws the approval first, so only a planned time is kept.
  test('an editor may edit an approved post and give it a planned time in one PATCH', async () => {
    const { post } = await fresh('approved');
    const at = inMinutes(600);
    const body = { contentText: 'Edited, with a time', scheduledForUtc: at };
    const after = await api.patched(post.id, body, ws.tokens.editor);
    expect(after).toMatchObject({ ...body, status: 'pending_approval' });
  });

  test('an editor may not schedule an approved post (403, nothing appended)', async () => {
    const { post } = await fresh('approved');
    await refused(
      () => api.patch(post.id, { scheduledForUtc: inMinutes(600) }, ws.tokens.editor),
      403,
      post.id,
    );
    // Resending the unchanged text does not turn the move into an edit.
    await refused(
      () =>
        api.patch(
          post.id,
          { contentText: post.contentText, scheduledForUtc: inMinutes(600) },
          ws.tokens.editor,
        ),
      403,
      post.id,
    );
  });
});

describe('status', () => {
  test('canceled: the post is canceled; a group with no other post is canceled too', async () => {
    const { post, groupId } = await fresh('scheduled');
    const after = await api.patched(post.id, { status: 'canceled' }, ws.tokens.editor);
    expect(after.status).toBe('canceled');
    expect((await api.getGroup(groupId)).group.status).toBe('canceled');
    expect(await api.find(post.id)).toEqual(after);
  });

  test('draft: a pending post goes back to draft', async () => {
    const { post } = await fresh('pending_approval');
    expect((await api.patched(post.id, { status: 'draft' }, ws.tokens.editor)).status).toBe('draft');
  });

  test('pending_approval: a draft is submitted, with a post-level submit_for_approval record', async () => {
    const { post, groupId } = await fresh('draft');
    const after = await api.patched(post.id, { status: 'pending_approval' }, ws.tokens.editor);
    expect(after.status).toBe('pending_approval');
    expect(after.approvals.at(-1)).toMatchObject({
      level: 'post',
      postId: post.id,
      action: 'submit_for_approval',
      approvedByUserId: ws.userIds.editor,
    });
    expect((await api.getGroup(groupId)).group.status).toBe('pending_approval');
  });

  test('approved: a reviewer approves a pending post', async () => {
    const { post } = await fresh('pending_approval');
    const after = await api.patched(post.id, { status: 'approved' }, ws.tokens.reviewer);
    expect(after.status).toBe('approved');
    expect(after.approvals.at(-1)).toMatchObject({ postId: post.id, action: 'approved' });
  });

  for (const status of ['publishing', 'published', 'awaiting_platform', 'failed']) {
    test(`${status} is set by publishing, not by PATCH: 409`, async () => {
      const { post } = await fresh('approved');
      await refused(() => api.patch(post.id, { status }), 409, post.id);
    });
  }
});

describe('roles', () => {
  let draft: PostBody;
  let pending: PostBody;
  let approved: PostBody;
  beforeAll(async () => {
    draft = (await fresh('draft')).post;
    pending = (await fresh('pending_approval')).post;
    approved = (await fresh('approved')).post;
  });

  const cases: Array<
    [name: string, target: () => PostBody, role: 'viewer' | 'reviewer' | 'editor', body: unknown]
  > = [
    ['a viewer editing content', () => draft, 'viewer', { contentText: 'Viewer edit' }],
    ['a viewer changing the status', () => draft, 'viewer', { status: 'canceled' }],
    ['a viewer sending an empty body', () => draft, 'viewer', {}],
    // The role is checked before the body is read: no 400 telling a viewer what a valid edit looks like.
    ['a viewer sending an invalid body', () => draft, 'viewer', { contentText: 42, unknownField: true }],
    ['a reviewer editing contentText', () => approved, 'reviewer', { contentText: 'Reviewer edit' }],
    ['a reviewer editing media', () => approved, 'reviewer', { media: image }],
    ['a reviewer setting quoteTweetUrl', () => approved, 'reviewer', { quoteTweetUrl: quote }],
    ['a reviewer removing a poll', () => approved, 'reviewer', { poll: null }],
    ['a reviewer canceling', () => approved, 'reviewer', { status: 'canceled' }],
    ['an editor setting status approved', () => pending, 'editor', { status: 'approved' }],
    ['an editor setting status scheduled', () => approved, 'editor', { status: 'scheduled' }],
  ];
  for (const [name, target, role, body] of cases) {
    test(`403: ${name}`, async () => {
      const post = target();
      await refused(() => api.patch(post.id, body, ws.tokens[role]), 403, post.id);
    });
  }

  test('an admin may do what an owner may', async () => {
    const after = await api.patched(draft.id, { contentText: 'By the admin' }, ws.tokens.admin);
    expect(after.contentText).toBe('By the admin');
  });
});

describe('a post being published', () => {
  // This file's service publishes at once; in this one nothing picks the request up, so the post stays
  // `publishing`.
  let held: TestService;
  let heldApi: Client;
  let heldRefused: Refused;
  let heldAccount: string;
  let post: PostBody;
  beforeAll(async () => {
    held = await startHeldService();
    const heldWs = await createTestWorkspace(held);
    heldApi = client(held, heldWs);
    heldRefused = refusedBy(held, heldApi);
    heldAccount = await connectAccount(held, heldWs, 'x');
    await recordMediaFixtures(held, heldWs.orgId, image as MediaAsset);
    const created = await heldApi.createGroup([{ platform: 'x', contentText: 'The scheduler ships today.' }]);
    await heldApi.approve(created.group.id);
    post = await heldApi.json<PostBody>(await heldApi.postNow(created.posts[0]!.id));
    expect(post.status).toBe('publishing');
  });
  afterAll(async () => held?.stop());

  const bodies: Array<[string, () => unknown]> = [
    ['contentText', () => ({ contentText: 'Too late' })],
    ['media', () => ({ media: image })],
    ['quoteTweetUrl', () => ({ quoteTweetUrl: quote })],
    // An account of the workspace and platform: an unknown one would be a 400 before the post is looked at.
    ['socialAccountId', () => ({ socialAccountId: heldAccount })],
    ['scheduledForUtc', () => ({ scheduledForUtc: inMinutes(600) })],
    ['status canceled', () => ({ status: 'canceled' })],
    ['status draft', () => ({ status: 'draft' })],
    ['status published', () => ({ status: 'published' })],
  ];
  for (const [name, body] of bodies) {
    test(`cannot be edited (${name}): 409`, async () => {
      await heldRefused(() => heldApi.patch(post.id, body()), 409, post.id);
    });
  }
});

describe('refused requests: 404, 403, 401, 400 for the post id, nothing appended', () => {
  let post: PostBody;
  let theirs: PostBody;
  beforeAll(async () => {
    post = (await fresh('draft')).post;
    theirs = (await otherApi.createGroup([{ platform: 'x', contentText: 'Theirs' }])).posts[0]!;
  });

  postIdChecks(
    () => ({ service, api, otherApi, other, refused, post, theirs }),
    (client, postId, token) => client.patch(postId, { contentText: 'Intruder' }, token),
    { method: 'PATCH', body: { contentText: 'Anyone' } },
  );
});

describe('Idempotency-Key', () => {
  test('a replay answers the first response and appends nothing; another body with the key is refused', async () => {
    const { post } = await fresh('approved');
    const patch = (body: unknown) =>
      api.patch(post.id, body, ws.tokens.owner, { 'idempotency-key': 'edit-1' });
    const first = await patch({ contentText: 'Once' });
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(JSON.parse(firstText)).toMatchObject({
      data: { status: 'pending_approval', contentText: 'Once' },
    });

    const before = await eventCount(service);
    const again = await patch({ contentText: 'Once' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(await eventCount(service)).toBe(before);

    const reused = await refused(() => patch({ contentText: 'Twice' }), 422, post.id);
    expect(reused.code).toBe('idempotency_key_reused');
  });
});
