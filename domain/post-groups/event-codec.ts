// The post group's events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts),
// the event union and its named parts read off them, and the upcasters that read older versions. Decoded where
// events come in from the store.
import { z } from 'zod';
import {
  zodEventCodec,
  type EventCodec,
  type EventsOf,
  type StoredEvent,
  type Upcaster,
} from '../shared/event-codec.js';
import { mediaAssetSchema } from '../shared/media-asset.js';
import { platforms } from '../shared/platforms.js';
import { replySettingsValues } from './post-content.js';
import { groupStatuses } from './state.js';

const nullableString = z.string().nullable();

export const rejectReasons = [
  'not_my_voice',
  'not_interesting',
  'too_promotional',
  'inaccurate',
  'repetitive',
  'wrong_timing',
  'other',
] as const;
const rejectReason = z.enum(rejectReasons);
export type RejectReason = z.output<typeof rejectReason>;

const publishTrigger = z.enum(['schedule', 'post_now', 'retry']);
export type PublishTrigger = z.output<typeof publishTrigger>;

/**
 * Why an attempt failed: `retryable` (try again later), `permanent` (the platform refused the content),
 * `account` (no usable account: removed, disconnected, needs reconnecting), `unconfirmed` (the outcome could not be
 * established, so it is not repeated blindly), `platform_timeout` (the platform never finished processing),
 * `attempts_exhausted` (the last allowed attempt failed).
 */
const publishFailureReason = z.enum([
  'retryable',
  'permanent',
  'account',
  'unconfirmed',
  'platform_timeout',
  'attempts_exhausted',
]);
export type PublishFailureReason = z.output<typeof publishFailureReason>;

/** Who acted and when: every event's data starts with it. */
const byObject = z.object({
  orgId: z.string(),
  groupId: z.string(),
  /** The user who acted (for an assistant, the user it acts for). */
  by: z.string(),
  at: z.string(),
  /** The assistant that acted for `by`; absent when the user (or the service) acted. */
  assistant: z.object({ clientId: z.string(), clientName: z.string() }).optional(),
});
export type By = z.output<typeof byObject>;
const by = byObject.shape;

const platform = z.enum(platforms);
const groupStatus = z.enum(groupStatuses);
const level = z.enum(['group', 'post']);
const postHashes = z.array(z.object({ postId: z.string(), contentHash: z.string() }));

const platformPayload = z.object({
  reddit: z
    .object({
      subreddit: z.string(),
      title: z.string(),
      flairId: z.string().optional(),
      nsfw: z.boolean().optional(),
      spoiler: z.boolean().optional(),
    })
    .optional(),
  youtube: z
    .object({
      title: z.string().optional(),
      privacyStatus: z.enum(['public', 'unlisted', 'private']).optional(),
      madeForKids: z.boolean().optional(),
    })
    .optional(),
  tiktok: z
    .object({
      title: z.string().optional(),
      isAigc: z.boolean().optional(),
      photoCoverIndex: z.number().optional(),
    })
    .optional(),
  thread: z.array(z.string()).optional(),
  quoteTweetUrl: z.string().optional(),
  communityUrl: z.string().optional(),
  replySettings: z.enum(replySettingsValues).optional(),
  poll: z.object({ options: z.array(z.string()), durationMinutes: z.number() }).optional(),
});

const groupFields = {
  title: z.string(),
  topic: nullableString,
  objective: nullableString,
  timezone: z.string(),
  scheduledFor: nullableString,
  tagIds: z.array(z.string()),
};

const newPost = z.object({
  postId: z.string(),
  platform,
  socialAccountId: nullableString,
  contentText: z.string(),
  media: mediaAssetSchema.nullable(),
  platformPayload: platformPayload.nullable(),
  contentHash: z.string(),
});
export type NewPostData = z.output<typeof newPost>;

const schemas = {
  PostGroupCreated: z.object({
    ...by,
    ...groupFields,
    strategy: z.object({
      strategyId: nullableString,
      strategyVersion: z.number().nullable(),
      pillarId: nullableString,
      priorityId: nullableString,
      contentType: nullableString,
      opportunityId: nullableString,
    }),
    origin: z.enum(['post_groups', 'drafts']),
    posts: z.array(newPost),
  }),
  // Strict: the changes are spread onto the group, so an unknown key would become state.
  PostGroupUpdated: z.object({ ...by, changes: z.strictObject(groupFields).partial() }),
  PostGroupSubmittedForApproval: z.object({
    ...by,
    approvalId: z.string(),
    level,
    /** Why: submitted by someone, or an edit withdrew an approval and sent the content back to review. */
    cause: z.enum(['created', 'submitted', 'group_edited', 'post_edited']),
    posts: postHashes,
    groupStatus,
  }),
  PostGroupApproved: z.object({
    ...by,
    level,
    records: z.array(
      z.object({
        approvalId: z.string(),
        postId: nullableString,
        action: z.enum(['approved', 'reapproved']),
      }),
    ),
    posts: postHashes,
    groupStatus,
  }),
  PostGroupRejected: z.object({
    ...by,
    level,
    records: z.array(z.object({ approvalId: z.string(), postId: nullableString })),
    posts: postHashes,
    reason: rejectReason.nullable(),
    note: nullableString,
    groupStatus,
  }),
  /** A reviewer's rejection as a signal other parts (preference learning) can learn from. */
  PreferenceSignalRecorded: z.object({
    ...by,
    kind: z.literal('reject'),
    signal: z.enum([...rejectReasons, 'unspecified']),
    note: nullableString,
    topic: nullableString,
    posts: z.array(z.object({ postId: z.string(), platform, contentText: z.string() })),
  }),
  PostsScheduled: z.object({
    ...by,
    posts: z.array(z.object({ postId: z.string(), scheduledForUtc: z.string(), scheduleReason: z.string() })),
    timezone: nullableString,
    groupStatus,
  }),
  PostsStatusChanged: z.object({
    ...by,
    cause: z.enum(['returned_to_draft', 'canceled', 'unscheduled']),
    postIds: z.array(z.string()),
    status: z.enum(['draft', 'approved', 'canceled']),
    groupStatus,
  }),
  PostEdited: z.object({
    ...by,
    postId: z.string(),
    // Strict: the changes are spread onto the post.
    changes: z.strictObject({
      contentText: z.string().optional(),
      media: mediaAssetSchema.nullable().optional(),
      platformPayload: platformPayload.nullable().optional(),
      socialAccountId: nullableString.optional(),
      scheduledForUtc: nullableString.optional(),
    }),
    contentHash: z.string(),
  }),
  PostPublishRequested: z.object({
    ...by,
    postId: z.string(),
    contentHash: z.string(),
    idempotencyKey: z.string(),
    trigger: z.literal('post_now'),
  }),
  PostDeleted: z.object({
    ...by,
    postId: z.string(),
    groupStatus,
    /** Set when the post was first deleted on the platform (X post deletion). */
    deletedOnPlatform: z.object({ externalId: z.string() }).optional(),
  }),
  /** The claim: appended with the revision the worker read, so only one worker ever makes this attempt. */
  PostPublishAttemptStarted: z.object({
    ...by,
    postId: z.string(),
    attempt: z.number(),
    idempotencyKey: z.string(),
    contentHash: z.string(),
    socialAccountId: nullableString,
    trigger: publishTrigger,
  }),
  PostPublished: z.object({
    ...by,
    postId: z.string(),
    attempt: z.number(),
    externalId: z.string(),
    url: z.string(),
  }),
  /** v2: the platform's handle is `publishReference`, as the post calls it (v1 stored it as `reference`). */
  PostAwaitingPlatform: z.object({
    ...by,
    postId: z.string(),
    attempt: z.number(),
    publishReference: z.string(),
    nextCheckAt: z.string(),
  }),
  PostPublishAttemptFailed: z.object({
    ...by,
    postId: z.string(),
    attempt: z.number(),
    error: z.string(),
    reason: publishFailureReason,
    /** When the next attempt is due; null when the post has failed for good. */
    nextRetryAt: nullableString,
  }),
  /** The account the posts were to be published with was removed from the workspace. */
  PostsAccountRemoved: z.object({
    ...by,
    socialAccountId: z.string(),
    postIds: z.array(z.string()),
    /** Of postIds, those that were scheduled and are now approved without a time. */
    unscheduledPostIds: z.array(z.string()),
    message: z.string(),
    groupStatus,
  }),
};
export type PostGroupEvent = EventsOf<typeof schemas>;
export type PostGroupEventType = PostGroupEvent['type'];

/** Versions above 1, each with the history of its changes. */
const versions = {
  // v2: `reference` renamed `publishReference`, the name the post's state and the pipeline use.
  PostAwaitingPlatform: 2,
};

const upcasters: Upcaster[] = [
  {
    type: 'PostAwaitingPlatform',
    fromVersion: 1,
    upcast: ({ reference, ...rest }) => ({ ...rest, publishReference: reference }),
  },
];

const stampedCodec = zodEventCodec('post-groups', schemas, { versions, upcasters });

/**
 * Events an assistant caused before their data named it carry it only in their metadata (`actor`
 * `assistant:<clientId>`, `assistant.clientName`): they are read with it, so content an assistant drafted before
 * the data recorded it still counts as an assistant's (no assistant may approve it).
 */
function withAssistantOfMetadata(stored: StoredEvent, event: PostGroupEvent): PostGroupEvent {
  if (event.data.assistant !== undefined) return event;
  const metadata = stored.metadata as { actor?: unknown; assistant?: { clientName?: unknown } };
  const actor = metadata.actor;
  if (typeof actor !== 'string' || !actor.startsWith('assistant:')) return event;
  const clientId = actor.slice('assistant:'.length);
  const name = metadata.assistant?.clientName;
  const assistant = { clientId, clientName: typeof name === 'string' ? name : clientId };
  return { ...event, data: { ...event.data, assistant } } as PostGroupEvent;
}

export const postGroupEventCodec: EventCodec<PostGroupEvent> = {
  ...stampedCodec,
  decode: (stored) => withAssistantOfMetadata(stored, stampedCodec.decode(stored)),
  decodeAll: (stored) => stored.map((e) => withAssistantOfMetadata(e, stampedCodec.decode(e))),
};

/** Every post group event type, as the codec knows them. */
export const postGroupEventTypes: readonly PostGroupEventType[] = postGroupEventCodec.types;
