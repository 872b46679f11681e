// Property tests for the post-group aggregate: random sequences of commands (create, group and post edits,
// approve, reject, schedule, post-now, delete) and simulated publishing outcomes are applied to the folded
// state. Refused commands (AppError) change nothing; any other throw fails. After every step the approval
// invariants must hold, and a small model predicts the outcome of the commands whose rules are simplest.
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { AppError } from '../../domain/shared/errors.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { checkPostContent } from '../../domain/post-groups/content-rules.js';
import {
  contentHash,
  platforms,
  type MediaAsset,
  type Platform,
  type PlatformPayload,
} from '../../domain/post-groups/post-content.js';
import {
  groupStatuses,
  isApprovalCurrent,
  postGroupDecider,
  postStatuses,
  rejectReasons,
  type ActivePostGroup,
  type PayloadPatch,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
  type PostState,
  type PostStatus,
  type RejectReason,
  type SlotAssignment,
} from '../../domain/post-groups/post-group.js';
import {
  editor,
  groupId,
  image,
  noStrategy,
  orgId,
  reviewer,
  video,
} from '../support/post-group-fixtures.js';

const postIds = [
  '20000000-0000-4000-8000-000000000001',
  '20000000-0000-4000-8000-000000000002',
  '20000000-0000-4000-8000-000000000003',
];
const accounts = ['40000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000002'];
const start = Date.parse('2026-11-22T10:00:00.000Z');
const minute = 60_000;
const hour = 60 * minute;
/** Each step happens a minute after the previous one. */
const nowAt = (step: number) => new Date(start + step * minute).toISOString();
/** A time `hours` after the step's now (negative: in the past). */
const timeAt = (step: number, hours: number) => new Date(start + step * minute + hours * hour).toISOString();

const approvalActions = ['submit_for_approval', 'approved', 'reapproved', 'rejected'];
const approvalLevels = ['group', 'post'];

const image2: MediaAsset = {
  ...image,
  assetId: '50000000-0000-4000-8000-000000000003',
  url: 'https://cdn.example.com/b.png',
};
const video2: MediaAsset = {
  ...video,
  assetId: '50000000-0000-4000-8000-000000000004',
  url: 'https://cdn.example.com/w.mp4',
};

// ------------------------------------------------------------------------------------------- steps

type Edit = 'none' | 'text' | 'media' | 'payloadPatch' | 'platformPayload' | 'account';

type Step =
  | {
      kind: 'create';
      origin: 'post_groups' | 'drafts';
      posts: Array<{ platform: Platform; text: string; extra: boolean }>;
      title: string;
      scheduledInHours: number | null;
    }
  | {
      kind: 'updateGroup';
      title?: string;
      topic?: string | null;
      objective?: string | null;
      timezone?: string;
      status?: 'draft' | 'pending_approval' | 'canceled';
    }
  | {
      kind: 'updatePost';
      post: number;
      edit: Edit;
      text: string;
      choice: number;
      timeInHours?: number;
      status?: PostStatus;
      slotInHours?: number;
    }
  | { kind: 'approve'; subset?: number[]; scheduleInHours?: number; timezone?: string }
  | { kind: 'reject'; subset?: number[]; reason?: RejectReason; note?: string }
  | { kind: 'schedule'; subset?: number[]; inHours: number }
  | { kind: 'postNow'; post: number }
  | { kind: 'delete'; post: number }
  /** Not a command: what the publisher would do to a post it was asked to publish. */
  | { kind: 'outcome'; post: number; result: 'published' | 'failed' | 'awaiting_platform' };

const validTextArb = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.!]{0,40}$/);
const validTitleArb = fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,30}$/);
const textArb = fc.oneof(
  { weight: 9, arbitrary: validTextArb },
  // Too long for X (280) and Bluesky (300), fine elsewhere.
  { weight: 1, arbitrary: fc.constant('a'.repeat(301)) },
);
const titleArb = fc.oneof(
  { weight: 9, arbitrary: validTitleArb },
  { weight: 1, arbitrary: fc.constant('   ') },
);
const hoursArb = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 1, max: 96 }) },
  { weight: 1, arbitrary: fc.constant(-1) },
);
const indexArb = fc.nat({ max: 3 });
/** Post indexes (taken modulo the group's posts); -1 names a post the group does not have. */
const subsetArb = fc.option(
  fc.uniqueArray(
    fc.oneof({ weight: 12, arbitrary: fc.nat({ max: 2 }) }, { weight: 1, arbitrary: fc.constant(-1) }),
    { minLength: 1, maxLength: 3 },
  ),
  { nil: undefined },
);
/** Status targets of PATCH post, mostly the ones a member may set. */
const statusTargetArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom<PostStatus>('draft', 'pending_approval', 'approved', 'scheduled', 'canceled'),
  },
  { weight: 1, arbitrary: fc.constantFrom(...postStatuses) },
);

const createWith = (text: fc.Arbitrary<string>, title: fc.Arbitrary<string>): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constant('create' as const),
    origin: fc.constantFrom('post_groups' as const, 'drafts' as const),
    posts: fc
      .uniqueArray(fc.constantFrom(...platforms), { minLength: 1, maxLength: 3 })
      .chain((ps) =>
        fc.tuple(
          ...ps.map((platform) => fc.record({ platform: fc.constant(platform), text, extra: fc.boolean() })),
        ),
      ),
    title,
    scheduledInHours: fc.option(hoursArb, { nil: null }),
  });
/** The first step: a group that can be created, so the rest of the run has something to work on. */
const firstCreateArb = createWith(validTextArb, validTitleArb);
const createArb = createWith(textArb, titleArb);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: createArb },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('updateGroup' as const),
        title: titleArb,
        topic: fc.option(fc.constantFrom('launch', 'hiring'), { nil: null }),
        objective: fc.option(fc.constantFrom('awareness', 'signups'), { nil: null }),
        timezone: fc.constantFrom('UTC', 'Europe/Berlin'),
        status: fc.constantFrom('draft' as const, 'pending_approval' as const, 'canceled' as const),
      },
      { requiredKeys: ['kind'] },
    ),
  },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        kind: fc.constant('updatePost' as const),
        post: indexArb,
        edit: fc.constantFrom<Edit>(
          'none',
          'text',
          'text',
          'media',
          'payloadPatch',
          'platformPayload',
          'account',
        ),
        text: textArb,
        choice: fc.nat({ max: 6 }),
        timeInHours: hoursArb,
        status: statusTargetArb,
        slotInHours: fc.integer({ min: 1, max: 96 }),
      },
      { requiredKeys: ['kind', 'post', 'edit', 'text', 'choice'] },
    ),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant('approve' as const),
        subset: subsetArb,
        scheduleInHours: hoursArb,
        timezone: fc.constantFrom('UTC', 'Asia/Tokyo'),
      },
      { requiredKeys: ['kind', 'subset'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('reject' as const),
        subset: subsetArb,
        reason: fc.constantFrom(...rejectReasons),
        note: fc.constantFrom('too long', '  '),
      },
      { requiredKeys: ['kind', 'subset'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('schedule' as const), subset: subsetArb, inHours: hoursArb }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('postNow' as const), post: indexArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), post: indexArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('outcome' as const),
      post: indexArb,
      result: fc.constantFrom('published' as const, 'failed' as const, 'awaiting_platform' as const),
    }),
  },
);

// ------------------------------------------------------------------------------- steps to commands

function contentFor(platform: Platform, text: string, extra: boolean) {
  const payload = (): PlatformPayload | null => {
    if (platform === 'reddit') return { reddit: { subreddit: 'r/typescript', title: 'Launch notes' } };
    if (platform === 'x' && extra) return { replySettings: 'following' };
    return null;
  };
  const media = (): MediaAsset | null => {
    if (platform === 'instagram') return image;
    if (platform === 'tiktok' || platform === 'youtube') return video;
    return extra && platform !== 'x' ? image : null;
  };
  return { contentText: text, media: media(), platformPayload: payload() };
}

function otherMedia(post: PostState): MediaAsset | null {
  const is = (asset: { assetId: string }) =>
    post.media !== null && post.media.kind !== 'images' && post.media.assetId === asset.assetId;
  if (post.platform === 'tiktok' || post.platform === 'youtube') return is(video) ? video2 : video;
  if (post.platform === 'instagram') return is(image) ? image2 : image;
  return post.media === null ? image : null;
}

const payloadPatches: PayloadPatch[] = [
  { replySettings: 'everyone' },
  { replySettings: null },
  { quoteTweetUrl: 'https://x.com/acme/status/1' },
  { quoteTweetUrl: null },
  { communityUrl: 'https://x.com/i/communities/2' },
  { poll: { options: ['Yes', 'No'], durationMinutes: 60 } },
  { poll: null },
];

function newPayload(post: PostState, choice: number): PlatformPayload | null {
  if (post.platform === 'reddit') return { reddit: { subreddit: 'r/node', title: `Take ${choice}` } };
  if (post.platform === 'x') return choice % 2 === 0 ? { thread: [`More ${choice}`] } : null;
  return null;
}

function postAt(state: PostGroupState, index: number): PostState | undefined {
  if (state.kind !== 'active' || state.posts.length === 0) return undefined;
  return state.posts[index % state.posts.length];
}

/** The post a step names, or an id no group has (the command is then not found). */
function postIdAt(state: PostGroupState, index: number): string {
  return postAt(state, index)?.id ?? '20000000-0000-4000-8000-0000000000ff';
}

function idsAt(state: PostGroupState, subset: number[] | undefined): string[] | undefined {
  if (subset === undefined) return undefined;
  const ids = state.kind === 'active' ? state.posts.map((p) => p.id) : [];
  const unknown = '20000000-0000-4000-8000-0000000000fe';
  return subset.map((i) => (i < 0 || ids.length === 0 ? unknown : ids[i % ids.length]!));
}

/** A time for every post of the group, so the decider never lacks one. */
function timesFor(state: PostGroupState, step: number, hours: number): Record<string, SlotAssignment> {
  const ids = state.kind === 'active' ? state.posts.map((p) => p.id) : [];
  return Object.fromEntries(
    ids.map((id, i) => [id, { scheduledForUtc: timeAt(step, hours + i), scheduleReason: 'Best slot' }]),
  );
}

function commandFor(s: Step, state: PostGroupState, step: number): PostGroupCommand | null {
  const now = nowAt(step);
  const approvalId = deterministicUuid('approval', String(step));
  switch (s.kind) {
    case 'create':
      return {
        type: 'CreatePostGroup',
        orgId,
        groupId,
        fields: {
          title: s.title,
          topic: 'launch',
          objective: null,
          timezone: 'UTC',
          scheduledFor: s.scheduledInHours === null ? null : timeAt(step, s.scheduledInHours),
          tagIds: [],
        },
        strategy: noStrategy,
        posts: s.posts.map((p, i) => ({
          postId: postIds[i]!,
          platform: p.platform,
          socialAccountId: null,
          ...contentFor(p.platform, p.text, p.extra),
        })),
        origin: s.origin,
        approvalId,
        by: editor,
        now,
      };
    case 'updateGroup': {
      const { kind: _, status, ...changes } = s;
      return {
        type: 'UpdatePostGroup',
        changes,
        ...(status !== undefined ? { status } : {}),
        approvalId,
        by: editor,
        now,
      };
    }
    case 'updatePost': {
      const post = postAt(state, s.post);
      const changes: Extract<PostGroupCommand, { type: 'UpdatePost' }>['changes'] = {};
      if (post) {
        if (s.edit === 'text') changes.contentText = s.text;
        if (s.edit === 'media') changes.media = otherMedia(post);
        if (s.edit === 'payloadPatch')
          changes.payloadPatch = payloadPatches[s.choice % payloadPatches.length]!;
        if (s.edit === 'platformPayload') changes.platformPayload = newPayload(post, s.choice);
        if (s.edit === 'account') changes.socialAccountId = accounts[s.choice % 2]!;
      }
      if (s.timeInHours !== undefined) changes.scheduledForUtc = timeAt(step, s.timeInHours);
      return {
        type: 'UpdatePost',
        postId: postIdAt(state, s.post),
        changes,
        ...(s.status !== undefined ? { status: s.status } : {}),
        ...(s.slotInHours !== undefined
          ? { schedule: { scheduledForUtc: timeAt(step, s.slotInHours), scheduleReason: 'Best slot' } }
          : {}),
        approvalId,
        by: editor,
        now,
      };
    }
    case 'approve': {
      const approvePosts = idsAt(state, s.subset);
      return {
        type: 'ApprovePostGroup',
        ...(approvePosts !== undefined ? { approvePosts } : {}),
        schedule: s.scheduleInHours === undefined ? null : timesFor(state, step, s.scheduleInHours),
        ...(s.timezone !== undefined ? { timezone: s.timezone } : {}),
        approvalId,
        by: reviewer,
        now,
      };
    }
    case 'reject': {
      const rejectPosts = idsAt(state, s.subset);
      return {
        type: 'RejectPostGroup',
        ...(rejectPosts !== undefined ? { rejectPosts } : {}),
        ...(s.reason !== undefined ? { reason: s.reason } : {}),
        ...(s.note !== undefined ? { note: s.note } : {}),
        approvalId,
        by: reviewer,
        now,
      };
    }
    case 'schedule': {
      const ids = idsAt(state, s.subset);
      return {
        type: 'SchedulePostGroup',
        ...(ids !== undefined ? { postIds: ids } : {}),
        schedule: timesFor(state, step, s.inHours),
        by: editor,
        now,
      };
    }
    case 'postNow':
      return { type: 'RequestPublishNow', postId: postIdAt(state, s.post), by: editor, now };
    case 'delete':
      return { type: 'DeletePost', postId: postIdAt(state, s.post), by: editor, now };
    case 'outcome':
      return null;
  }
}

/** What the publisher does to a post it was asked to publish (not an event of this aggregate yet). */
function applyOutcome(state: PostGroupState, s: Extract<Step, { kind: 'outcome' }>): PostGroupState {
  if (state.kind !== 'active') return state;
  const sent = state.posts.filter(
    (p) =>
      p.status === 'publishing' || (p.status === 'awaiting_platform' && s.result !== 'awaiting_platform'),
  );
  const post = sent[s.post % Math.max(sent.length, 1)];
  if (!post) return state;
  return { ...state, posts: state.posts.map((p) => (p.id === post.id ? { ...p, status: s.result } : p)) };
}

// ----------------------------------------------------------------------------------------- invariants

function recomputedHash(p: PostState): string {
  return contentHash({
    platform: p.platform,
    contentText: p.contentText,
    media: p.media,
    platformPayload: p.platformPayload,
  });
}

function fail(message: string, detail: unknown): never {
  throw new Error(`${message}: ${JSON.stringify(detail)}`);
}

/** Checked on the state an event is applied to, before it is applied. */
function checkBeforeEvent(state: PostGroupState, event: PostGroupEvent): void {
  if (event.type !== 'PostPublishRequested' || state.kind !== 'active') return;
  // (a) a post goes out only with an approval of exactly the content it has.
  const post = state.posts.find((p) => p.id === event.data.postId);
  if (!post) fail('publish requested for a post not in the group', event.data);
  const hash = recomputedHash(post);
  if (
    post.approvedContentHash !== post.contentHash ||
    post.contentHash !== hash ||
    event.data.contentHash !== hash
  )
    fail('publish requested for content that is not the approved content', { post, event: event.data, hash });
}

function checkState(state: PostGroupState, events: PostGroupEvent[]): void {
  if (state.kind !== 'active') return;
  // (c) statuses stay in the spec's enums.
  if (!groupStatuses.includes(state.status)) fail('group status outside the spec', state.status);
  for (const p of state.posts) {
    if (!postStatuses.includes(p.status)) fail('post status outside the spec', p);
    if (p.contentHash !== recomputedHash(p)) fail('stored content hash does not match the content', p);
    // (b) nothing is approved or scheduled without a current approval of its content.
    if ((p.status === 'approved' || p.status === 'scheduled') && !isApprovalCurrent(p))
      fail('approved or scheduled without a current approval', p);
    if (p.status === 'scheduled' && (p.scheduledForUtc === null || p.scheduleReason === null))
      fail('scheduled without a time', p);
  }
  // A group with posts approved or scheduled is itself approved or scheduled (else it could not be scheduled).
  if (
    state.posts.some((p) => p.status === 'approved' || p.status === 'scheduled') &&
    state.status !== 'approved' &&
    state.status !== 'scheduled'
  )
    fail('posts approved or scheduled in a group that is not', { status: state.status, posts: state.posts });
  // (d) a group created from drafts starts with every post in review.
  const created = events.find((e) => e.type === 'PostGroupCreated');
  if (created?.type === 'PostGroupCreated' && created.data.origin === 'drafts') {
    if (state.status !== 'pending_approval' || state.posts.some((p) => p.status !== 'pending_approval'))
      fail('drafts did not all enter review', state);
  }
  // (e) approval records use the spec's enums, name a post exactly when post-level, and have unique ids.
  const records = [...state.approvals, ...state.posts.flatMap((p) => p.approvals)];
  for (const r of records) {
    if (!approvalActions.includes(r.action) || !approvalLevels.includes(r.level))
      fail('approval outside the spec', r);
    if ((r.level === 'post') !== (r.postId !== null)) fail('approval level and postId disagree', r);
    if (r.groupId !== state.id) fail('approval of another group', r);
  }
  const ids = state.approvals.map((r) => r.id);
  if (new Set(ids).size !== ids.length) fail('approval ids repeat', state.approvals);
  for (const p of state.posts) {
    if (p.approvals.some((r) => r.postId !== null && r.postId !== p.id))
      fail('post holds another post’s record', p);
    if (p.approvals.some((r) => !state.approvals.some((g) => g.id === r.id)))
      fail('post record missing on group', p);
  }
}

// ----------------------------------------------------------------------------------------------- model

/** What the model knows of a post: its status, its content, and the content its approval covers. */
interface ModelPost {
  status: PostStatus;
  content: string;
  approved: string | null;
}
type Prediction = { refused: string } | { posts: Map<string, ModelPost>; groupCanceled?: boolean } | null;

const inFlight: PostStatus[] = ['publishing', 'awaiting_platform'];

function modelOf(group: ActivePostGroup): Map<string, ModelPost> {
  return new Map(
    group.posts.map((p) => {
      const content = canonicalJson([p.platform, p.contentText, p.media, p.platformPayload]);
      const approved =
        p.approvedContentHash === null ? null : p.approvedContentHash === p.contentHash ? content : 'stale';
      return [p.id, { status: p.status, content, approved }];
    }),
  );
}

/** Predicts the simplest commands from the rules alone: post-now, delete, text edits and whole-group moves. */
function predict(s: Step, state: PostGroupState): Prediction {
  if (state.kind !== 'active') return null;
  const model = modelOf(state);
  const post = postAt(state, 'post' in s ? s.post : 0);
  const set = (ids: string[], change: (m: ModelPost) => Partial<ModelPost>) => {
    const next = new Map(model);
    for (const id of ids) next.set(id, { ...model.get(id)!, ...change(model.get(id)!) });
    return next;
  };
  const current = (m: ModelPost) => m.approved === m.content;
  switch (s.kind) {
    case 'postNow': {
      if (!post) return null;
      const m = model.get(post.id)!;
      if (m.status === 'draft' || m.status === 'pending_approval') return { refused: 'post_not_approved' };
      if (inFlight.includes(m.status)) return { refused: 'post_publishing' };
      if (m.status === 'published') return { refused: 'post_already_published' };
      if (m.status === 'canceled') return { refused: 'post_canceled' };
      if (!current(m)) return { refused: 'post_not_approved' };
      return { posts: set([post.id], () => ({ status: 'publishing' })) };
    }
    case 'delete': {
      if (!post) return null;
      if (inFlight.includes(model.get(post.id)!.status)) return { refused: 'post_publishing' };
      const next = new Map(model);
      next.delete(post.id);
      return { posts: next, groupCanceled: next.size === 0 };
    }
    case 'updatePost': {
      if (!post || s.edit !== 'text' || s.timeInHours !== undefined || s.status !== undefined) return null;
      const m = model.get(post.id)!;
      if (s.text === post.contentText) return { posts: model };
      if (inFlight.includes(m.status) || m.status === 'published') return { refused: 'post_not_editable' };
      const problems = checkPostContent({ ...post, contentText: s.text }, { groupTitle: state.title });
      if (problems.length > 0) return { refused: 'validation' };
      const content = canonicalJson([post.platform, s.text, post.media, post.platformPayload]);
      const withdraws = m.status === 'approved' || m.status === 'scheduled' || m.status === 'failed';
      return {
        posts: set([post.id], () =>
          withdraws ? { content, status: 'pending_approval', approved: null } : { content },
        ),
      };
    }
    case 'approve': {
      if (s.subset !== undefined || s.scheduleInHours !== undefined || s.timezone !== undefined) return null;
      if (state.status === 'canceled') return { refused: 'group_canceled' };
      const targets = [...model]
        .filter(
          ([, m]) =>
            m.status === 'draft' || m.status === 'pending_approval' || (m.status === 'failed' && !current(m)),
        )
        .map(([id]) => id);
      if (targets.length === 0)
        return state.status === 'draft' || state.status === 'pending_approval'
          ? { refused: 'nothing_to_approve' }
          : { posts: model };
      return { posts: set(targets, (m) => ({ status: 'approved', approved: m.content })) };
    }
    case 'reject': {
      if (s.subset !== undefined) return null;
      if (state.status === 'canceled') return { refused: 'group_canceled' };
      const targets = [...model]
        .filter(
          ([, m]) => !inFlight.includes(m.status) && m.status !== 'published' && m.status !== 'canceled',
        )
        .map(([id]) => id);
      if (targets.length === 0) return { refused: 'nothing_to_reject' };
      return { posts: set(targets, () => ({ status: 'draft', approved: null })) };
    }
    case 'schedule': {
      if (s.subset !== undefined || s.inHours < 0) return null;
      if (state.status === 'draft' || state.status === 'pending_approval')
        return { refused: 'group_not_approved' };
      if (state.status === 'canceled') return { refused: 'group_canceled' };
      const targets = [...model]
        .filter(
          ([, m]) =>
            (m.status === 'approved' || m.status === 'scheduled' || m.status === 'failed') && current(m),
        )
        .map(([id]) => id);
      if (targets.length === 0) return { refused: 'nothing_to_schedule' };
      return { posts: set(targets, () => ({ status: 'scheduled' })) };
    }
    case 'create':
    case 'updateGroup':
    case 'outcome':
      return null;
  }
}

function checkPrediction(
  prediction: Prediction,
  outcome: { refused: AppError } | { state: PostGroupState },
): void {
  if (prediction === null) return;
  if ('refused' in prediction) {
    if (!('refused' in outcome)) fail('the model expected a refusal', prediction);
    const code = outcome.refused.status === 400 ? 'validation' : outcome.refused.code;
    if (code !== prediction.refused)
      fail('refused for another reason than the model expected', { code, prediction });
    return;
  }
  if ('refused' in outcome)
    fail('the model expected success', { error: outcome.refused.message, code: outcome.refused.code });
  if (outcome.state.kind !== 'active') fail('the group vanished', outcome.state);
  const actual = modelOf(outcome.state);
  const view = (m: Map<string, ModelPost>) =>
    [...m].map(([id, p]) => ({
      id,
      status: p.status,
      content: p.content,
      current: p.approved === p.content,
    }));
  expect(view(actual)).toEqual(view(prediction.posts));
  if (prediction.groupCanceled) expect(outcome.state.status).toBe('canceled');
}

// ------------------------------------------------------------------------------------------- runner

interface Stats {
  accepted: Record<string, number>;
  refused: Record<string, number>;
  predicted: number;
  reached: Set<PostStatus>;
  publishRequests: number;
}

function run(steps: Step[], stats: Stats): void {
  let state: PostGroupState = postGroupDecider.initialState;
  steps.forEach((s, step) => {
    if (s.kind === 'outcome') {
      state = applyOutcome(state, s);
      checkState(state, []);
      if (state.kind === 'active') for (const p of state.posts) stats.reached.add(p.status);
      return;
    }
    const command = commandFor(s, state, step)!;
    const before = canonicalJson(state);
    const prediction = predict(s, state);
    if (prediction !== null) stats.predicted++;
    let events: PostGroupEvent[];
    try {
      events = postGroupDecider.decide(command, state);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // A refused command leaves the state as it was.
      if (canonicalJson(state) !== before) fail('a refused command changed the state', command);
      stats.refused[`${command.type}:${error.code ?? error.status}`] =
        (stats.refused[`${command.type}:${error.code ?? error.status}`] ?? 0) + 1;
      checkPrediction(prediction, { refused: error });
      return;
    }
    if (canonicalJson(state) !== before) fail('decide changed the state it was given', command);
    for (const event of events) {
      checkBeforeEvent(state, event);
      state = postGroupDecider.evolve(state, event);
      if (event.type === 'PostPublishRequested') stats.publishRequests++;
    }
    stats.accepted[command.type] = (stats.accepted[command.type] ?? 0) + 1;
    checkPrediction(prediction, { state });
    checkState(state, events);
    if (state.kind === 'active') for (const p of state.posts) stats.reached.add(p.status);
  });
}

describe('post group properties over random command sequences', () => {
  test('approval invariants hold after every step, refusals change nothing, the model agrees', () => {
    const stats: Stats = { accepted: {}, refused: {}, predicted: 0, reached: new Set(), publishRequests: 0 };
    fc.assert(
      fc.property(firstCreateArb, fc.array(stepArb, { maxLength: 40, size: 'max' }), (first, rest) => {
        run([first, ...rest], stats);
      }),
      { numRuns: 300 },
    );
    // The runs reached the interesting places (the property is not vacuous).
    expect(stats.publishRequests).toBeGreaterThan(20);
    for (const status of postStatuses) expect(stats.reached, status).toContain(status);
    for (const type of [
      'CreatePostGroup',
      'UpdatePostGroup',
      'UpdatePost',
      'ApprovePostGroup',
      'RejectPostGroup',
      'SchedulePostGroup',
      'RequestPublishNow',
      'DeletePost',
    ])
      expect(stats.accepted[type] ?? 0, type).toBeGreaterThan(10);
    expect(stats.predicted).toBeGreaterThan(500);
  });

  test('the events, stored as JSON and read back, replay to the same state', () => {
    fc.assert(
      fc.property(
        firstCreateArb,
        fc.array(
          stepArb.filter((s) => s.kind !== 'outcome'),
          { maxLength: 40, size: 'max' },
        ),
        (first, rest) => {
          let state: PostGroupState = postGroupDecider.initialState;
          const all: PostGroupEvent[] = [];
          [first, ...rest].forEach((s, step) => {
            try {
              const events = postGroupDecider.decide(commandFor(s, state, step)!, state);
              all.push(...events);
              state = events.reduce(postGroupDecider.evolve, state);
            } catch (error) {
              if (!(error instanceof AppError)) throw error;
            }
          });
          const stored = JSON.parse(JSON.stringify(all)) as PostGroupEvent[];
          expect(canonicalJson(stored.reduce(postGroupDecider.evolve, postGroupDecider.initialState))).toBe(
            canonicalJson(state),
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});
