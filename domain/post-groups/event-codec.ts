// The post group's events as stored: today's schema of each event's data (events.ts types it) and the upcasters
// that read older versions. Decoded where events come in from the store (domain/shared/event-codec.ts).
import { z } from 'zod';
import {
  defineEventCodec,
  zodSpecs,
  type EventCodec,
  type SchemasMatch,
  type StoredEvent,
  type Upcaster,
} from '../shared/event-codec.js';
import { mediaAssetSchema } from '../shared/media-asset.js';
import { platforms } from '../shared/platforms.js';
import { replySettingsValues } from './post-content.js';
import { rejectReasons, type PostGroupEvent } from './events.js';
import { groupStatuses } from './state.js';

const nullableString = z.string().nullable();

const by = {
  orgId: z.string(),
  groupId: z.string(),
  by: z.string(),
  at: z.string(),
  assistant: z.object({ clientId: z.string(), clientName: z.string() }).optional(),
};

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
    posts: z.array(
      z.object({
        postId: z.string(),
        platform,
        socialAccountId: nullableString,
        contentText: z.string(),
        media: mediaAssetSchema.nullable(),
        platformPayload: platformPayload.nullable(),
        contentHash: z.string(),
      }),
    ),
  }),
  // Strict: the changes are spread onto the group, so an unknown key would become state.
  PostGroupUpdated: z.object({ ...by, changes: z.strictObject(groupFields).partial() }),
  PostGroupSubmittedForApproval: z.object({
    ...by,
    approvalId: z.string(),
    level,
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
    reason: z.enum(rejectReasons).nullable(),
    note: nullableString,
    groupStatus,
  }),
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
    deletedOnPlatform: z.object({ externalId: z.string() }).optional(),
  }),
  PostPublishAttemptStarted: z.object({
    ...by,
    postId: z.string(),
    attempt: z.number(),
    idempotencyKey: z.string(),
    contentHash: z.string(),
    socialAccountId: nullableString,
    trigger: z.enum(['schedule', 'post_now', 'retry']),
  }),
  PostPublished: z.object({
    ...by,
    postId: z.string(),
    attempt: z.number(),
    externalId: z.string(),
    url: z.string(),
  }),
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
    reason: z.enum([
      'retryable',
      'permanent',
      'account',
      'unconfirmed',
      'platform_timeout',
      'attempts_exhausted',
    ]),
    nextRetryAt: nullableString,
  }),
  PostsAccountRemoved: z.object({
    ...by,
    socialAccountId: z.string(),
    postIds: z.array(z.string()),
    unscheduledPostIds: z.array(z.string()),
    message: z.string(),
    groupStatus,
  }),
};
// Compiles only while each schema's data type is exactly the event's in events.ts.
const exact: SchemasMatch<PostGroupEvent, typeof schemas> = true;
void exact;

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

const stampedCodec = defineEventCodec<PostGroupEvent>('post-groups', zodSpecs(schemas, versions), upcasters);

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
