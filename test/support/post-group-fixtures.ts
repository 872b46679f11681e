// Fixtures for the post-group decider and property tests: fixed ids and times, readable post inputs and
// command builders, and a given/when/then helper (like decider-spec.ts) that also checks error codes and
// detail paths and can start from a hand-made state. Publishing outcomes (awaiting_platform, published,
// failed) are events of this aggregate now; `withPost` reaches them by patching a folded state, which is
// shorter than claiming an attempt and recording its outcome where only the status matters.
import { expect } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import type { AppError } from '../../domain/shared/errors.js';
import {
  postGroupDecider,
  type ActivePostGroup,
  type GroupFields,
  type NewPostInput,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
  type PostState,
  type SlotAssignment,
  type StrategyLink,
} from '../../domain/post-groups/post-group.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';

export const orgId = '00000000-0000-4000-8000-000000000001';
export const groupId = '10000000-0000-4000-8000-000000000001';
export const editor = '00000000-0000-4000-8000-0000000000aa';
export const reviewer = '00000000-0000-4000-8000-0000000000bb';
export const xPostId = '20000000-0000-4000-8000-000000000001';
export const linkedinPostId = '20000000-0000-4000-8000-000000000002';
export const redditPostId = '20000000-0000-4000-8000-000000000003';
export const unknownPostId = '20000000-0000-4000-8000-0000000000ff';
export const approvalId = '30000000-0000-4000-8000-000000000001';
export const account1 = '40000000-0000-4000-8000-000000000001';
export const account2 = '40000000-0000-4000-8000-000000000002';

export const now = '2026-11-22T10:00:00.000Z';
export const past = '2026-11-22T09:00:00.000Z';
export const tomorrow = '2026-11-23T09:00:00.000Z';
export const dayAfter = '2026-11-24T09:00:00.000Z';

export const noStrategy: StrategyLink = {
  strategyId: null,
  strategyVersion: null,
  pillarId: null,
  priorityId: null,
  contentType: null,
  opportunityId: null,
};

export const fields: GroupFields = {
  title: 'Scheduler launch',
  topic: 'launch',
  objective: 'awareness',
  timezone: 'Europe/Berlin',
  scheduledFor: null,
  tagIds: [],
};

export const xPost: NewPostInput = {
  postId: xPostId,
  platform: 'x',
  socialAccountId: null,
  contentText: 'The scheduler ships today.',
  media: null,
  platformPayload: null,
};
export const linkedinPost: NewPostInput = {
  postId: linkedinPostId,
  platform: 'linkedin',
  socialAccountId: null,
  contentText: 'Today we ship the scheduler: plan a week of posts in one sitting.',
  media: null,
  platformPayload: null,
};
export const redditPost: NewPostInput = {
  postId: redditPostId,
  platform: 'reddit',
  socialAccountId: null,
  contentText: 'We built a scheduler; details and lessons inside.',
  media: null,
  platformPayload: { reddit: { subreddit: 'r/typescript', title: 'A scheduler in TypeScript' } },
};

export const image: Extract<MediaAsset, { kind: 'image' }> = {
  kind: 'image',
  assetId: '50000000-0000-4000-8000-000000000001',
  url: 'https://cdn.example.com/a.png',
  contentType: 'image/png',
  sizeBytes: 1000,
};
export const video: Extract<MediaAsset, { kind: 'video' }> = {
  kind: 'video',
  assetId: '50000000-0000-4000-8000-000000000002',
  url: 'https://cdn.example.com/v.mp4',
  contentType: 'video/mp4',
  sizeBytes: 100_000,
  durationSeconds: 30,
  width: 1080,
  height: 1920,
};

// -------------------------------------------------------------------------------------------- commands

type Cmd<T extends PostGroupCommand['type']> = Extract<PostGroupCommand, { type: T }>;

export function create(
  origin: 'post_groups' | 'drafts',
  posts: NewPostInput[] = [xPost, linkedinPost],
  overrides: Partial<GroupFields> = {},
  now_ = now,
): Cmd<'CreatePostGroup'> {
  return {
    type: 'CreatePostGroup',
    orgId,
    groupId,
    fields: { ...fields, ...overrides },
    strategy: noStrategy,
    posts,
    origin,
    approvalId,
    by: editor,
    now: now_,
  };
}

export function updateGroup(
  changes: Partial<GroupFields>,
  status?: 'draft' | 'pending_approval' | 'canceled' | 'approved',
): Cmd<'UpdatePostGroup'> {
  return {
    type: 'UpdatePostGroup',
    changes,
    ...(status !== undefined ? { status } : {}),
    approvalId,
    by: editor,
    now,
  };
}

export function updatePost(
  postId: string,
  changes: Cmd<'UpdatePost'>['changes'],
  extra: { status?: PostState['status']; schedule?: SlotAssignment } = {},
): Cmd<'UpdatePost'> {
  return { type: 'UpdatePost', postId, changes, ...extra, approvalId, by: editor, now };
}

export function approve(
  options: {
    approvePosts?: string[];
    schedule?: Record<string, SlotAssignment> | null;
    timezone?: string;
    requestedTime?: string;
  } = {},
): Cmd<'ApprovePostGroup'> {
  const { schedule = null, ...rest } = options;
  return { type: 'ApprovePostGroup', ...rest, schedule, approvalId, by: reviewer, now };
}

export function reject(
  options: Omit<Cmd<'RejectPostGroup'>, 'type' | 'by' | 'now' | 'approvalId'> = {},
): Cmd<'RejectPostGroup'> {
  return { type: 'RejectPostGroup', ...options, approvalId, by: reviewer, now };
}

export function schedule(
  times: Record<string, SlotAssignment>,
  options: { postIds?: string[]; timezone?: string } = {},
): Cmd<'SchedulePostGroup'> {
  return { type: 'SchedulePostGroup', ...options, schedule: times, by: editor, now };
}

export function postNow(postId: string): Cmd<'RequestPublishNow'> {
  return { type: 'RequestPublishNow', postId, by: editor, now };
}

export function deletePost(postId: string): Cmd<'DeletePost'> {
  return { type: 'DeletePost', postId, by: editor, now };
}

export function slot(scheduledForUtc: string, scheduleReason = 'Time chosen by a member'): SlotAssignment {
  return { scheduledForUtc, scheduleReason };
}

/** The same time for every post named. */
export function slots(postIds: readonly string[], time: string): Record<string, SlotAssignment> {
  return Object.fromEntries(postIds.map((id) => [id, slot(time)]));
}

/** Each command is decided on the state the previous ones left; a refused command fails the fixture. */
export function history(...commands: PostGroupCommand[]): PostGroupEvent[] {
  const events: PostGroupEvent[] = [];
  let state = postGroupDecider.initialState;
  for (const command of commands) {
    const next = postGroupDecider.decide(command, state);
    events.push(...next);
    state = next.reduce(postGroupDecider.evolve, state);
  }
  return events;
}

export function activeState(events: PostGroupEvent[]): ActivePostGroup {
  const state = fold(postGroupDecider, events);
  if (state.kind !== 'active') throw new Error('expected an active post group');
  return state;
}

export function postOf(state: PostGroupState, postId: string): PostState {
  if (state.kind !== 'active') throw new Error('expected an active post group');
  const post = state.posts.find((p) => p.id === postId);
  if (!post) throw new Error(`no post ${postId}`);
  return post;
}

/** A state whose post reached a status only publishing sets (what the publisher would leave behind). */
export function withPost(
  events: PostGroupEvent[],
  postId: string,
  patch: Partial<PostState>,
): ActivePostGroup {
  const state = activeState(events);
  return { ...state, posts: state.posts.map((p) => (p.id === postId ? { ...p, ...patch } : p)) };
}

// ------------------------------------------------------------------------------------ given/when/then

type ErrorClass = abstract new (...args: never[]) => AppError;

export function given(start: PostGroupEvent[] | PostGroupState) {
  const state = Array.isArray(start) ? fold(postGroupDecider, start) : start;
  return {
    when(command: PostGroupCommand) {
      let outcome: { events: PostGroupEvent[] } | { error: unknown };
      try {
        outcome = { events: postGroupDecider.decide(command, state) };
      } catch (error) {
        outcome = { error };
      }
      const events = (): PostGroupEvent[] => {
        if ('error' in outcome) throw outcome.error;
        return outcome.events;
      };
      return {
        then(expected: PostGroupEvent[]) {
          expect(events()).toEqual(expected);
        },
        /** The event types emitted, in order. */
        thenTypes(expected: PostGroupEvent['type'][]) {
          expect(events().map((e) => e.type)).toEqual(expected);
        },
        thenEvents(check: (events: PostGroupEvent[]) => void) {
          check(events());
        },
        thenState(check: (state: ActivePostGroup, events: PostGroupEvent[]) => void) {
          const next = events().reduce(postGroupDecider.evolve, state);
          if (next.kind !== 'active') throw new Error('expected an active post group');
          check(next, events());
        },
        /** Refused with this error type, code (or no code) and, when given, exactly these detail paths. */
        thenRefuses(type: ErrorClass, code?: string, paths?: string[]) {
          expect('error' in outcome, 'expected the command to be refused').toBe(true);
          if (!('error' in outcome)) return;
          const error = outcome.error;
          expect(error).toBeInstanceOf(type);
          const appError = error as AppError;
          if (code !== undefined) expect(appError.code).toBe(code);
          if (paths !== undefined) expect((appError.details ?? []).map((d) => d.path)).toEqual(paths);
        },
      };
    },
  };
}
