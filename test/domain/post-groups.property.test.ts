// Property tests for the post-group aggregate: random sequences of commands (create, group and post edits,
// approve, reject, schedule, post-now, delete, and the publishing pipeline's claims, outcomes and account
// removals, at random times) are applied to the folded state. Refused commands (AppError) change nothing; any
// other throw fails. After every step the approval and publishing invariants must hold, and a small model
// predicts the outcome of the commands whose rules are simplest.
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { AppError } from '../../domain/shared/errors.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { checkPostContent } from '../../domain/post-groups/content-rules.js';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import { contentHash, type PlatformPayload } from '../../domain/post-groups/post-content.js';
import {
  deriveGroupStatus,
  groupStatuses,
  isApprovalCurrent,
  postGroupDecider,
  postNowRetryReason,
  postStatuses,
  rejectReasons,
  type ActivePostGroup,
  type PayloadPatch,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
  type PostState,
  type PostStatus,
  type PublishFailureReason,
  type PublishOutcomeRecord,
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
import { propertyRuns } from '../support/property-runs.js';

const postIds = [
  '20000000-0000-4000-8000-000000000001',
  '20000000-0000-4000-8000-000000000002',
  '20000000-0000-4000-8000-000000000003',
];
const accounts = ['40000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000002'];
/** An account no post ever has. */
const otherAccount = '40000000-0000-4000-8000-000000000009';
const start = Date.parse('2026-11-22T10:00:00.000Z');
const minute = 60_000;
const hour = 60 * minute;
const iso = (ms: number) => new Date(ms).toISOString();
/** A time `hours` after the step's now (negative: in the past). */
const timeAt = (clock: number, hours: number) => iso(clock + hours * hour);

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
      posts: Array<{ platform: Platform; text: string; extra: boolean; account: number }>;
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
  /** A publishing worker claims a post, `waitHours` after the previous step (so scheduled posts fall due). */
  | { kind: 'claim'; post: number; any: boolean; waitHours: number; account: number }
  /** A worker records an outcome, mostly for the current attempt; times relative to now. */
  | {
      kind: 'record';
      post: number;
      any: boolean;
      attemptDelta: number;
      result: 'published' | 'pending' | 'retry' | 'final';
      inMinutes: number;
      reason: PublishFailureReason;
    }
  | { kind: 'removeAccount'; account: number };

const failureReasons: PublishFailureReason[] = [
  'retryable',
  'permanent',
  'account',
  'unconfirmed',
  'platform_timeout',
  'attempts_exhausted',
];

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
    posts: fc.uniqueArray(fc.constantFrom(...platforms), { minLength: 1, maxLength: 3 }).chain((ps) =>
      fc.tuple(
        ...ps.map((platform) =>
          fc.record({
            platform: fc.constant(platform),
            text,
            extra: fc.boolean(),
            account: fc.integer({ min: -1, max: 1 }),
          }),
        ),
      ),
    ),
    title,
    scheduledInHours: fc.option(hoursArb, { nil: null }),
  });
/** The first step: a group that can be created, so the rest of the run has something to work on. */
const firstCreateArb = createWith(validTextArb, validTitleArb);
const createArb = createWith(textArb, titleArb);

/** One arbitrary per kind of step. */
const stepArbs: Record<Step['kind'], fc.Arbitrary<Step>> = {
  create: createArb,
  updateGroup: fc.record(
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
  updatePost: fc.record(
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
  approve: fc.record(
    {
      kind: fc.constant('approve' as const),
      subset: subsetArb,
      scheduleInHours: hoursArb,
      timezone: fc.constantFrom('UTC', 'Asia/Tokyo'),
    },
    { requiredKeys: ['kind', 'subset'] },
  ),
  reject: fc.record(
    {
      kind: fc.constant('reject' as const),
      subset: subsetArb,
      reason: fc.constantFrom(...rejectReasons),
      note: fc.constantFrom('too long', '  '),
    },
    { requiredKeys: ['kind', 'subset'] },
  ),
  schedule: fc.record({ kind: fc.constant('schedule' as const), subset: subsetArb, inHours: hoursArb }),
  postNow: fc.record({ kind: fc.constant('postNow' as const), post: indexArb }),
  delete: fc.record({ kind: fc.constant('delete' as const), post: indexArb }),
  claim: fc.record({
    kind: fc.constant('claim' as const),
    post: indexArb,
    // Mostly a post the sweep would pick (scheduled or publishing); sometimes any post.
    any: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    waitHours: fc.oneof(
      { weight: 2, arbitrary: fc.constant(0) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 100 }) },
    ),
    account: fc.integer({ min: -1, max: 1 }),
  }),
  record: fc.record({
    kind: fc.constant('record' as const),
    post: indexArb,
    any: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    attemptDelta: fc.oneof(
      { weight: 8, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.constantFrom(-1, 1) },
    ),
    result: fc.constantFrom('published' as const, 'pending' as const, 'retry' as const, 'final' as const),
    inMinutes: fc.integer({ min: -30, max: 600 }),
    reason: fc.constantFrom(...failureReasons),
  }),
  removeAccount: fc.record({
    kind: fc.constant('removeAccount' as const),
    account: fc.integer({ min: 0, max: 2 }),
  }),
};

/** Steps drawn with these weights per kind. */
function stepsWith(weights: Record<Step['kind'], number>): fc.Arbitrary<Step> {
  return fc.oneof(
    ...Object.entries(weights)
      .filter(([, weight]) => weight > 0)
      .map(([kind, weight]) => ({ weight, arbitrary: stepArbs[kind as Step['kind']] })),
  );
}

/** Every kind of step, the review cycle weighted most. */
const stepArb = stepsWith({
  create: 1,
  updateGroup: 3,
  updatePost: 6,
  approve: 4,
  reject: 2,
  schedule: 3,
  postNow: 3,
  delete: 1,
  claim: 4,
  record: 4,
  removeAccount: 1,
});

/** The second step of a publishing-heavy run: every post approved and scheduled, due in two hours or so. */
const approveAndSchedule: Step = { kind: 'approve', scheduleInHours: 2 };

/** Weighted towards approved, scheduled and publishing posts, so the pipeline's rules are exercised deeply. */
const publishingStepArb = stepsWith({
  create: 0,
  updateGroup: 1,
  updatePost: 2,
  approve: 3,
  reject: 1,
  schedule: 3,
  postNow: 2,
  delete: 0,
  claim: 8,
  record: 8,
  removeAccount: 1,
});

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

/** A post in one of `statuses` (any post when none is, or when `any`), or an id no group has. */
function pickPostId(state: PostGroupState, index: number, any: boolean, statuses: PostStatus[]): string {
  if (state.kind !== 'active') return postIdAt(state, index);
  const candidates = any ? [] : state.posts.filter((p) => statuses.includes(p.status));
  return candidates.length > 0 ? candidates[index % candidates.length]!.id : postIdAt(state, index);
}

function outcomeFor(s: Extract<Step, { kind: 'record' }>, clock: number, step: number): PublishOutcomeRecord {
  const at = iso(clock + s.inMinutes * minute);
  switch (s.result) {
    case 'published':
      return { kind: 'published', externalId: `ext-${step}`, url: `https://x.com/acme/status/${step}` };
    case 'pending':
      return { kind: 'pending', reference: `ref-${step}`, nextCheckAt: at };
    case 'retry':
      return {
        kind: 'failed',
        error: `Attempt failed at step ${step}`,
        reason: 'retryable',
        nextRetryAt: at,
      };
    case 'final':
      return { kind: 'failed', error: `Gave up at step ${step}`, reason: s.reason, nextRetryAt: null };
  }
}

/** The clock of each step: a minute after the previous one, plus the wait a claim step asks for. */
function clocks(steps: readonly Step[]): number[] {
  let clock = start;
  return steps.map((s, step) => {
    if (step > 0) clock += minute;
    if (s.kind === 'claim') clock += s.waitHours * hour;
    return clock;
  });
}

function idsAt(state: PostGroupState, subset: number[] | undefined): string[] | undefined {
  if (subset === undefined) return undefined;
  const ids = state.kind === 'active' ? state.posts.map((p) => p.id) : [];
  const unknown = '20000000-0000-4000-8000-0000000000fe';
  return subset.map((i) => (i < 0 || ids.length === 0 ? unknown : ids[i % ids.length]!));
}

/** A time for every post of the group, so the decider never lacks one. */
function timesFor(state: PostGroupState, clock: number, hours: number): Record<string, SlotAssignment> {
  const ids = state.kind === 'active' ? state.posts.map((p) => p.id) : [];
  return Object.fromEntries(
    ids.map((id, i) => [id, { scheduledForUtc: timeAt(clock, hours + i), scheduleReason: 'Best slot' }]),
  );
}

function commandFor(s: Step, state: PostGroupState, step: number, clock: number): PostGroupCommand {
  const now = iso(clock);
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
          scheduledFor: s.scheduledInHours === null ? null : timeAt(clock, s.scheduledInHours),
          tagIds: [],
        },
        strategy: noStrategy,
        posts: s.posts.map((p, i) => ({
          postId: postIds[i]!,
          platform: p.platform,
          socialAccountId: p.account < 0 ? null : accounts[p.account]!,
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
      if (s.timeInHours !== undefined) changes.scheduledForUtc = timeAt(clock, s.timeInHours);
      return {
        type: 'UpdatePost',
        postId: postIdAt(state, s.post),
        changes,
        ...(s.status !== undefined ? { status: s.status } : {}),
        ...(s.slotInHours !== undefined
          ? { schedule: { scheduledForUtc: timeAt(clock, s.slotInHours), scheduleReason: 'Best slot' } }
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
        schedule: s.scheduleInHours === undefined ? null : timesFor(state, clock, s.scheduleInHours),
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
        schedule: timesFor(state, clock, s.inHours),
        by: editor,
        now,
      };
    }
    case 'postNow':
      return { type: 'RequestPublishNow', postId: postIdAt(state, s.post), by: editor, now };
    case 'delete':
      return { type: 'DeletePost', postId: postIdAt(state, s.post), by: editor, now };
    case 'claim':
      return {
        type: 'StartPublishAttempt',
        postId: pickPostId(state, s.post, s.any, ['scheduled', 'publishing']),
        socialAccountId: s.account < 0 ? null : accounts[s.account]!,
        by: 'system',
        now,
      };
    case 'record': {
      const postId = pickPostId(state, s.post, s.any, ['publishing', 'awaiting_platform']);
      const post = state.kind === 'active' ? state.posts.find((p) => p.id === postId) : undefined;
      return {
        type: 'RecordPublishOutcome',
        postId,
        attempt: (post?.attemptCount ?? 0) + s.attemptDelta,
        outcome: outcomeFor(s, clock, step),
        by: 'system',
        now,
      };
    }
    case 'removeAccount':
      return {
        type: 'RemoveSocialAccount',
        socialAccountId: accounts[s.account] ?? otherAccount,
        message: 'The social account was removed',
        by: 'system',
        now,
      };
  }
}

// ----------------------------------------------------------------------------------------- invariants

const inFlight: PostStatus[] = ['publishing', 'awaiting_platform'];
const inFlightOrOut: PostStatus[] = [...inFlight, 'published'];

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
  if (state.kind !== 'active') return;
  if (event.type === 'PostPublishRequested' || event.type === 'PostPublishAttemptStarted') {
    // (a) a post goes out only with an approval of exactly the content it has.
    const post = state.posts.find((p) => p.id === event.data.postId);
    if (!post) fail(`${event.type} for a post not in the group`, event.data);
    const hash = recomputedHash(post);
    if (
      post.approvedContentHash !== post.contentHash ||
      post.contentHash !== hash ||
      event.data.contentHash !== hash
    )
      fail(`${event.type} for content that is not the approved content`, { post, event: event.data, hash });
    if (event.type === 'PostPublishRequested') return;
    // (f) one open attempt at a time, never for a post already out, counted one by one.
    const claimable = post.status === 'scheduled' || (post.status === 'publishing' && !post.attemptOpen);
    if (!claimable) fail('attempt started for a post that is not claimable', { post, event: event.data });
    if (event.data.attempt !== post.attemptCount + 1)
      fail('attempt does not follow the last one', { post, event: event.data });
    if (event.data.idempotencyKey !== `publish:${post.id}:${event.data.attempt}`)
      fail('attempt idempotency key', event.data);
    const dueAt = post.nextRetryAt ?? post.scheduledForUtc;
    if (post.status === 'scheduled' && (dueAt === null || Date.parse(dueAt) > Date.parse(event.data.at)))
      fail('attempt started before the post was due', { post, event: event.data });
    return;
  }
  if (
    event.type === 'PostPublished' ||
    event.type === 'PostAwaitingPlatform' ||
    event.type === 'PostPublishAttemptFailed'
  ) {
    // (g) an outcome settles the current attempt only, of content still covered by its approval.
    const post = state.posts.find((p) => p.id === event.data.postId);
    if (!post) fail(`${event.type} for a post not in the group`, event.data);
    const current = (post.status === 'publishing' && post.attemptOpen) || post.status === 'awaiting_platform';
    if (!current || post.attemptCount !== event.data.attempt)
      fail(`${event.type} for an attempt that is not current`, { post, event: event.data });
    if (!isApprovalCurrent(post)) fail(`${event.type} for content that is not the approved content`, post);
  }
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
    // (f) an open attempt is a publishing post's; whatever is out or on its way holds its approval still.
    if (p.attemptOpen && p.status !== 'publishing') fail('an open attempt outside publishing', p);
    if (inFlightOrOut.includes(p.status) && !isApprovalCurrent(p))
      fail('publishing, awaiting or published without a current approval', p);
    if (p.status === 'published' && (p.publishedExternalId === null || p.publishedUrl === null))
      fail('published without its platform id and url', p);
    if (p.status === 'awaiting_platform' && (p.nextRetryAt === null || p.publishReference === null))
      fail('awaiting the platform without a next check or reference', p);
    if (p.status === 'scheduled' && p.nextRetryAt !== null && p.lastError === null)
      fail('a retry without the error that caused it', p);
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

/**
 * Predicts the simplest commands from the rules alone: post-now, delete, text edits, whole-group moves, and the
 * pipeline's claims, outcomes and account removals.
 */
function predict(s: Step, state: PostGroupState, command: PostGroupCommand): Prediction {
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
    case 'claim': {
      if (command.type !== 'StartPublishAttempt') return null;
      const p = state.posts.find((q) => q.id === command.postId);
      if (!p) return null;
      const m = model.get(p.id)!;
      if (p.status === 'scheduled') {
        if (!current(m)) return { refused: 'post_not_approved' };
        const dueAt = p.nextRetryAt ?? p.scheduledForUtc!;
        if (Date.parse(dueAt) > Date.parse(command.now)) return { refused: 'post_not_due' };
      } else if (p.status === 'publishing') {
        if (p.attemptOpen) return { refused: 'attempt_in_progress' };
        if (!current(m)) return { refused: 'post_not_approved' };
      } else {
        return { refused: 'post_not_publishable' };
      }
      return { posts: set([p.id], () => ({ status: 'publishing' })) };
    }
    case 'record': {
      if (command.type !== 'RecordPublishOutcome') return null;
      const p = state.posts.find((q) => q.id === command.postId);
      if (!p) return null;
      const open = (p.status === 'publishing' && p.attemptOpen) || p.status === 'awaiting_platform';
      if (!open || p.attemptCount !== command.attempt) return { refused: 'stale_attempt' };
      const o = command.outcome;
      const status: PostStatus =
        o.kind === 'published'
          ? 'published'
          : o.kind === 'pending'
            ? 'awaiting_platform'
            : o.nextRetryAt !== null
              ? 'scheduled'
              : 'failed';
      return { posts: set([p.id], () => ({ status })) };
    }
    case 'removeAccount': {
      if (command.type !== 'RemoveSocialAccount') return null;
      const affected = state.posts.filter(
        (p) =>
          p.socialAccountId === command.socialAccountId &&
          !inFlightOrOut.includes(p.status) &&
          p.status !== 'canceled',
      );
      return {
        posts: set(
          affected.filter((p) => p.status === 'scheduled').map((p) => p.id),
          () => ({ status: 'approved' }),
        ),
      };
    }
    case 'create':
    case 'updateGroup':
      return null;
  }
}

/** The publishing commands' effect on every field of the post they touch; the other posts stay as they were. */
function checkPublishingFields(
  command: PostGroupCommand,
  before: ActivePostGroup,
  after: PostGroupState,
  events: PostGroupEvent[],
): void {
  if (after.kind !== 'active') fail('the group vanished', command);
  const was = (id: string) => before.posts.find((p) => p.id === id)!;
  const is = (id: string) => after.posts.find((p) => p.id === id)!;
  const untouchedBut = (ids: string[]) => {
    for (const p of before.posts)
      if (!ids.includes(p.id) && canonicalJson(p) !== canonicalJson(is(p.id)))
        fail('a post the command did not name changed', { command, before: p, after: is(p.id) });
  };
  if (!['StartPublishAttempt', 'RecordPublishOutcome', 'RemoveSocialAccount'].includes(command.type)) return;
  // Group status follows deriveGroupStatus whatever the order of outcomes.
  if (events.length > 0 && after.status !== deriveGroupStatus(after.posts, before.status))
    fail('group status does not follow its posts', { command, status: after.status, posts: after.posts });
  if (command.type === 'StartPublishAttempt') {
    const p = was(command.postId);
    const attempt = p.attemptCount + 1;
    expect(is(command.postId)).toEqual({
      ...p,
      status: 'publishing',
      attemptOpen: true,
      attemptCount: attempt,
      lastAttemptAt: command.now,
      idempotencyKey: `publish:${p.id}:${attempt}`,
      socialAccountId: command.socialAccountId ?? p.socialAccountId,
      publishReference: null,
      nextRetryAt: null,
      updatedAt: command.now,
    });
    expect(events).toMatchObject([
      {
        type: 'PostPublishAttemptStarted',
        data: {
          attempt,
          contentHash: p.contentHash,
          trigger: p.status === 'publishing' ? 'post_now' : p.nextRetryAt !== null ? 'retry' : 'schedule',
        },
      },
    ]);
    untouchedBut([p.id]);
    return;
  }
  if (command.type === 'RecordPublishOutcome') {
    const p = was(command.postId);
    const o = command.outcome;
    const common = { ...p, attemptOpen: false, updatedAt: command.now };
    const expected: PostState =
      o.kind === 'published'
        ? {
            ...common,
            status: 'published',
            publishedExternalId: o.externalId,
            publishedUrl: o.url,
            publishReference: null,
            nextRetryAt: null,
            lastError: null,
          }
        : o.kind === 'pending'
          ? {
              ...common,
              status: 'awaiting_platform',
              publishReference: o.reference,
              nextRetryAt: o.nextCheckAt,
            }
          : o.nextRetryAt !== null
            ? {
                ...common,
                status: 'scheduled',
                scheduledForUtc: p.scheduledForUtc ?? p.lastAttemptAt,
                scheduleReason: p.scheduleReason ?? postNowRetryReason,
                publishReference: null,
                nextRetryAt: o.nextRetryAt,
                lastError: o.error,
              }
            : {
                ...common,
                status: 'failed',
                publishReference: null,
                nextRetryAt: null,
                lastError: o.error,
              };
    expect(is(command.postId)).toEqual(expected);
    untouchedBut([p.id]);
    return;
  }
  if (command.type === 'RemoveSocialAccount') {
    const ids = before.posts
      .filter(
        (p) =>
          p.socialAccountId === command.socialAccountId &&
          !inFlightOrOut.includes(p.status) &&
          p.status !== 'canceled',
      )
      .map((p) => p.id);
    expect(events.length).toBe(ids.length > 0 ? 1 : 0);
    for (const id of ids) {
      const p = was(id);
      expect(is(id)).toEqual({
        ...p,
        socialAccountId: null,
        lastError: command.message,
        updatedAt: command.now,
        ...(p.status === 'scheduled'
          ? { status: 'approved', scheduledForUtc: null, scheduleReason: null, nextRetryAt: null }
          : {}),
      });
    }
    untouchedBut(ids);
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
  events: Record<string, number>;
  predicted: number;
  reached: Set<PostStatus>;
  publishRequests: number;
  /** Claims decided again on the winner's event (the racing worker), all refused. */
  lostRaces: number;
  /** Posts published after more than one attempt. */
  publishedAfterRetry: number;
}

const newStats = (): Stats => ({
  accepted: {},
  refused: {},
  events: {},
  predicted: 0,
  reached: new Set(),
  publishRequests: 0,
  lostRaces: 0,
  publishedAfterRetry: 0,
});

/** What is remembered of a post across steps: its attempts, and what its last claim published. */
interface PostHistory {
  attemptCount: number;
  claimedHash: string | null;
  published: { externalId: string | null } | null;
}

function run(steps: Step[], stats: Stats): void {
  let state: PostGroupState = postGroupDecider.initialState;
  const times = clocks(steps);
  const histories = new Map<string, PostHistory>();
  steps.forEach((s, step) => {
    const command = commandFor(s, state, step, times[step]!);
    const before = canonicalJson(state);
    const prediction = predict(s, state, command);
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
    const decidedOn = state;
    for (const event of events) {
      checkBeforeEvent(state, event);
      state = postGroupDecider.evolve(state, event);
      if (event.type === 'PostPublishRequested') stats.publishRequests++;
      stats.events[event.type] = (stats.events[event.type] ?? 0) + 1;
    }
    stats.accepted[command.type] = (stats.accepted[command.type] ?? 0) + 1;
    checkPrediction(prediction, { state });
    checkState(state, events);
    if (decidedOn.kind === 'active') checkPublishingFields(command, decidedOn, state, events);
    checkAcrossSteps(histories, state, events, stats);
    if (command.type === 'StartPublishAttempt') {
      // The racing worker read the same revision; the store refuses its append and it decides again here.
      try {
        postGroupDecider.decide(command, state);
        fail('a second claim was accepted after the first', command);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'attempt_in_progress') throw error;
        stats.lostRaces++;
      }
    }
    if (state.kind === 'active') for (const p of state.posts) stats.reached.add(p.status);
  });
}

/** Invariants over a post's whole life: attempts count up one per claim, a published post stays published. */
function checkAcrossSteps(
  histories: Map<string, PostHistory>,
  state: PostGroupState,
  events: PostGroupEvent[],
  stats: Stats,
): void {
  if (state.kind !== 'active') return;
  for (const p of state.posts) {
    const h = histories.get(p.id) ?? { attemptCount: 0, claimedHash: null, published: null };
    const claims = events.filter((e) => e.type === 'PostPublishAttemptStarted' && e.data.postId === p.id);
    if (claims.length > 1) fail('two attempts started in one decision', claims);
    if (p.attemptCount !== h.attemptCount + claims.length)
      fail('attemptCount moved other than by one per claim', { before: h.attemptCount, claims, post: p });
    if (h.published !== null) {
      if (claims.length > 0) fail('a published post got another attempt', { post: p, claims });
      if (p.status !== 'published' || p.publishedExternalId !== h.published.externalId)
        fail('a published post left published', p);
    }
    const claim = claims[0];
    const claimedHash = claim?.type === 'PostPublishAttemptStarted' ? claim.data.contentHash : h.claimedHash;
    // What is sent, or on its way, is exactly what its claim carried (and the claim carried the approved content).
    const sentOrSending =
      p.status === 'awaiting_platform' ||
      p.status === 'published' ||
      (p.status === 'publishing' && p.attemptOpen);
    if (sentOrSending && p.contentHash !== claimedHash)
      fail('what was sent is not what the claim carried', { claimedHash, post: p });
    const justPublished = events.some((e) => e.type === 'PostPublished' && e.data.postId === p.id);
    if (justPublished && p.attemptCount > 1) stats.publishedAfterRetry++;
    histories.set(p.id, {
      attemptCount: p.attemptCount,
      claimedHash,
      published: p.status === 'published' ? { externalId: p.publishedExternalId } : null,
    });
  }
}

describe('post group properties over random command sequences', () => {
  /** The whole count by default: the coverage checks below need it (at half they can miss by chance). */
  const sequenceRuns = propertyRuns(300, 300);
  test('approval invariants hold after every step, refusals change nothing, the model agrees', () => {
    const stats = newStats();
    // The coverage checks below were set for the thorough count; they scale with the runs made.
    const share = sequenceRuns / 300;
    fc.assert(
      fc.property(firstCreateArb, fc.array(stepArb, { maxLength: 40, size: 'max' }), (first, rest) => {
        run([first, ...rest], stats);
      }),
      { numRuns: sequenceRuns },
    );
    // The runs reached the interesting places (the property is not vacuous).
    expect(stats.publishRequests).toBeGreaterThan(20 * share);
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
      'StartPublishAttempt',
      'RecordPublishOutcome',
      'RemoveSocialAccount',
    ])
      expect(stats.accepted[type] ?? 0, type).toBeGreaterThan(10 * share);
    expect(stats.predicted).toBeGreaterThan(500 * share);
  });

  test('publishing invariants hold over sequences heavy in claims and outcomes at random times', () => {
    const stats = newStats();
    // The coverage checks below were set for the thorough count; they scale with the runs made.
    const share = sequenceRuns / 300;
    fc.assert(
      fc.property(
        firstCreateArb,
        fc.array(publishingStepArb, { maxLength: 40, size: 'max' }),
        (first, rest) => {
          run([first, approveAndSchedule, ...rest], stats);
        },
      ),
      { numRuns: sequenceRuns },
    );
    for (const status of postStatuses) expect(stats.reached, status).toContain(status);
    for (const type of [
      'PostPublishAttemptStarted',
      'PostPublished',
      'PostAwaitingPlatform',
      'PostPublishAttemptFailed',
      'PostsAccountRemoved',
    ])
      expect(stats.events[type] ?? 0, type).toBeGreaterThan(15 * share);
    for (const code of [
      'StartPublishAttempt:post_not_due',
      'StartPublishAttempt:post_not_publishable',
      'StartPublishAttempt:attempt_in_progress',
      'RecordPublishOutcome:stale_attempt',
    ])
      expect(stats.refused[code] ?? 0, code).toBeGreaterThan(10 * share);
    // Every accepted claim was raced by a second worker on the same revision, and that worker lost.
    expect(stats.lostRaces).toBe(stats.accepted.StartPublishAttempt);
    expect(stats.publishedAfterRetry).toBeGreaterThan(2 * share);
    expect(stats.predicted).toBeGreaterThan(2000 * share);
  });

  test('the events, stored as JSON and read back, replay to the same state', () => {
    fc.assert(
      fc.property(
        firstCreateArb,
        fc.array(fc.oneof(stepArb, publishingStepArb), { maxLength: 40, size: 'max' }),
        (first, rest) => {
          let state: PostGroupState = postGroupDecider.initialState;
          const all: PostGroupEvent[] = [];
          const steps = [first, ...rest];
          const times = clocks(steps);
          steps.forEach((s, step) => {
            try {
              const events = postGroupDecider.decide(commandFor(s, state, step, times[step]!), state);
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
      { numRuns: propertyRuns(100) },
    );
  });
});
